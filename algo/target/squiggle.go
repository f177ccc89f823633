package target

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// KindSquiggle is the preset of New that is Squiggle(): chi-feng's
// squiggle.
const KindSquiggle Kind = "squiggle"

// The squiggle preset: the frequency and covariance of the target
// "squiggle" of Chi Feng's MCMC gallery (github.com/chi-feng/mcmc-demo,
// main/MCMC.js).
const (
	SquiggleA   = 5.0
	SquiggleSxx = 2.0
	SquiggleSxy = 0.25
	SquiggleSyy = 0.5
)

// Squiggle is a Gaussian bent along a sine wave, the "squiggle" of Chi
// Feng's MCMC gallery:
//
//	(x, y + sin(a x)) ~ N(0, Σ),   Σ = [[σxx, σxy], [σxy, σyy]],
//
// a narrow ridge y ≈ −sin(a x) that winds back and forth, whose curvature
// changes sign every half period π/a: a random walk or a fixed HMC
// trajectory length suits it nowhere for long. The map (x, y) ↦
// (x, y + sin(a x)) is a shear with unit Jacobian, so the density is the
// Gaussian's at the image point z = (x, y + sin(a x)), already normalised:
//
//	log p(x, y) = −½ zᵀΣ⁻¹z − log 2π − ½ log det Σ,
//	∂_y log p = g₂,   ∂_x log p = g₁ + a cos(a x) g₂,   (g₁, g₂) = −Σ⁻¹z.
//
// Exactly: x ~ N(0, σxx), and with β = σxy/σxx and s² = σyy − σxy²/σxx,
// y | x ~ N(βx − sin(a x), s²). Moments, from E[sin(a x)] = 0 (odd),
// Stein's E[x sin(a x)] = a σxx e^{−a²σxx/2} and E[sin²(a x)] =
// (1 − e^{−2a²σxx})/2:
//
//	E = (0, 0),   Var x = σxx,   Cov(x, y) = σxy − a σxx e^{−a²σxx/2},
//	Var y = σyy + (1 − e^{−2a²σxx})/2 − 2a σxy e^{−a²σxx/2}.
//
// For the preset (a = 5, σxx = 2) the exponentials are e^{−25} and
// e^{−100}: Cov = [[2, 0.25], [0.25, 1]] to 10⁻¹⁰.
type Squiggle struct {
	a, sxx, sxy, syy float64
	ixx, ixy, iyy    float64 // Σ⁻¹
	beta, s          float64 // y + sin(a x) | x ~ N(βx, s²)
	logNorm          float64 // −log 2π − ½ log det Σ
}

// NewSquiggle returns the squiggle of frequency a (finite) and covariance
// [[sxx, sxy], [sxy, syy]] (positive definite).
func NewSquiggle(a, sxx, sxy, syy float64) (Squiggle, error) {
	if !algo.Finite(a) {
		return Squiggle{}, algo.BadParam("a", a, "a finite number")
	}
	if !(sxx > 0) || math.IsInf(sxx, 0) {
		return Squiggle{}, algo.BadParam("sxx", sxx, "a finite number > 0")
	}
	if !(syy > 0) || math.IsInf(syy, 0) {
		return Squiggle{}, algo.BadParam("syy", syy, "a finite number > 0")
	}
	det := sxx*syy - sxy*sxy
	if !algo.Finite(sxy) || !(det > 0) {
		return Squiggle{}, algo.BadParam("sxy", sxy, "a finite number with sxy² < sxx·syy (Σ positive definite)")
	}
	return Squiggle{a: a, sxx: sxx, sxy: sxy, syy: syy,
		ixx: syy / det, ixy: -sxy / det, iyy: sxx / det,
		beta: sxy / sxx, s: math.Sqrt(det / sxx),
		logNorm: -log2Pi - 0.5*math.Log(det)}, nil
}

// DefaultSquiggle is the preset KindSquiggle: a = 5, Σ = [[2, 0.25],
// [0.25, 0.5]], chi-feng's values.
func DefaultSquiggle() Squiggle {
	s, _ := NewSquiggle(SquiggleA, SquiggleSxx, SquiggleSxy, SquiggleSyy)
	return s
}

func (Squiggle) Name() string { return string(KindSquiggle) }
func (Squiggle) Dim() int     { return 2 }

