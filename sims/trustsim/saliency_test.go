package trustsim

import (
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestSaliencyAscendsAndOR checks the pane's promises: the grown input's
// activation never falls and ends at least as high as the most active
// test digit's; the OR example shows flips 0, a vanishing smooth-OR
// gradient and Shapley ½ each.
//
// On the same run (one build and one ascent, not two: the pane trains
// its network at every build) it checks issue 28.1: at every step, from
// step 0, the activation metric, the curve's last point and its step are
// those of the grown image the frame shows, h(x) = tanh(xᵀW₍·,unit₎ +
// b_unit) evaluated here by hand (it was h of the input before the step's
// move, 0 at step 0 and drawn one step late). That check ran 40 steps of
// its own run and now covers all 100 of this one.
func TestSaliencyAscendsAndOR(t *testing.T) {
	s := simtest.Build(t, Saliency, nil, 1, nil)
	sal := s.(*saliencySim)
	l := sal.model.Layers[0]
	width := l.W.Shape()[1]
	h := func(x []float64) float64 {
		z := l.B.Data[sal.unit]
		for p, v := range x {
			z += v * l.W.Data[p*width+sal.unit]
		}
		return math.Tanh(z)
	}
	prev := -1.0 // tanh's least; from step 1 on, the step before's
	for k := range 101 {
		if k > 0 {
			simtest.Run(t, s, 1)
		}
		f := s.Frame()
		grown := f.Charts[0].(sims.ImageChart).Images[0]
		want := h(grown.Pix)
		if k == 0 && (want == 0 || !strings.HasSuffix(grown.Caption, "step 0")) {
			t.Fatalf("step 0: h(grey) = %g, caption %q", want, grown.Caption)
		}
		got := simtest.Metric(t, f, "activation")
		if math.Abs(got-want) > 1e-12 {
			t.Fatalf("step %d: activation %g, h of the image shown %g", k, got, want)
		}
		curve := f.Charts[2].(sims.LineChart)
		y := curve.Series[0].Y
		if last := y[len(y)-1]; curve.X1 != float64(k) || last != got {
			t.Fatalf("step %d: the curve ends at step %g with %g, the metric is %g", k, curve.X1, last, got)
		}
		if got < prev-1e-12 {
			t.Fatalf("activation fell from %g to %g", prev, got)
		}
		prev = got
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
