package gpsim

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestGPSim: the band never widens as observations arrive (up to the
// jitter's effect, √(1e-10) ≈ 1e-5 at worst, when σ² = 0), and the Result
// has x_test evenly spanning the data's range with the latent mean and
// std, and the log marginal likelihood of all the data.
func TestGPSim(t *testing.T) {
	for _, noise := range []string{"0.09", "0"} {
		s := simtest.Build(t, GP, map[string]string{"noise": noise, "grid_points": "50"}, 7, nil)
		simtest.RunToEnd(t, s, 1000)
		f := s.Frame()
		// With σ² = 0 the jitter keeps cond(C) ≤ 1e13, and log p (whose
		// data fit yᵀC⁻¹y is then of order 1e8) is good to about cond·ε
		// between two factorisations: the step's extended factor and
		// LogMarginalSE's from scratch.
		slack, lmlTol := 1e-12, 1e-9
		if noise == "0" {
			slack, lmlTol = 1e-5, 1e-5
		}
		for _, name := range []string{"mean σ", "max σ"} {
			sd, _ := f.Series(name)
			for i := 1; i < len(sd.Y); i++ {
				if sd.Y[i] > sd.Y[i-1]+slack {
					t.Fatalf("noise %s: %s rose at %d", noise, name, i)
				}
			}
		}
		res := s.Result()
		xs, mean, std := res["x_test"].([]float64), res["mean"].([]float64), res["std"].([]float64)
		sim := s.(*gpSim)
		if len(xs) != 50 || len(mean) != 50 || len(std) != 50 || xs[0] != sim.lo || xs[49] != sim.hi {
			t.Fatalf("x_test %d points from %v to %v, data range %v…%v", len(xs), xs[0], xs[len(xs)-1], sim.lo, sim.hi)
		}
		for _, v := range std {
			if !(v >= 0) {
				t.Fatalf("std %v", v)
			}
		}
		h := gp.Hyper{Lengthscale: 0.1, Variance: 1, Noise: sim.h.Noise}
		ev, err := gp.LogMarginalSE(sim.in, sim.y, h)
		if err != nil {
			t.Fatal(err)
		}
		if got := res["log_marginal_likelihood"].(float64); math.Abs(got-ev.LogML) > lmlTol*math.Abs(ev.LogML) {
			t.Errorf("log ml %v, direct %v", got, ev.LogML)
		}
	}
}

// TestGPFitSim: the log marginal likelihood curve never falls.
func TestGPFitSim(t *testing.T) {
	s := simtest.Build(t, GPFit, nil, 7, nil)
	simtest.RunToEnd(t, s, 2000)
	lml, _ := s.Frame().Series("log marginal likelihood")
	for i := 1; i < len(lml.Y); i++ {
		if lml.Y[i] < lml.Y[i-1] {
			t.Fatalf("log p fell at %d: %v → %v", i, lml.Y[i-1], lml.Y[i])
		}
	}
	if len(lml.Y) < 5 {
		t.Errorf("only %d steps", len(lml.Y))
	}
}

// TestBLRSim: at every step the sequential posterior equals the batch one
// and the GP with kernel (1 + xx')/α gives the same predictions: batch_diff
// and gp_diff are "0 up to rounding", as their declarations say, at the
// pane's own measure of rounding — each 0 or Negligible, within
// sims.RoundingNoise (64ε) of its Scale (44ε is the most seen) — on the
// built-in line and on a table.
func TestBLRSim(t *testing.T) {
	tab := &sims.Table{Name: "line.csv", Columns: []string{"x", "y"}}
	for i := range 25 {
		x := float64(i)/12 - 1
		tab.Rows = append(tab.Rows, []float64{x, 0.3 - 0.8*x + 0.1*math.Sin(7*float64(i))})
	}
	for _, data := range []*sims.Table{nil, tab} {
		s := simtest.Build(t, BLR, nil, 7, data)
		for {
			err := s.Step()
			f := s.Frame()
			if d, _ := f.Metric("gp_diff"); d > 1e-9 {
				t.Fatalf("BLR and GP differ by %g", d)
			}
			if d, _ := f.Metric("batch_diff"); d > 1e-9 {
				t.Fatalf("sequential and batch differ by %g", d)
			}
			for _, m := range f.Metrics {
				if (m.Name == "gp_diff" || m.Name == "batch_diff") && m.Value != 0 && !m.Negligible() {
					t.Fatalf("%s = %.2g at scale %.3g: above rounding", m.Name, m.Value, m.Scale)
				}
			}
			if errors.Is(err, sims.ErrConverged) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}
