package kernel

import (
	"fmt"
	"math"
	"testing"
)

// on1 evaluates k between the reals x and z.
func on1(k Kernel, x, z float64) float64 { return Eval(k, []float64{x}, []float64{z}) }

// besselK is the modified Bessel function of the second kind,
// K_ν(z) = ∫₀^∞ exp(−z cosh t) cosh(νt) dt (z > 0), by the trapezoid rule:
// the integrand is even in t and analytic, so the rule on [0, ∞) with a
// halved first term converges geometrically in 1/h.
func besselK(nu, z float64) float64 {
	const h = 0.01
	s := 0.5 * math.Exp(-z)
	for t := h; ; t += h {
		term := math.Exp(-z*math.Cosh(t)) * math.Cosh(nu*t)
		s += term
		if term < 1e-20*s {
			break
		}
	}
	return h * s
}

// TestMaternClosedFormsMatchBessel: the half-integer closed forms equal
// the general Matérn form 2^(1−ν)/Γ(ν)·s^ν·K_ν(s), s = √(2ν)r/ℓ, with K_ν
// by quadrature, to 1e-12; ν = 1/2 is the exponential kernel (Laplace with
// γ = 1/ℓ) exactly; k(0) = 1.
func TestMaternClosedFormsMatchBessel(t *testing.T) {
	for _, nu := range []MaternNu{MaternHalf, MaternThreeHalves, MaternFiveHalves} {
		for _, l := range []float64{0.7, 2} {
			k := Matern{Nu: nu, Lengthscale: l}
			if got := on1(k, 3, 3); got != 1 {
				t.Errorf("%v: k(0) = %v", k, got)
			}
			for _, r := range []float64{0.02, 0.3, 1, 2.5, 6} {
				v := nu.Value()
				s := math.Sqrt(2*v) * r / l
				want := math.Pow(2, 1-v) / math.Gamma(v) * math.Pow(s, v) * besselK(v, s)
				if got := on1(k, 1, 1+r); math.Abs(got-want) > 1e-12 {
					t.Errorf("%v at r = %g: closed form %.15g, Bessel form %.15g", k, r, got, want)
				}
				if nu == MaternHalf {
					if got, lap := on1(k, -r, 0), on1(Laplace{Gamma: 1 / l}, -r, 0); math.Abs(got-lap) > 1e-16 {
						t.Errorf("matérn 1/2 %v, laplace %v", got, lap)
					}
				}
			}
		}
	}
}

// TestRationalQuadratic: k(0) = 1; it is the scale mixture of squared
// exponentials of L1922's footnote (precision τ ~ Gamma(shape α, rate
// αℓ²), integrated by the trapezoid rule in log τ) to 1e-9; and as α grows
// it tends to exp(−r²/(2ℓ²)), the gap shrinking like 1/α.
func TestRationalQuadratic(t *testing.T) {
	for _, alpha := range []float64{0.5, 1, 4} {
		for _, l := range []float64{0.5, 3} {
			k := RationalQuadratic{Alpha: alpha, Lengthscale: l}
			if got := on1(k, 2, 2); got != 1 {
				t.Errorf("%v: k(0) = %v", k, got)
			}
			rate := alpha * l * l
			logNorm := alpha*math.Log(rate) - lgamma(alpha)
			for _, r := range []float64{0.1, 1, 4} {
				// ∫ exp(−τr²/2) p(τ) dτ with τ = e^u, dτ = τ du.
				const h = 0.005
				mix := 0.0
				for u := -60.0; u < 8; u += h {
					tau := math.Exp(u)
					mix += math.Exp(-tau*r*r/2+logNorm+alpha*u-rate*tau) * h
				}
				if got := on1(k, 0, r); math.Abs(got-mix) > 1e-9 {
					t.Errorf("%v at r = %g: %v, SE mixture %v", k, r, got, mix)
				}
			}
		}
	}
	se := RBF{Gamma: 1 / (2 * 1.3 * 1.3)}
	for _, alpha := range []float64{1e3, 1e6} {
		k := RationalQuadratic{Alpha: alpha, Lengthscale: 1.3}
		worst := 0.0
		for r := 0.0; r < 6; r += 0.25 {
			worst = math.Max(worst, math.Abs(on1(k, 0, r)-on1(se, 0, r)))
		}
		if worst > 1/alpha {
			t.Errorf("α = %g: RQ − SE up to %v, want ≤ 1/α", alpha, worst)
		}
	}
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

// TestPeriodic: k(x, x + mp) = k(x, x) = 1 for whole periods m (to 1e-15),
// k(x, x + mp + r) = k(x, x + r), the notes' ℓ² convention
// (k(p/2) = e^(−2/ℓ²)), and symmetry k(r) = k(p − r). The last two hold to
// 1e-12 only: r² = ‖x‖² + ‖z‖² − 2⟨x, z⟩ loses ε(x² + z²)/r² of its
// relative precision (4e-13 at x = −3.1, r = 0.05).
func TestPeriodic(t *testing.T) {
	for _, p := range []float64{0.5, 2.5, 7} {
		k := Periodic{Period: p, Lengthscale: 0.8}
		for _, x := range []float64{-3.1, 0, 1.7} {
			for m := 1.0; m <= 3; m++ {
				if got := on1(k, x, x+m*p); math.Abs(got-1) > 1e-15 {
					t.Errorf("%v: k(x, x+%gp) = %v", k, m, got)
				}
				for _, r := range []float64{0.1 * p, 0.37 * p} {
					if a, b := on1(k, x, x+m*p+r), on1(k, x, x+r); math.Abs(a-b) > 1e-12 {
						t.Errorf("%v: k at r+%gp = %v, at r = %v", k, m, a, b)
					}
					if a, b := on1(k, x, x+r), on1(k, x, x+p-r); math.Abs(a-b) > 1e-12 {
						t.Errorf("%v: k(r) = %v, k(p−r) = %v", k, a, b)
					}
				}
			}
		}
		if got, want := on1(k, 0, p/2), math.Exp(-2/0.64); math.Abs(got-want) > 1e-15 {
			t.Errorf("%v: k(p/2) = %v, want e^(−2/ℓ²) = %v", k, got, want)
		}
	}
}

// TestStationaryStrings: the names print their parameters.
func TestStationaryStrings(t *testing.T) {
	for _, c := range []struct {
		k    Kernel
		want string
	}{
		{RationalQuadratic{2, 0.5}, "rq(α=2,ℓ=0.5)"},
		{Periodic{3, 1}, "periodic(p=3,ℓ=1)"},
		{Matern{MaternFiveHalves, 2}, "matérn(ν=5/2,ℓ=2)"},
	} {
		if got := fmt.Sprint(c.k); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
	if v := on1(Matern{Nu: 2, Lengthscale: 1}, 0, 1); !math.IsNaN(v) {
		t.Errorf("Matérn ν = 1: %v, want NaN", v)
	}
}
