package trustsim

import (
	"strings"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// TestSaliencyAscendsAndOR checks the pane's promises: the grown input's
// activation never falls and ends at least as high as the most active
// test digit's; the OR example shows flips 0, a vanishing smooth-OR
// gradient and Shapley ½ each.
func TestSaliencyAscendsAndOR(t *testing.T) {
	s := simtest.Build(t, Saliency, nil, 1, nil)
	prev := -2.0
	for range 100 {
		simtest.Run(t, s, 1)
		h := simtest.Metric(t, s.Frame(), "activation")
		if h < prev-1e-12 {
			t.Fatalf("activation fell from %g to %g", prev, h)
		}
		prev = h
	}
	f := s.Frame()
	if top := simtest.Metric(t, f, "top"); prev < top {
		t.Errorf("ascent reached %g, below the most active test digit's %g", prev, top)
	}
	if simtest.Metric(t, f, "shapley_x1") != 0.5 || simtest.Metric(t, f, "flip_x1") != 0 ||
		simtest.Metric(t, f, "grad_x1") > 1e-4 {
		t.Errorf("OR example: %v", f.Metrics)
	}
	_, err := simtest.BuildErr(Saliency, map[string]string{"unit": "40"}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "hidden units 0–31") {
		t.Errorf("unit 40 of 32: %v", err)
	}
}
