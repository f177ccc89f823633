package mcmc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/target"
)

// TestMonteCarloErrorSlope is the catalogue's oracle for C3: the RMSE of a
// Monte Carlo average over independent draws falls as σ_f/√S (seed 002
// L1038), so its log-log slope is −½. With R = 300 replicates the RMSE at a
// checkpoint has a relative standard error of about 1/√(2R) ≈ 4%: each
// must be within 20% of σ_f/√S, and the fitted slope over S = 10..2000
// within 0.06 of −½. The chain's RMSE has the same slope (fitted over
// S ≥ 100, within 0.12) and sits √τ̂ above (within 30%) once S ≫ τ: on the
// Gaussians (τ ≲ 20); on the mixture and the banana the chains are still
// in the pre-asymptotic regime at S = 2000 (slower than 1/√S), which the
// pane shows, so only their independent draws are checked.
func TestMonteCarloErrorSlope(t *testing.T) {
	rho, _ := target.NewCorrelated(0.9)
	banana, _ := target.NewBanana(target.BananaA, target.BananaB)
	for _, c := range []struct {
		tg    target.Target
		stat  Statistic
		step  float64
		chain bool // S = 2000 ≫ τ
	}{
		{target.StdNormal(), StatMean, 2.4, true},
		{rho, StatSquare, 1.1, true},
		{target.Fig37(), StatTail, 2, false},
		{banana, StatMean, 2.5, false},
	} {
		e, err := NewMCError(c.tg, c.stat, 300, c.step, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		n := 2000
		if testing.Short() {
			n = 500
		}
		for range n {
			e.Step()
		}
		s, iid, chain := e.Checkpoints()
		sigma := e.SigmaF()
		for k := range s {
			if want := sigma / math.Sqrt(float64(s[k])); math.Abs(iid[k]/want-1) > 0.2 {
				t.Errorf("%s, f = %s, S = %d: RMSE %.4g, σ/√S = %.4g", c.tg.Name(), c.stat, s[k], iid[k], want)
			}
		}
		b := e.Slope(0, false)
		bm := e.Slope(100, true)
		ratio := chain[len(chain)-1] / iid[len(iid)-1]
		t.Logf("%s, f = %s: slope %.3f (iid), %.3f (chain); RMSE ratio %.2f, √τ̂ %.2f", c.tg.Name(), c.stat, b, bm, ratio, math.Sqrt(e.Tau()))
		if math.Abs(b+0.5) > 0.06 {
			t.Errorf("%s, f = %s: iid slope %.3f, want −0.5", c.tg.Name(), c.stat, b)
		}
		if !c.chain {
			continue
		}
		if math.Abs(bm+0.5) > 0.12 {
			t.Errorf("%s, f = %s: chain slope %.3f, want −0.5", c.tg.Name(), c.stat, bm)
		}
		if r := ratio / math.Sqrt(e.Tau()); !testing.Short() && (r < 0.7 || r > 1.3) {
			t.Errorf("%s, f = %s: chain RMSE / iid RMSE = %.2f, √τ̂ = %.2f", c.tg.Name(), c.stat, ratio, math.Sqrt(e.Tau()))
		}
	}
}

func TestMCErrorCheckpointsAndParams(t *testing.T) {
	e, _ := NewMCError(target.StdNormal(), StatMean, 5, 1, rand.New(rand.NewPCG(1, 1)))
	for range 1000 {
		e.Step()
	}
	s, _, _ := e.Checkpoints()
	want := []int{10, 13, 16, 20, 25, 32, 40, 50, 63, 79, 100, 126, 158, 200, 251, 316, 398, 501, 631, 794, 1000}
	if len(s) != len(want) {
		t.Fatalf("checkpoints %v", s)
	}
	for k := range want {
		if s[k] != want[k] {
			t.Fatalf("checkpoints %v, want %v", s, want)
		}
	}
	if a := testing.AllocsPerRun(100, func() { e.Step() }); a != 0 {
		t.Errorf("Step between checkpoints allocates %v times", a)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	shifted, _ := target.NewNormal(1, 1)
	for _, c := range []struct {
		name string
		err  error
	}{
		{"replicates", func() error { _, err := NewMCError(target.StdNormal(), StatMean, 1, 1, rng); return err }()},
		{"step", func() error { _, err := NewMCError(target.StdNormal(), StatMean, 10, 0, rng); return err }()},
		{"f", func() error { _, err := NewMCError(target.StdNormal(), "x3", 10, 1, rng); return err }()},
		{"f", func() error { _, err := NewMCError(shifted, StatTail, 10, 1, rng); return err }()},
		{"target", func() error { _, err := NewMCError(nil, StatMean, 10, 1, rng); return err }()},
	} {
		var pe *algo.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.name {
			t.Errorf("got %v, want a ParamError naming %s", c.err, c.name)
		}
	}
}
