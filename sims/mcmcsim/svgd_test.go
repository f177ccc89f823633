package mcmcsim

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestSVGDSpreadsOverTheMixture is the pane's promise at its defaults:
// 100 particles started together at the saddle between the mixture's
// modes split between both modes — not collapsing onto one, as gradient
// ascent does — and the run converges (‖φ‖ ≤ tol) with the particles'
// variance of x within 10% of the exact 10 (measured 9.70 at seed 1; SVGD's
// finite-n fixed point is a few % short) and at least a third of them in
// each mode (44 of 100 at seed 1, the mean x = −0.35).
func TestSVGDSpreadsOverTheMixture(t *testing.T) {
	// Seed 1 only: O(n²) steps are slow under the race detector; cmd/lab's
	// pacing check runs seed 2's story (428 steps, var x 9.79, 47 of 100).
	for _, seed := range []uint64{1} {
		s := simtest.Build(t, SVGD, nil, seed, nil)
		steps, converged := simtest.RunUntil(t, s, 2000)
		if !converged || steps < 200 {
			t.Errorf("seed %d: converged %v after %d steps: want a story of ≥ 200 steps (20 s at 10/s)", seed, converged, steps)
		}
		f := s.Frame()
		vx := simtest.Metric(t, f, "var_x")
		if math.Abs(vx-10) > 1 {
			t.Errorf("seed %d: var x = %.3f, exact 10", seed, vx)
		}
		m := simtest.Metric(t, f, "mean_x") // = 3(2·share − 1)
		share := (m/3 + 1) / 2
		t.Logf("seed %d: %d steps, var x %.3f, mean x %.3f (share %.2f), ‖φ‖ %.3g", seed, steps, vx, m, share, simtest.Metric(t, f, "‖φ‖"))
		if share < 1.0/3 || share > 2.0/3 {
			t.Errorf("seed %d: share in the mode x > 0 %.2f, want both modes covered", seed, share)
		}
		if _, err := json.Marshal(s.Result()); err != nil {
			t.Error(err)
		}
		simtest.CheckText(t, f, s.Result())
	}
}

// TestSVGDOneParticleClimbsToAMode: n = 1 is gradient ascent, and ends at
// a mode of the mixture with variance 0.
func TestSVGDOneParticleClimbsToAMode(t *testing.T) {
	s := simtest.Build(t, SVGD, map[string]string{"n": "1", "init": "0.5,0.2"}, 1, nil)
	simtest.RunUntil(t, s, 2000)
	f := s.Frame()
	algotest.Near(t, "mean x", simtest.Metric(t, f, "mean_x"), 3, 1e-3)
	algotest.Near(t, "mean y", simtest.Metric(t, f, "mean_y"), 3, 1e-3)
	if v := simtest.Metric(t, f, "var_x"); v != 0 {
		t.Errorf("var x = %v", v)
	}
}

// TestSVGDViews builds every target in 1-D and 2-D, a fixed bandwidth and
// adagrad, and checks the frames: the picture is primary, the metrics
// finite, and a 1-D target draws a histogram that integrates to the mass
// inside its bounds.
func TestSVGDViews(t *testing.T) {
	for _, set := range []map[string]string{
		{"target": "normal"}, {"target": "banana", "h": "0.5"}, {"target": "funnel", "schedule": "adagrad"},
		{"target": "donut"}, {"target": "squiggle"}, {"target": "correlated", "rho": "0.99"},
	} {
		s := simtest.Build(t, SVGD, set, 1, nil)
		if err := simtest.RunErr(s, 30); err != nil && !errors.Is(err, algo.ErrConverged) {
			t.Fatalf("%v: %v", set, err)
		}
		f := s.Frame()
		simtest.FiniteMetrics(t, f)
		if f.PrimaryChart() != 0 || len(f.Charts) != 3 {
			t.Errorf("%v: %d charts, primary %d", set, len(f.Charts), f.PrimaryChart())
		}
		if h, ok := f.Charts[0].(sims.HistChart); ok {
			w, mass := (h.Hi-h.Lo)/float64(len(h.Density)), 0.0
			for _, d := range h.Density {
				mass += d * w
			}
			algotest.Near(t, "histogram mass", mass, 1, 1e-9)
		} else if c, ok := f.Charts[0].(sims.CanvasChart); !ok || len(c.Points[0].X) != 100 || len(c.Paths) != 100 {
			t.Errorf("%v: picture %T", set, f.Charts[0])
		}
		simtest.CheckText(t, f, s.Result())
	}
}
