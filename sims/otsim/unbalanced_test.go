package otsim

import (
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestUnbalancedOutlier: at the defaults (outlier, ε = 0.002, τ = 0.1)
// the run converges with the duality gap closed, the balanced plan sends
// the outlier all of its 0.2, and the unbalanced plan sends it less than a
// tenth of that while moving most of the main bump (over 3/4 of μ).
func TestUnbalancedOutlier(t *testing.T) {
	s := simtest.Build(t, Unbalanced, nil, 1, nil)
	steps := simtest.RunToEnd(t, s, 5000)
	if steps < 200 {
		t.Errorf("converged after %d steps: the story is short of 20 s at speed %g", steps, Unbalanced.Speed)
	}
	f := s.Frame()
	sim := s.(*ubSim)
	algotest.Near(t, "balanced to outlier", sim.balOut, 0.2, 1e-6)
	if out := simtest.Metric(t, f, "to outlier"); out > 0.02 {
		t.Errorf("the unbalanced plan sends the outlier %g, want < 0.02", out)
	}
	if moved := simtest.Metric(t, f, "moved"); moved < 0.75 || moved > 1 {
		t.Errorf("moved %g, want in [0.75, 1]", moved)
	}
	obj, dual := simtest.Metric(t, f, "objective"), simtest.Metric(t, f, "dual")
	algotest.Near(t, "gap", obj-dual, 0, 1e-10*obj)
}

// TestUnbalancedLargeTau: with τ = 1e4 the plan after 300 iterations is
// the balanced one's to within 1e-3 in mass moved, and so sends the
// outlier its 0.2 (the potentials themselves drift on slowly: with
// κ = τ/(τ + ε) near 1, the total mass's mode contracts by κ² a step).
// 300 iterations, not 3000: the mass moved (0.999993) and sent to the
// outlier (0.199993) are the same to 1e-6 at every hundredth iteration
// from the 10th to the 3000th, so the longer run added nothing.
func TestUnbalancedLargeTau(t *testing.T) {
	s := simtest.Build(t, Unbalanced, map[string]string{"tau": "1e4", "n": "40", "eps": "0.01"}, 1, nil)
	simtest.RunUntil(t, s, 300)
	f := s.Frame()
	algotest.Near(t, "moved", simtest.Metric(t, f, "moved"), 1, 1e-3)
	algotest.Near(t, "to outlier", simtest.Metric(t, f, "to outlier"), 0.2, 1e-3)
}

// TestUnbalancedPOT: POT's plot_UOT_1D masses (ν five times μ): the plan
// moves more than μ's 1 (ν has surplus to cover) and less than ν's 5.
//
// The run stops when no potential moves by 1e-5 in an iteration (the
// sim's default tol is 1e-9): the mass moved, 2.065 at convergence, then
// differs from its limit by about 1e-3, far inside (1, 5), and the
// 830 iterations to 1e-9 become about 370.
func TestUnbalancedPOT(t *testing.T) {
	s := simtest.Build(t, Unbalanced, map[string]string{"preset": "gauss-hist", "tau": "1", "eps": "0.01", "tol": "1e-5"}, 1, nil)
	simtest.RunToEnd(t, s, 20000)
	if moved := simtest.Metric(t, s.Frame(), "moved"); moved < 1 || moved > 5 {
		t.Errorf("moved %g, want in (1, 5)", moved)
	}
}