func (s Squiggle) LogP(x []float64) float64 {
	z0, z1 := x[0], x[1]+math.Sin(s.a*x[0])
	return -0.5*(s.ixx*z0*z0+2*s.ixy*z0*z1+s.iyy*z1*z1) + s.logNorm
}

func (s Squiggle) Grad(grad, x []float64) {
	z0, z1 := x[0], x[1]+math.Sin(s.a*x[0])
	g0 := -(s.ixx*z0 + s.ixy*z1)
	g1 := -(s.ixy*z0 + s.iyy*z1)
	grad[0] = g0 + s.a*math.Cos(s.a*x[0])*g1
	grad[1] = g1
}

func (s Squiggle) Density(x []float64) float64 { return math.Exp(s.LogP(x)) }
func (Squiggle) Mean() []float64               { return []float64{0, 0} }

func (s Squiggle) Cov() [][]float64 {
	e1 := math.Exp(-s.a * s.a * s.sxx / 2)
	e2 := math.Exp(-2 * s.a * s.a * s.sxx)
	cxy := s.sxy - s.a*s.sxx*e1
	return [][]float64{{s.sxx, cxy}, {cxy, s.syy + (1-e2)/2 - 2*s.a*s.sxy*e1}}
}

// Bounds is x within ±3.5 of its standard deviation and y within the
// wave's amplitude 1 plus 3.5 of the standard deviation of y + sin(a x).
func (s Squiggle) Bounds() (lo, hi []float64) {
	bx, by := 3.5*math.Sqrt(s.sxx), 1+3.5*math.Sqrt(s.syy)
	return []float64{-bx, -by}, []float64{bx, by}
}

// Formula is the density written out.
func (s Squiggle) Formula() string {
	return fmt.Sprintf("(x, y + sin(%gx)) ~ N(0, [[%g, %g], [%g, %g]])", s.a, s.sxx, s.sxy, s.sxy, s.syy)
}

// Draw writes an exact draw into dst: x, then y given x.
func (s Squiggle) Draw(dst []float64, rng *rand.Rand) {
	x := math.Sqrt(s.sxx) * rng.NormFloat64()
	dst[0], dst[1] = x, s.ridge(x)+s.s*rng.NormFloat64()
}

// ridge is the conditional mean of y given x, βx − sin(a x).
func (s Squiggle) ridge(x float64) float64 { return s.beta*x - math.Sin(s.a*x) }

// HasConditional is true for y (coordinate 1): y | x ~ N(βx − sin(a x), s²).
// The conditional of x given y has a sine inside a square: not a standard
// law.
func (Squiggle) HasConditional(i int) bool { return i == 1 }

// CondSample draws y ~ N(βx − sin(a x), s²) (i must be 1).
func (s Squiggle) CondSample(i int, x []float64, rng *rand.Rand) float64 {
	if i != 1 {
		panic("target: the squiggle's x has no closed-form conditional")
	}
	return s.ridge(x[0]) + s.s*rng.NormFloat64()
}

// CondLogPDF is log N(v; βx − sin(a x), s²) (i must be 1).
func (s Squiggle) CondLogPDF(i int, x []float64, v float64) float64 {
	if i != 1 {
		panic("target: the squiggle's x has no closed-form conditional")
	}
	d := (v - s.ridge(x[0])) / s.s
	return -0.5*d*d - math.Log(s.s) - halfLog2Pi
}

// MarginalCDF: x ~ N(0, σxx); y = βx − sin(a x) + s ε, so with x = √σxx u,
// P(y ≤ v) = E_u[Φ((v − β√σxx u + sin(a√σxx u))/s)], u ~ N(0, 1), by
// Simpson's rule on 8000 intervals of |u| ≤ 10: the integrand oscillates
// at a√σxx ≈ 7 radians per unit of u (preset), 45 intervals a period, which
// leaves an error far below 1e-7 (TestSquiggleMarginalCDF).
func (s Squiggle) MarginalCDF(i int, v float64) float64 {
	sd := math.Sqrt(s.sxx)
	if i == 0 {
		return phi(v / sd)
	}
	f := func(u float64) float64 {
		return math.Exp(-u*u/2) / math.Sqrt(2*math.Pi) * phi((v-s.ridge(sd*u))/s.s)
	}
	return simpson(f, -10, 10, 8000)
}
