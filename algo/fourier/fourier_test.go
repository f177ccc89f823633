package fourier

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

// run steps a series of w to n harmonics.
func run(t *testing.T, w Wave, n int) *Series {
	t.Helper()
	s, err := New(w, n, 101)
	if err != nil {
		t.Fatal(err)
	}
	for {
		err := s.Step()
		if errors.Is(err, algo.ErrConverged) {
			return s
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestCoefficientsClosedForms: the quadrature's coefficients against the
// closed forms on (−π, π): the square wave sign x has b_n = 4/(nπ) for
// odd n and 0 otherwise (a_n = 0); the sawtooth x/π has b_n =
// 2(−1)^{n+1}/(nπ); the triangle 1 − 2|x|/π has a_n = 8/(n²π²) for odd n
// (a₀ = 0, b_n = 0). The split at the breaks makes them exact to rounding.
func TestCoefficientsClosedForms(t *testing.T) {
	closed := map[Wave]func(n int) (a, b float64){
		Square: func(n int) (float64, float64) {
			if n%2 == 1 {
				return 0, 4 / (float64(n) * math.Pi)
			}
			return 0, 0
		},
		Sawtooth: func(n int) (float64, float64) {
			if n == 0 {
				return 0, 0
			}
			return 0, 2 * math.Pow(-1, float64(n+1)) / (float64(n) * math.Pi)
		},
		Triangle: func(n int) (float64, float64) {
			if n%2 == 1 {
				return 8 / (float64(n*n) * math.Pi * math.Pi), 0
			}
			return 0, 0
		},
	}
	for w, f := range closed {
		s := run(t, w, 40)
		for n := 0; n <= 40; n++ {
			a, b := s.Coef(n)
			wa, wb := f(n)
			algotest.Near(t, w.String()+" a_n", a, wa, 1e-13)
			algotest.Near(t, w.String()+" b_n", b, wb, 1e-13)
		}
	}
}

// TestOrthogonality: ∫ φ_i φ_j over a period is π δ_ij (2π for the
// constant) for the basis up to the 24th harmonic (the notes' oracle,
// 1e-9; the quadrature gives rounding).
func TestOrthogonality(t *testing.T) {
	for _, w := range []Wave{Square, Sawtooth} { // each splits the period differently
		s := run(t, w, 24)
		if got := s.OrthError(); got > 1e-12 {
			t.Errorf("%s: the steps' max |⟨φ_i, φ_j⟩ − π δ_ij| = %g", w, got)
		}
		worst := 0.0
		for m := 0; m <= 24; m++ {
			for n := m; n <= 24; n++ {
				for _, mc := range []bool{true, false} {
					for _, nc := range []bool{true, false} {
						if m == 0 && !mc || n == 0 && !nc {
							continue
						}
						worst = math.Max(worst, math.Abs(s.Inner(m, mc, n, nc)-Norm2(m, mc, n, nc)))
					}
				}
			}
		}
		if worst > 1e-12 {
			t.Errorf("%s: max |⟨φ_i, φ_j⟩ − π δ_ij| over all pairs = %g", w, worst)
		}
	}
}

// TestBessel: the L² error, by Bessel's identity, never increases with
// N, and equals ‖s − s_N‖ integrated directly; for the square wave it is
// the tail π Σ_{odd n > N} 16/(n²π²) in closed form.
func TestBessel(t *testing.T) {
	for _, w := range []Wave{Square, Sawtooth, Triangle} {
		s, err := New(w, 30, 11)
		if err != nil {
			t.Fatal(err)
		}
		prev := s.L2Error()
		algotest.Near(t, w.String()+" ‖s‖ before the first step", prev, s.Norm(), 0)
		for s.Step() == nil {
			e := s.L2Error()
			if e > prev*(1+1e-14) {
				t.Errorf("%s: error rose at N = %d: %g → %g", w, s.N(), prev, e)
			}
			prev = e
		}
		diff := func(x float64) float64 { d := w.At(x) - s.At(x); return d * d }
		direct := math.Sqrt(s.integrate(diff, s.N()))
		algotest.Near(t, w.String()+" ‖s − s_30‖ by Bessel against direct", s.L2Error(), direct, 1e-9*s.Norm())
	}
	s := run(t, Square, 30)
	tail := math.Pi * math.Pi / 8 // Σ_{odd n} 1/n², less the terms to 29
	for n := 1; n <= 29; n += 2 {
		tail -= 1 / (float64(n) * float64(n))
	}
	tail *= 16 / math.Pi
	algotest.Near(t, "square ‖s − s_30‖² against its tail", s.L2Error()*s.L2Error(), tail, 1e-6*tail)
}

// TestGibbs: the overshoot at the jump tends to Si(π)/π − ½ of the jump
// and does not shrink; its distance to the limit falls like 1/N² (measured
// at N = 20, 40, 79: square 0.47%, 0.12%, 0.029%; sawtooth 0.11%, 0.028%,
// 0.0074%), so it is held within 0.25% at N = 40 and 0.06% at N = 79.
func TestGibbs(t *testing.T) {
	for _, w := range []Wave{Square, Sawtooth} {
		s, err := New(w, 79, 11)
		if err != nil {
			t.Fatal(err)
		}
		for s.Step() == nil {
			if s.N() != 40 {
				continue
			}
			if got := s.Overshoot(); math.Abs(got/GibbsLimit-1) > 2.5e-3 {
				t.Errorf("%s: overshoot %.6f of the jump at N = 40, want %.6f within 0.25%%", w, got, GibbsLimit)
			}
		}
		if got := s.Overshoot(); s.N() != 79 || math.Abs(got/GibbsLimit-1) > 6e-4 {
			t.Errorf("%s: overshoot %.6f of the jump at N = %d, want %.6f within 0.06%%", w, got, s.N(), GibbsLimit)
		}
	}
	if got := run(t, Triangle, 10).Overshoot(); !math.IsNaN(got) {
		t.Errorf("triangle has no jump, overshoot %g", got)
	}
	// The limit itself: Si(π)/π − ½ by quadrature of sin t / t.
	si := 0.0
	for k := range 100000 {
		tm := math.Pi * (float64(k) + 0.5) / 100000
		si += math.Sin(tm) / tm * math.Pi / 100000
	}
	algotest.Near(t, "Si(π)/π − ½", si/math.Pi-0.5, GibbsLimit, 1e-9)
}

func TestValidation(t *testing.T) {
	_, err := New(Wave(7), 10, 11)
	algotest.WantParam(t, err, "wave")
	_, err = New(Square, 0, 11)
	algotest.WantParam(t, err, "harmonics")
	_, err = New(Square, MaxHarmonics+1, 11)
	algotest.WantParam(t, err, "harmonics")
	_, err = New(Square, 10, 1)
	algotest.WantParam(t, err, "grid")
}

func TestStepDoesNotAllocate(t *testing.T) {
	s, err := New(Square, 20, 101)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(15, func() { s.Step() }); n != 0 {
		t.Errorf("%v allocations a step", n)
	}
}
