package diffusionsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestForwardMomentsMatchTheSDE runs forward-noise to its end (β = 1,
// T = 4, h = 0.02) and checks the particles' moments against the closed
// form m_t, v_t of [A29]: the mean within 4 standard errors plus the
// Euler bias O(h) (about 0.003 here), the variance within 4 standard
// errors of a variance plus the same. At the default n = 5 000, not
// 20 000: the engine's TestForwardMoments holds the 20 000-particle check
// at every 50 steps; this one checks the pane's wiring (the data presets,
// β, the closed form it shows), and fails with the engine given β/2.
func TestForwardMomentsMatchTheSDE(t *testing.T) {
	for _, data := range []string{"two", "three"} {
		s := simtest.Build(t, Forward, map[string]string{"data": data}, 3, nil)
		n := float64(len(s.(*fwSim).f.X))
		simtest.RunToEnd(t, s, 1000)
		f := s.Frame()
		if f.Step != 200 {
			t.Errorf("%s: %d steps, want T/h = 200", data, f.Step)
		}
		algotest.Near(t, "t", simtest.Metric(t, f, "t"), 4, 1e-9)
		vt := simtest.Metric(t, f, "v_t")
		algotest.Near(t, data+" mean", simtest.Metric(t, f, "mean"), simtest.Metric(t, f, "m_t"), 4*math.Sqrt(vt/n)+0.005)
		algotest.Near(t, data+" var", simtest.Metric(t, f, "var"), vt, 4*vt*math.Sqrt(2.0/n)+0.01)
		if !simtest.FiniteMetrics(t, f) {
			t.Fatal("metrics not finite")
		}
	}
	if _, err := simtest.BuildErr(Forward, map[string]string{"beta": "10", "h": "0.5"}, 1, nil); err == nil {
		t.Error("βh = 5 accepted")
	}
}
