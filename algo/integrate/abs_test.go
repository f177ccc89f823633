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

// TestBrentAccuracy: brent returns the root to within 2⁻⁵¹|x| (its
// doc comment; a third of that is seen), on roots exact in floating
// point, irrational ones (the float nearest them is a root of the
// rounded function to an ulp), a triple root and a tiny one, from wide
// brackets.
func TestBrentAccuracy(t *testing.T) {
	for _, c := range []struct {
		name       string
		h          func(float64) float64
		a, b, root float64
	}{
		{"linear", func(x float64) float64 { return x - 0.3 }, -1, 2, 0.3},
		{"tiny", func(x float64) float64 { return x - 1e-200 }, -1, 2, 1e-200},
		{"cube root of 2", func(x float64) float64 { return x*x*x - 2 }, 0, 3, math.Cbrt(2)},
		{"cos", math.Cos, 0, 3, math.Pi / 2},
		{"log 1e6", func(x float64) float64 { return math.Exp(x) - 1e6 }, 0, 100, math.Log(1e6)},
		{"large", func(x float64) float64 { return x - 12345.678 }, 0, 1e6, 12345.678},
		{"flat tanh", func(x float64) float64 { return math.Tanh(x - 7) }, -1000, 1000, 7},
		{"triple root", func(x float64) float64 { return (x - 0.1) * (x - 0.1) * (x - 0.1) }, -2, 1, 0.1},
	} {
		got := brent(c.h, c.a, c.b, c.h(c.a), c.h(c.b))
		if e := math.Abs(got - c.root); e > 0x1p-51*math.Abs(c.root)+1e-300 {
			t.Errorf("%s: root %.17g, want %.17g (error %.2g of |x|)", c.name, got, c.root, e/math.Abs(c.root))
		}
	}
}

// TestDipToAFewUlps: dip's golden-section search goes down to a width of a
// few ulps: it finds the negative stretch of (x − c)² − δ² however narrow,
// 2δ down to two ulps of c, from a bracket of width 0.9, and reports none
// for a function that stays positive.
func TestDipToAFewUlps(t *testing.T) {
	for _, c := range []float64{0.3, 1.7, 1234.5, -0.6} {
		for _, k := range []float64{1, 2, 4, 64} {
			u := math.Nextafter(math.Abs(c), math.Inf(1)) - math.Abs(c)
			d := k * u
			h := func(x float64) float64 { return (x-c)*(x-c) - d*d }
			x, hx, ok := dip(h, c-0.37, c+0.51, true)
			if !ok || !(hx <= 0) || hx != h(x) {
				t.Errorf("c = %g, δ = %g ulps: dip = (%v, %v, %v)", c, k, x, hx, ok)
			}
		}
		if _, _, ok := dip(func(x float64) float64 { return (x-c)*(x-c) + 1e-300 }, c-0.37, c+0.51, true); ok {
			t.Errorf("c = %g: a dip found in a positive function", c)
		}
	}
}
