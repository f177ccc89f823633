package rffsim

import (
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/fourier"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestFourierPane: the default run (the square wave to N = 40) ends at
// its 41st step, which adds the 40th harmonic and says so; the pane's last coefficient is the closed form b₃₉ =
// 4/(39π), its error curve never rises and ends at the Bessel tail, the
// overshoot is Gibbs' within 3% at N = 40 and the orthogonality error is
// rounding; the triangle has no overshoot and says why.
func TestFourierPane(t *testing.T) {
	s := simtest.Build(t, Fourier, nil, 1, nil)
	if steps := simtest.RunToEnd(t, s, 1000); steps != 40 {
		t.Errorf("the default run converged after %d steps, want 40 and the 41st (a₀ to the 40th harmonic)", steps)
	}
	f := s.Frame()
	if n := simtest.Metric(t, f, "N"); n != 40 {
		t.Fatalf("N = %g", n)
	}
	if b := simtest.Metric(t, f, "b_N"); math.Abs(b) > 1e-13 {
		t.Errorf("b₄₀ = %g, want 0 (even harmonic of the square wave)", b)
	}
	errs, ok := f.Series("L² error")
	if !ok || len(errs.Y) != 41 {
		t.Fatalf("L² error series: %d points", len(errs.Y))
	}
	for i := 1; i < len(errs.Y); i++ {
		if errs.Y[i] > errs.Y[i-1]*(1+1e-14) {
			t.Errorf("the error rose at N = %d: %g → %g", i, errs.Y[i-1], errs.Y[i])
		}
	}
	tail := math.Pi * math.Pi / 8
	for n := 1; n <= 39; n += 2 {
		tail -= 1 / float64(n*n)
	}
	tail *= 16 / math.Pi
	if e := simtest.Metric(t, f, "L² error"); math.Abs(e*e/tail-1) > 1e-6 {
		t.Errorf("‖s − s₄₀‖² = %g, want the tail %g", e*e, tail)
	}
	if o := simtest.Metric(t, f, "overshoot"); math.Abs(o/fourier.GibbsLimit-1) > 0.03 {
		t.Errorf("overshoot %g at N = 40, want %g within 3%%", o, fourier.GibbsLimit)
	}
	if e := simtest.Metric(t, f, "orth_err"); e > 1e-12 {
		t.Errorf("orthogonality error %g", e)
	}
	var bars sims.BarChart
	for _, c := range f.Charts {
		if b, ok := c.(sims.BarChart); ok {
			bars = b
		}
	}
	if len(bars.Bars) != 41 || math.Abs(bars.Bars[39].Value-4/(39*math.Pi)) > 1e-13 {
		t.Errorf("amplitude bars: %d, the 39th %v, want 4/(39π)", len(bars.Bars), bars.Bars[39:])
	}

	tri := simtest.Build(t, Fourier, map[string]string{"wave": "triangle", "harmonics": "9"}, 1, nil)
	simtest.RunToEnd(t, tri, 100)
	for _, m := range tri.Frame().Metrics {
		if m.Name == "overshoot" && !strings.Contains(m.Undefined, "no jump") {
			t.Errorf("triangle overshoot: %+v", m)
		}
	}
	if r := tri.Result(); r["undefined"] == nil {
		t.Errorf("triangle's result does not say why the overshoot is undefined: %v", r)
	}
}
