package target

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Banana is a twisted Gaussian in the style of Haario, Saksman & Tamminen
// (1999): a Gaussian bent along a parabola,
//
//	x₁ ~ N(0, a²),   x₂ | x₁ ~ N(b(x₁² − a²), 1).
//
// It is not from the notes (the catalogue lists it as a derived preset,
// seed-002-catalog C4); it shows a curved ridge that an isotropic random
// walk follows slowly. The map (x₁, x₂) ↦ (x₁, x₂ − b(x₁² − a²)) has unit
// Jacobian, so the density is exactly the product of the two Gaussians:
//
//	log p(x) = −x₁²/(2a²) − log a − (x₂ − b(x₁² − a²))²/2 − log 2π,
//	∂₁ log p = −x₁/a² + 2b x₁ (x₂ − b(x₁² − a²)),
//	∂₂ log p = −(x₂ − b(x₁² − a²)).
//
// Moments. E[x₁] = 0 and E[x₂] = b(E[x₁²] − a²) = 0. Cov(x₁, x₂) =
// b E[x₁³] − b a² E[x₁] = 0 (odd moments of a centred Gaussian vanish), so
// x₁ and x₂ are uncorrelated though strongly dependent. Var(x₁) = a², and
// by the law of total variance Var(x₂) = 1 + b² Var(x₁²) = 1 + b²(3a⁴ − a⁴)
// = 1 + 2a⁴b². Hence
//
//	E[x] = (0, 0),   Cov[x] = diag(a², 1 + 2a⁴b²).
//
// Build it with NewBanana.
type Banana struct {
	a, b    float64
	logNorm float64 // −log a − log 2π
}

// NewBanana returns the twisted Gaussian with scale a > 0 and twist b
// (finite; b = 0 gives N(0, diag(a², 1))).
func NewBanana(a, b float64) (Banana, error) {
	if !(a > 0) || math.IsInf(a, 0) {
		return Banana{}, algo.BadParam("a", a, "a finite number > 0")
	}
	if !algo.Finite(b) {
		return Banana{}, algo.BadParam("b", b, "a finite number")
	}
	return Banana{a: a, b: b, logNorm: -math.Log(a) - log2Pi}, nil
}

func (Banana) Name() string { return string(KindBanana) }
func (Banana) Dim() int     { return 2 }

// ridge is the conditional mean of x₂ given x₁.
func (bn Banana) ridge(x1 float64) float64 { return bn.b * (x1*x1 - bn.a*bn.a) }

func (bn Banana) LogP(x []float64) float64 {
	u := x[0] / bn.a
	r := x[1] - bn.ridge(x[0])
	return -0.5*u*u - 0.5*r*r + bn.logNorm
}

func (bn Banana) Grad(grad, x []float64) {
	r := x[1] - bn.ridge(x[0])
	grad[0] = -x[0]/(bn.a*bn.a) + 2*bn.b*x[0]*r
	grad[1] = -r
}

func (bn Banana) Density(x []float64) float64 { return math.Exp(bn.LogP(x)) }
func (Banana) Mean() []float64                { return []float64{0, 0} }

func (bn Banana) Cov() [][]float64 {
	a2 := bn.a * bn.a
	return [][]float64{{a2, 0}, {0, 1 + 2*a2*a2*bn.b*bn.b}}
}

// Bounds is x₁ ∈ ±3a and x₂ over the ridge for |x₁| ≤ 2.5a, widened by 3.5
// (the conditional standard deviation is 1).
func (bn Banana) Bounds() (lo, hi []float64) {
	r0, r1 := bn.ridge(0), bn.ridge(2.5*bn.a)
	return []float64{-3 * bn.a, math.Min(r0, r1) - 3.5},
		[]float64{3 * bn.a, math.Max(r0, r1) + 3.5}
}

// Formula is the density written out.
func (bn Banana) Formula() string {
	return fmt.Sprintf("x ~ N(0, %g²), y | x ~ N(%g(x² − %g), 1)", bn.a, bn.b, bn.a*bn.a)
}

// Draw writes an exact draw into dst: x₁, then x₂ given x₁.
func (bn Banana) Draw(dst []float64, rng *rand.Rand) {
	x1 := bn.a * rng.NormFloat64()
	dst[0], dst[1] = x1, bn.ridge(x1)+rng.NormFloat64()
}

// HasConditional is true for x₂ (coordinate 1): x₂ | x₁ ~ N(b(x₁² − a²), 1).
// The conditional of x₁ given x₂, ∝ exp(−x₁²/(2a²) − (x₂ − b(x₁² − a²))²/2),
// has a quartic exponent: not a standard law.
func (Banana) HasConditional(i int) bool { return i == 1 }

// CondSample draws x₂ ~ N(b(x₁² − a²), 1) (i must be 1).
func (bn Banana) CondSample(i int, x []float64, rng *rand.Rand) float64 {
	if i != 1 {
		panic("target: the banana's x₁ has no closed-form conditional")
	}
	return bn.ridge(x[0]) + rng.NormFloat64()
}

// CondLogPDF is log N(v; b(x₁² − a²), 1) (i must be 1).
func (bn Banana) CondLogPDF(i int, x []float64, v float64) float64 {
	if i != 1 {
		panic("target: the banana's x₁ has no closed-form conditional")
	}
	d := v - bn.ridge(x[0])
	return -0.5*d*d - halfLog2Pi
}
