package mcmc

import (
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/target"
)

// TestExactCheckPassesExactDraws: chains of independent exact draws from
// every preset are never flagged (each check has a false-alarm probability
// of about 6·10⁻⁵ when its standard error is right; 5 checks × 2
// coordinates × 6 targets × 2 seeds here, the funnel's heavy-tailed x
// among them), while draws whose upper tail is cut off (every draw above
// the exact 97% quantile of x replaced by a fresh one below it: chains
// that never visit that region) are: none lies beyond the 99% quantile.
func TestExactCheckPassesExactDraws(t *testing.T) {
	const m, n = 4, 2000
	var d Diagnoser
	var s Summary
	for _, name := range presets {
		tg, _ := target.New(name, target.DefaultRho)
		dr := tg.(target.Drawer)
		// The truths (quadratures of the marginals, a fifth of this test's
		// time) depend on the target alone: computed once for both seeds.
		truths := make([]Truth, tg.Dim())
		for i := range truths {
			truths[i] = TruthOf(tg, i)
		}
		q97, _ := target.Quantile(tg, 0, 0.97)
		for seed := uint64(1); seed <= 2; seed++ {
			rng := rand.New(rand.NewPCG(seed, 77))
			draws := make([][][]float64, tg.Dim()) // coordinate, chain, draw
			for i := range draws {
				draws[i] = make([][]float64, m)
				for c := range m {
					draws[i][c] = make([]float64, n)
				}
			}
			cut := make([][]float64, m) // coordinate 0 without its top 3%
			x := make([]float64, tg.Dim())
			for c := range m {
				for k := range n {
					dr.Draw(x, rng)
					for i, v := range x {
						draws[i][c][k] = v
					}
					for x[0] > q97 {
						dr.Draw(x, rng)
					}
					cut[c] = append(cut[c], x[0])
				}
			}
			for i := range draws {
				if err := d.Summarise(&s, draws[i]); err != nil {
					t.Fatal(err)
				}
				for _, dv := range truths[i].Check(&s, draws[i]) {
					if dv.Flagged() {
						t.Errorf("%s seed %d, coordinate %d: exact draws flagged: %+v", name, seed, i, dv)
					}
				}
			}
			if err := d.Summarise(&s, cut); err != nil {
				t.Fatal(err)
			}
			flagged := false
			for _, dv := range truths[0].Check(&s, cut) {
				flagged = flagged || (dv.Flagged() && dv.P == 0.99 && dv.Estimate == 1)
			}
			if !flagged {
				t.Errorf("%s seed %d: draws without the top 3%% not flagged at the 99%% quantile: %+v", name, seed, truths[0].Check(&s, cut))
			}
		}
	}
}
