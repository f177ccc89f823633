// Package gaussian holds the bivariate Gaussian and its identities, as
// seed 003 lists them (L821–838, catalogue G0), and its sampling by
// push-forward of seed 001 §13 (L1247–1257, catalogue A22): with S = LLᵀ
// (Cholesky) and z ~ N(0, I), x = Lz + μ ~ N(μ, S).
//
// For x = (x₁, x₂) ~ N(μ, Σ):
//
//	(b) marginal:     x_i ~ N(μ_i, Σ_ii);
//	(c) conditional:  x_a | x_b ~ N(μ_a + Σ_ab Σ_bb⁻¹ (x_b − μ_b), Σ_aa − Σ_ab Σ_bb⁻¹ Σ_ba);
//	(a) sum:          x + y ~ N(μ_x + μ_y, Σ_x + Σ_y) for INDEPENDENT x, y;
//	(d) linear:       y | x ~ N(Ax + b, Σ_y)  ⇒  y ~ N(Aμ + b, Σ_y + AΣAᵀ).
//
// Errata of the notes avoided: (a) needs x and y independent, which seed
// 003 L825–827 omits (a sum of dependent Gaussians has another
// covariance: x + x is N(2μ, 4Σ), not N(2μ, 2Σ)); the density's
// normaliser is (2π)^{−d/2}, where seed 001 L1249 prints (2π)^{d/2}
// (erratum E16).
package gaussian

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Mat is a 2×2 matrix, row-major.
type Mat [2][2]float64

// Mul is AB.
func (a Mat) Mul(b Mat) Mat {
	var c Mat
	for i := range 2 {
		for j := range 2 {
			c[i][j] = a[i][0]*b[0][j] + a[i][1]*b[1][j]
		}
	}
	return c
}

// T is Aᵀ.
func (a Mat) T() Mat { return Mat{{a[0][0], a[1][0]}, {a[0][1], a[1][1]}} }

// Add is A + B.
func (a Mat) Add(b Mat) Mat {
	return Mat{{a[0][0] + b[0][0], a[0][1] + b[0][1]}, {a[1][0] + b[1][0], a[1][1] + b[1][1]}}
}

// Apply is Ax.
func (a Mat) Apply(x [2]float64) [2]float64 {
	return [2]float64{a[0][0]*x[0] + a[0][1]*x[1], a[1][0]*x[0] + a[1][1]*x[1]}
}

// Normal is N(μ, Σ) on the plane, with the Cholesky factor L of Σ.
type Normal struct {
	Mu  [2]float64
	Cov Mat
	l   Mat
}

// New is N(mu, cov); cov must be symmetric positive definite.
func New(mu [2]float64, cov Mat) (Normal, error) {
	if !algo.Finite(mu[0]) || !algo.Finite(mu[1]) {
		return Normal{}, algo.BadParam("mu", mu, "finite")
	}
	a, b, d := cov[0][0], cov[0][1], cov[1][1]
	if cov[1][0] != b || !(a > 0) || !algo.Finite(a+b+d) || !(a*d-b*b > 0) {
		return Normal{}, algo.BadParam("cov", cov, "a symmetric positive definite 2×2 matrix")
	}
	l11 := math.Sqrt(a)
	l21 := b / l11
	l22 := math.Sqrt(d - l21*l21)
	if !(l22 > 0) {
		return Normal{}, algo.BadParam("cov", cov, "a positive definite matrix, not singular to rounding")
	}
	return Normal{Mu: mu, Cov: cov, l: Mat{{l11, 0}, {l21, l22}}}, nil
}

// L is the Cholesky factor: lower triangular, LLᵀ = Σ.
func (g Normal) L() Mat { return g.l }

// Sample is Lz + μ for z ~ N(0, I) drawn from rng.
func (g Normal) Sample(rng *rand.Rand) [2]float64 {
	return g.Push([2]float64{rng.NormFloat64(), rng.NormFloat64()})
}

// Push is the push-forward Lz + μ of a given z.
func (g Normal) Push(z [2]float64) [2]float64 {
	x := g.l.Apply(z)
	return [2]float64{x[0] + g.Mu[0], x[1] + g.Mu[1]}
}

// Marginal is (μ_i, Σ_ii), identity (b).
func (g Normal) Marginal(i int) (mean, variance float64) { return g.Mu[i], g.Cov[i][i] }

// Conditional is the law of x_a given x_b = xb (b = 1 − a), identity (c).
func (g Normal) Conditional(a int, xb float64) (mean, variance float64) {
	b := 1 - a
	k := g.Cov[a][b] / g.Cov[b][b]
	return g.Mu[a] + k*(xb-g.Mu[b]), g.Cov[a][a] - k*g.Cov[b][a]
}

// Sum is the law of x + y for independent x ~ g and y ~ h, identity (a).
func Sum(g, h Normal) (Normal, error) {
	return New([2]float64{g.Mu[0] + h.Mu[0], g.Mu[1] + h.Mu[1]}, g.Cov.Add(h.Cov))
}

// Linear is the law of y = Ax + b + ε for x ~ g and an independent ε ~
// N(0, covY), identity (d).
func (g Normal) Linear(a Mat, b [2]float64, covY Mat) (Normal, error) {
	m := a.Apply(g.Mu)
	p := a.Mul(g.Cov).Mul(a.T())
	p[0][1] = (p[0][1] + p[1][0]) / 2 // AΣAᵀ is symmetric but for rounding
	p[1][0] = p[0][1]
	// covY is added as given, so that New refuses an asymmetric one.
	return New([2]float64{m[0] + b[0], m[1] + b[1]}, covY.Add(p))
}

// LogPdf is log N(x; μ, Σ), with the normaliser (2π)^{−1} of d = 2.
func (g Normal) LogPdf(x [2]float64) float64 {
	// Solve L v = x − μ: the quadratic form is ‖v‖².
	d0, d1 := x[0]-g.Mu[0], x[1]-g.Mu[1]
	v0 := d0 / g.l[0][0]
	v1 := (d1 - g.l[1][0]*v0) / g.l[1][1]
	return -math.Log(2*math.Pi) - math.Log(g.l[0][0]*g.l[1][1]) - (v0*v0+v1*v1)/2
}

// Ellipse writes into xs, ys the points μ + k L(cos t, sin t), t through
// a full turn: the contour at Mahalanobis distance k (probability 1 −
// e^{−k²/2} inside it), closed (the last point is the first).
func (g Normal) Ellipse(k float64, xs, ys []float64) {
	n := len(xs)
	for i := range n {
		t := 2 * math.Pi * float64(i) / float64(max(n-1, 1))
		p := g.Push([2]float64{k * math.Cos(t), k * math.Sin(t)})
		xs[i], ys[i] = p[0], p[1]
	}
}
