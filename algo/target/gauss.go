package target

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Normal is the 1-D Gaussian N(μ, σ²):
//
//	log p(x) = −(x − μ)²/(2σ²) − log σ − ½ log 2π,   ∇ log p(x) = −(x − μ)/σ².
//
// Build it with NewNormal or StdNormal.
type Normal struct {
	mu, sigma float64
	logNorm   float64 // −log σ − ½ log 2π
}

// NewNormal returns N(mu, sigma²); mu must be finite and sigma finite and > 0.
func NewNormal(mu, sigma float64) (Normal, error) {
	if !algo.Finite(mu) {
		return Normal{}, algo.BadParam("mu", mu, "a finite number")
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return Normal{}, algo.BadParam("sigma", sigma, "a finite number > 0")
	}
	return Normal{mu: mu, sigma: sigma, logNorm: -math.Log(sigma) - halfLog2Pi}, nil
}

// StdNormal returns the standard normal N(0, 1), the "normal" preset.
func StdNormal() Normal {
	return Normal{mu: 0, sigma: 1, logNorm: -halfLog2Pi}
}

func (Normal) Name() string { return string(KindNormal) }
func (Normal) Dim() int     { return 1 }

func (n Normal) LogP(x []float64) float64 {
	d := (x[0] - n.mu) / n.sigma
	return -0.5*d*d + n.logNorm
}

func (n Normal) Grad(grad, x []float64) {
	grad[0] = -(x[0] - n.mu) / (n.sigma * n.sigma)
}

func (n Normal) Density(x []float64) float64 { return math.Exp(n.LogP(x)) }
func (n Normal) Mean() []float64             { return []float64{n.mu} }
func (n Normal) Cov() [][]float64            { return [][]float64{{n.sigma * n.sigma}} }

// Bounds is μ ± 4.5σ, which holds all but 7·10⁻⁶ of the mass.
func (n Normal) Bounds() (lo, hi []float64) {
	return []float64{n.mu - 4.5*n.sigma}, []float64{n.mu + 4.5*n.sigma}
}

// Correlated is the 2-D Gaussian N(0, Σ) with unit variances and correlation
// ρ, Σ = [[1, ρ], [ρ, 1]], the "highly correlated Gaussian" of the notes'
// Fig 3.8 (seed 002 L1163–1166), on which random-walk MH "can mix poorly"
// (L1100–1104). With Σ⁻¹ = [[1, −ρ], [−ρ, 1]]/(1 − ρ²):
//
//	log p(x, y) = −(x² − 2ρxy + y²)/(2(1 − ρ²)) − log 2π − ½ log(1 − ρ²),
//	∇ log p(x, y) = −((x − ρy), (y − ρx))/(1 − ρ²).
//
// Its principal standard deviations are √(1 + |ρ|) along the diagonal and
// √(1 − |ρ|) across it. Build it with NewCorrelated.
type Correlated struct {
	rho     float64
	inv     float64 // 1/(1 − ρ²)
	logNorm float64 // −log 2π − ½ log(1 − ρ²)
}

// NewCorrelated returns the correlated Gaussian; rho must lie in (−1, 1).
func NewCorrelated(rho float64) (Correlated, error) {
	if !(rho > -1 && rho < 1) {
		return Correlated{}, algo.BadParam("rho", rho, "in (−1, 1)")
	}
	q := 1 - rho*rho
	return Correlated{rho: rho, inv: 1 / q, logNorm: -log2Pi - 0.5*math.Log(q)}, nil
}

// Rho is the correlation ρ.
func (c Correlated) Rho() float64 { return c.rho }

func (Correlated) Name() string { return string(KindCorrelated) }
func (Correlated) Dim() int     { return 2 }

func (c Correlated) LogP(x []float64) float64 {
	u, v := x[0], x[1]
	return -0.5*c.inv*(u*u-2*c.rho*u*v+v*v) + c.logNorm
}

func (c Correlated) Grad(grad, x []float64) {
	u, v := x[0], x[1]
	grad[0] = -c.inv * (u - c.rho*v)
	grad[1] = -c.inv * (v - c.rho*u)
}

func (c Correlated) Density(x []float64) float64 { return math.Exp(c.LogP(x)) }
func (Correlated) Mean() []float64               { return []float64{0, 0} }
func (c Correlated) Cov() [][]float64            { return [][]float64{{1, c.rho}, {c.rho, 1}} }

// Bounds is the square [−3.5, 3.5]², 3.5 marginal standard deviations.
func (Correlated) Bounds() (lo, hi []float64) {
	return []float64{-3.5, -3.5}, []float64{3.5, 3.5}
}

// Formula is the density written out.
func (n Normal) Formula() string { return fmt.Sprintf("p(x) = N(x; %g, %g²)", n.mu, n.sigma) }

// Draw writes an exact draw into dst.
func (n Normal) Draw(dst []float64, rng *rand.Rand) { dst[0] = n.mu + n.sigma*rng.NormFloat64() }

// HasConditional is true: in one dimension the full conditional is the
// target itself, and Gibbs sampling draws independent samples.
func (Normal) HasConditional(i int) bool { return i == 0 }

// CondSample draws from N(μ, σ²).
func (n Normal) CondSample(_ int, _ []float64, rng *rand.Rand) float64 {
	return n.mu + n.sigma*rng.NormFloat64()
}

// CondLogPDF is log N(v; μ, σ²).
func (n Normal) CondLogPDF(_ int, _ []float64, v float64) float64 {
	d := (v - n.mu) / n.sigma
	return -0.5*d*d + n.logNorm
}

// Formula is the density written out.
func (c Correlated) Formula() string {
	return fmt.Sprintf("p(x, y) = N(0, [[1, ρ], [ρ, 1]]), ρ = %g", c.rho)
}

// Draw writes an exact draw into dst: x = z₁, y = ρz₁ + √(1 − ρ²) z₂ (the
// Cholesky factor of Σ).
func (c Correlated) Draw(dst []float64, rng *rand.Rand) {
	z1, z2 := rng.NormFloat64(), rng.NormFloat64()
	dst[0], dst[1] = z1, c.rho*z1+math.Sqrt(1-c.rho*c.rho)*z2
}

// HasConditional is true for both coordinates: for unit variances and
// correlation ρ (seed-002-catalog C5 [D], the Gaussian conditioning formula)
//
//	x_i | x_j ~ N(ρ x_j, 1 − ρ²).
func (Correlated) HasConditional(i int) bool { return i == 0 || i == 1 }

// CondSample draws x_i ~ N(ρ x_j, 1 − ρ²), j the other coordinate.
func (c Correlated) CondSample(i int, x []float64, rng *rand.Rand) float64 {
	return c.rho*x[1-i] + math.Sqrt(1-c.rho*c.rho)*rng.NormFloat64()
}

// CondLogPDF is log N(v; ρ x_j, 1 − ρ²).
func (c Correlated) CondLogPDF(i int, x []float64, v float64) float64 {
	q := 1 - c.rho*c.rho
	d := v - c.rho*x[1-i]
	return -0.5*d*d/q - 0.5*math.Log(q) - halfLog2Pi
}
