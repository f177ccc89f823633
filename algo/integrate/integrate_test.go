package integrate

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/thelab/lab/algo"
)

func TestLegendreExactForPolynomials(t *testing.T) {
	r, err := NewLegendre(5) // exact up to degree 9
	if err != nil {
		t.Fatal(err)
	}
	for deg := 0; deg <= 9; deg++ {
		got := r.Pieces(func(x float64) float64 { return math.Pow(x, float64(deg)) }, []float64{0, 2}, 1)
		want := math.Pow(2, float64(deg+1)) / float64(deg+1)
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("∫_0^2 x^%d = %.15g, want %.15g", deg, got, want)
		}
	}
}

func TestIntegrateNormalDensityAndPieces(t *testing.T) {
	phi := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	if got := Integrate(phi, -12, 12, 8); math.Abs(got-1) > 1e-13 {
		t.Errorf("∫φ = %.15g", got)
	}
	// P(|X| < 1) = erf(1/√2), the 0.682689 of Ex 1.3.
	if got, want := Integrate(phi, -1, 1, 1), math.Erf(1/math.Sqrt2); math.Abs(got-want) > 1e-14 {
		t.Errorf("P(|X|<1) = %.15g, want %.15g", got, want)
	}
	// A step function is integrated exactly when split at its jump.
	step := func(x float64) float64 {
		if x < 0.3 {
			return 2
		}
		return 5
	}
	r, _ := NewLegendre(3)
	if got := r.Pieces(step, []float64{0, 0.3, 1}, 1); math.Abs(got-(0.6+3.5)) > 1e-14 {
		t.Errorf("split step = %.15g, want 4.1", got)
	}
}

func TestHermiteMoments(t *testing.T) {
	h, err := NewHermite(10)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		f    func(float64) float64
		m, s float64
		want float64
	}{
		{func(float64) float64 { return 1 }, 0, 1, 1},
		{func(x float64) float64 { return x }, 1.5, 2, 1.5},
		{func(x float64) float64 { return x * x }, 1.5, 2, 4 + 2.25},
		{func(x float64) float64 { return x * x * x * x }, 0, 1, 3},
		{math.Cos, 0, 1, math.Exp(-0.5)}, // E cos Z = e^{−½}, not polynomial: 1e-9 at n = 10
	}
	for i, c := range cases {
		if got := h.Expect(c.f, c.m, c.s); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("case %d: %.15g, want %.15g", i, got, c.want)
		}
	}
	z, w, err := h.Grid(2)
	if err != nil {
		t.Fatal(err)
	}
	var s0, s11, s22, s12 float64
	for i := range w {
		a, b := z[2*i], z[2*i+1]
		s0 += w[i]
		s11 += w[i] * a * a
		s22 += w[i] * a * a * b * b
		s12 += w[i] * a * b
	}
	if math.Abs(s0-1) > 1e-13 || math.Abs(s11-1) > 1e-13 || math.Abs(s22-1) > 1e-13 || math.Abs(s12) > 1e-13 {
		t.Errorf("2-D grid moments: %g %g %g %g", s0, s11, s22, s12)
	}
}

func TestBadOrders(t *testing.T) {
	for _, err := range []error{
		func() error { _, err := NewLegendre(0); return err }(),
		func() error { _, err := NewHermite(201); return err }(),
		func() error { h, _ := NewHermite(3); _, _, err := h.Grid(4); return err }(),
	} {
		var pe *algo.ParamError
		if !errors.As(err, &pe) {
			t.Errorf("got %v, want a ParamError", err)
		}
	}
}

// TestPanelNormal checks the panel rule's moments and that it resolves an
// integrand with a sharp bend where Gauss–Hermite does not: E|Z| = √(2/π).
func TestPanelNormal(t *testing.T) {
	r, err := NewPanelNormal(64, 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    func(float64) float64
		want float64
	}{
		{func(float64) float64 { return 1 }, 1},
		{func(x float64) float64 { return x * x }, 1},
		{func(x float64) float64 { return x * x * x * x }, 3},
		{math.Abs, math.Sqrt(2 / math.Pi)},
	} {
		if got := r.Expect(c.f, 0, 1); math.Abs(got-c.want) > 1e-10 { // the tails beyond ±8 hold 1e-15 of the mass, 6e-12 of E[Z⁴]
			t.Errorf("panel rule: %.15g, want %.15g", got, c.want)
		}
	}
	h, _ := NewHermite(20)
	if e := math.Abs(h.Expect(math.Abs, 0, 1) - math.Sqrt(2/math.Pi)); e < 1e-3 {
		t.Errorf("20-point Gauss–Hermite E|Z| error %g: expected it to be poor (> 1e-3)", e)
	}
	if _, err := NewPanelNormal(0, 4); err == nil {
		t.Error("0 panels accepted")
	}
}

// TestPanelNormalTruncation: the panel rule drops the mass beyond ±8,
// 2Φ(−8) = 1.2e-15 as NewPanelNormal says, and renormalises: its second
// moment is then E[Z² | |Z| ≤ 8] = 1 − 16φ(8)/(1 − 2Φ(−8)) = 1 − 8.1e-14,
// which it matches to the rounding of its 512 terms (2e-15; 1.3e-15 is
// seen), where the untruncated 1 is 40 times further off.
func TestPanelNormalTruncation(t *testing.T) {
	tail := math.Erfc(8 / math.Sqrt2)
	if s := strconv.FormatFloat(tail, 'e', 1, 64); s != "1.2e-15" {
		t.Errorf("2Φ(−8) = %s, quoted 1.2e-15", s)
	}
	r, err := NewPanelNormal(64, 8)
	if err != nil {
		t.Fatal(err)
	}
	phi8 := math.Exp(-32) / math.Sqrt(2*math.Pi)
	want := 1 - 16*phi8/(1-tail)
	got := r.Expect(func(z float64) float64 { return z * z }, 0, 1)
	if math.Abs(got-want) > 2e-15 {
		t.Errorf("E[Z²] = %.17g, want E[Z² | |Z| ≤ 8] = %.17g (error %.2g)", got, want, got-want)
	}
}
