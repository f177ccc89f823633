package integrate

import (
	"math"
	"testing"
)

// TestAbsPieces: ∫|h| of functions with known roots, one and two between
// the same nodes of a panel (a dip) and at a jump, to 1e-13 relative —
// where the rule alone keeps five or six digits — and no allocation.
func TestAbsPieces(t *testing.T) {
	for _, c := range []struct {
		name   string
		h      func(float64) float64
		breaks []float64
		want   float64
	}{
		// ∫_{−1}^{2} |x − 0.3| = (1.3² + 1.7²)/2
		{"one root", func(x float64) float64 { return x - 0.3 }, []float64{-1, 2}, (1.3*1.3 + 1.7*1.7) / 2},
		// ∫_0^π |cos x| = 2
		{"a root mid-panel", math.Cos, []float64{0, math.Pi}, 2},
		// ∫_{−1}^{1} |x² − 1e-6|: roots ±1e-3 between two nodes of a panel
		{"two close roots", func(x float64) float64 { return x*x - 1e-6 }, []float64{-1, 1}, 2.0/3 - 2e-6 + 8.0/3*1e-9},
		// ∫_0^2 |sin(5x)| = (2·5 − … ) by periods: 2/5 per half period π/5
		{"many roots", func(x float64) float64 { return math.Sin(5 * x) }, []float64{0, 2},
			2.0/5*math.Floor(10/math.Pi) + (1-math.Cos(10-math.Pi*math.Floor(10/math.Pi)))/5},
	} {
		got := AbsPieces(c.h, c.breaks, 4)
		if math.Abs(got-c.want) > 1e-13*c.want {
			t.Errorf("%s: %.17g, want %.17g (relative %.2g)", c.name, got, c.want, math.Abs(got-c.want)/c.want)
		}
	}
	h := func(x float64) float64 { return math.Sin(5 * x) }
	br := []float64{0, 1, 2}
	if n := testing.AllocsPerRun(10, func() { AbsPieces(h, br, 8) }); n != 0 {
		t.Errorf("AbsPieces allocates %g times", n)
	}
}
