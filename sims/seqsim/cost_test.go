package seqsim

import (
	"errors"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestTransformerCost (catalogue §2.10): at the defaults (N = 6, d = 512,
// d_ff = 2048: seed 001 L1173) the run doubles n_ctx from 1 to 2^22 and
// stops; the crossover is 2d + d_ff = 3072, where the attention's share
// of the layers' FLOPs is exactly ½ (the share passes ½ between 2048 and
// 4096); doubling n multiplies a sequence's cost by → 2 when n ≪ d and →
// 4 when n ≫ d; the table's products add up to the per-token FLOPs.
func TestTransformerCost(t *testing.T) {
	s := simtest.Build(t, TransformerCost, nil, 1, nil)
	g := s.(*costSim)
	f := s.Frame()
	algotest.Near(t, "crossover", simtest.Metric(t, f, "crossover n_ctx"), 3072, 0)
	a, d, _ := g.perToken(3072)
	algotest.Near(t, "attention/dense at the crossover", a/d, 1, 0)
	share := map[float64]float64{}
	steps := 0
	for {
		err := s.Step()
		steps++
		f := s.Frame()
		n := simtest.Metric(t, f, "n_ctx")
		share[n] = simtest.Metric(t, f, "attention share")
		if n == 1<<22 {
			if !errors.Is(err, sims.ErrConverged) {
				t.Fatalf("at n = 2^22: %v, want converged", err)
			}
			break
		}
		if err != nil || steps > 30 {
			t.Fatalf("step %d: %v", steps, err)
		}
	}
	if steps != 22 || share[2048] >= 0.5 || share[4096] <= 0.5 {
		t.Errorf("%d steps; attention share %.3f at 2048, %.3f at 4096", steps, share[2048], share[4096])
	}
	// n(n + x) ∝ a sequence's cost with x the crossover: the ratio is
	// 2(n + x)/(n/2 + x), 2.0003 at n = 2 and 3.9971 at n = 2^22
	ratio := func(n float64) float64 { return 2 * (n + 3072) / (n/2 + 3072) }
	algotest.Near(t, "×cost per doubling at n = 2", g.layers(2)/g.layers(1), ratio(2), 1e-12)
	algotest.Near(t, "→ 2", ratio(2), 2, 1e-3)
	algotest.Near(t, "×cost per doubling at n = 2^22", simtest.Metric(t, s.Frame(), "×cost per doubling"), ratio(1<<22), 1e-12)
	algotest.Near(t, "→ 4", ratio(1<<22), 4, 3e-3)
	for _, n := range []float64{1, 64, 3072, 1 << 22} {
		walked := 0.0
		for _, p := range g.cfg.Products(int(n)) {
			walked += 2 * p.MulAdds()
		}
		a, d, l := g.perToken(n)
		algotest.Near(t, "walked FLOPs/n", walked/n, a+d+l, 1e-12*(a+d+l))
	}
	if _, err := simtest.BuildErr(TransformerCost, map[string]string{"dim": "100", "heads": "8"}, 1, nil); err == nil {
		t.Error("heads = 8 accepted with dim = 100")
	}
}
