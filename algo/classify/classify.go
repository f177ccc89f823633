// Package classify holds the generative Gaussian classifier of seed 002
// Ex 1.1 and Exercise 1.1 (L107–134): class prior (1 − π, π), class
// conditionals f₀ = N(μ₀, Σ₀), f₁ = N(μ₁, Σ₁), and the posterior
//
//	p(Y = 1 | x) = 1 / (1 + exp(−log( (π/(1 − π)) f₁(x)/f₀(x) )))   (eq 1.4),
//
// with the parameters fitted by maximum likelihood as labelled points
// arrive. Exercise 1.1 asks what happens when Σ₀ = Σ₁; the answer
// (catalogue A4 [D]) is that the log-odds, quadratic in general, becomes
// affine, wᵀx + w₀ with w = Σ⁻¹(μ₁ − μ₀) and
// w₀ = −½μ₁ᵀΣ⁻¹μ₁ + ½μ₀ᵀΣ⁻¹μ₀ + log(π/(1 − π)): exactly the logistic form
// (1.2), with a straight decision boundary.
package classify

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
)

// Params are the generative model's parameters: π = p(Y = 1), and the
// mean and covariance of each class (Cov[k] symmetric positive definite).
type Params struct {
	Pi  float64
	Mu  [2][2]float64
	Cov [2][2][2]float64
}

// Check validates the parameters, naming the first bad one.
func (p Params) Check() error {
	if !(p.Pi > 0 && p.Pi < 1) {
		return algo.BadParam("pi", p.Pi, "in (0, 1)")
	}
	for k := range 2 {
		c := p.Cov[k]
		if !algo.Finite(p.Mu[k][0]) || !algo.Finite(p.Mu[k][1]) {
			return algo.BadParam(fmt.Sprintf("mu%d", k), p.Mu[k], "finite numbers")
		}
		if c[0][1] != c[1][0] || !(c[0][0] > 0) || !(c[0][0]*c[1][1]-c[0][1]*c[0][1] > 0) || !algo.Finite(c[0][0]+c[1][1]+c[0][1]) {
			return algo.BadParam(fmt.Sprintf("cov%d", k), c, "a symmetric positive definite 2×2 matrix")
		}
	}
	return nil
}

// inv returns Σ⁻¹ and log det Σ of a 2×2 covariance.
func inv(c [2][2]float64) (s [2][2]float64, logDet float64) {
	det := c[0][0]*c[1][1] - c[0][1]*c[1][0]
	return [2][2]float64{{c[1][1] / det, -c[0][1] / det}, {-c[1][0] / det, c[0][0] / det}}, math.Log(det)
}

// LogDensity returns log N(x; μ_k, Σ_k).
func (p Params) LogDensity(k int, x [2]float64) float64 {
	s, ld := inv(p.Cov[k])
	d0, d1 := x[0]-p.Mu[k][0], x[1]-p.Mu[k][1]
	q := d0*(s[0][0]*d0+s[0][1]*d1) + d1*(s[1][0]*d0+s[1][1]*d1)
	return -math.Log(2*math.Pi) - ld/2 - q/2
}

// LogOdds returns log( (π/(1 − π)) f₁(x)/f₀(x) ), the argument of (1.4).
func (p Params) LogOdds(x [2]float64) float64 {
	return math.Log(p.Pi/(1-p.Pi)) + p.LogDensity(1, x) - p.LogDensity(0, x)
}

// Posterior returns p(Y = 1 | x) by (1.4), with a sigmoid that cannot
// overflow.
func (p Params) Posterior(x [2]float64) float64 { return stable.Sigmoid(p.LogOdds(x)) }

// Quadratic returns the log-odds as xᵀAx + bᵀx + c:
//
//	A = −½(Σ₁⁻¹ − Σ₀⁻¹),   b = Σ₁⁻¹μ₁ − Σ₀⁻¹μ₀,
//	c = log(π/(1 − π)) − ½μ₁ᵀΣ₁⁻¹μ₁ + ½μ₀ᵀΣ₀⁻¹μ₀ − ½ log(det Σ₁/det Σ₀).
//
// When Σ₀ = Σ₁ (the same values), A = 0 exactly and (b, c) are the
// catalogue's (w, w₀).
func (p Params) Quadratic() (a [2][2]float64, b [2]float64, c float64) {
	s0, l0 := inv(p.Cov[0])
	s1, l1 := inv(p.Cov[1])
	m0, m1 := p.Mu[0], p.Mu[1]
	for i := range 2 {
		for j := range 2 {
			a[i][j] = -(s1[i][j] - s0[i][j]) / 2
		}
		b[i] = s1[i][0]*m1[0] + s1[i][1]*m1[1] - (s0[i][0]*m0[0] + s0[i][1]*m0[1])
	}
	q1 := m1[0]*(s1[0][0]*m1[0]+s1[0][1]*m1[1]) + m1[1]*(s1[1][0]*m1[0]+s1[1][1]*m1[1])
	q0 := m0[0]*(s0[0][0]*m0[0]+s0[0][1]*m0[1]) + m0[1]*(s0[1][0]*m0[0]+s0[1][1]*m0[1])
	c = math.Log(p.Pi/(1-p.Pi)) - q1/2 + q0/2 - (l1-l0)/2
	return a, b, c
}

// Sample draws one labelled point: y ~ Bernoulli(π), x ~ N(μ_y, Σ_y).
func (p Params) Sample(rng *rand.Rand) (x [2]float64, y int) {
	if rng.Float64() < p.Pi {
		y = 1
	}
	c := p.Cov[y]
	l11 := math.Sqrt(c[0][0])
	l21 := c[1][0] / l11
	l22 := math.Sqrt(c[1][1] - l21*l21)
	e1, e2 := rng.NormFloat64(), rng.NormFloat64()
	return [2]float64{p.Mu[y][0] + l11*e1, p.Mu[y][1] + l21*e1 + l22*e2}, y
}

// Covariance says how the classifier's fit treats the class covariances.
type Covariance string

const (
	// Shared fits one covariance, the pooled MLE Σ = (N₀Σ̂₀ + N₁Σ̂₁)/N:
	// the boundary is a straight line.
	Shared Covariance = "shared"
	// Separate fits Σ̂₀ and Σ̂₁ apart: the boundary is a conic.
	Separate Covariance = "separate"
)

// String is the choice's name.
func (c Covariance) String() string { return string(c) }

// Fit accumulates labelled points and returns the maximum-likelihood
// parameters: π̂ = N₁/N, μ̂_k the class means, Σ̂_k the class covariances
// with 1/N_k (the MLE), pooled when the covariance is shared. The
// statistics are updated by Welford's method. Add does not allocate.
type Fit struct {
	cov  Covariance
	n    [2]int
	mean [2][2]float64
	m2   [2][2][2]float64 // centred co-moments
}

// NewFit returns an empty fit.
func NewFit(cov Covariance) (*Fit, error) {
	if cov != Shared && cov != Separate {
		return nil, algo.BadParam("fit", cov, "shared or separate")
	}
	return &Fit{cov: cov}, nil
}

// Add accumulates a point x of class y (0 or 1).
func (f *Fit) Add(x [2]float64, y int) {
	f.n[y]++
	n := float64(f.n[y])
	m := &f.mean[y]
	d0, d1 := x[0]-m[0], x[1]-m[1]
	m[0] += d0 / n
	m[1] += d1 / n
	e0, e1 := x[0]-m[0], x[1]-m[1]
	c := &f.m2[y]
	c[0][0] += d0 * e0
	c[0][1] += d0 * e1
	c[1][0] += d1 * e0
	c[1][1] += d1 * e1
}

// Counts returns N₀ and N₁.
func (f *Fit) Counts() (n0, n1 int) { return f.n[0], f.n[1] }

// Covariance is the fit's covariance mode.
func (f *Fit) Covariance() Covariance { return f.cov }

// Params returns the MLE. ok is false until every covariance it needs is
// positive definite (each class needs three points in general position
// when separate; the classes together need four when shared).
func (f *Fit) Params() (p Params, ok bool) {
	n0, n1 := float64(f.n[0]), float64(f.n[1])
	if f.n[0] == 0 || f.n[1] == 0 {
		return Params{}, false
	}
	p.Pi = n1 / (n0 + n1)
	p.Mu = f.mean
	for k, nk := range []float64{n0, n1} {
		for i := range 2 {
			for j := range 2 {
				p.Cov[k][i][j] = f.m2[k][i][j] / nk
			}
		}
		p.Cov[k][1][0] = p.Cov[k][0][1] // exact symmetry
	}
	if f.cov == Shared {
		var pool [2][2]float64
		for i := range 2 {
			for j := range 2 {
				pool[i][j] = (f.m2[0][i][j] + f.m2[1][i][j]) / (n0 + n1)
			}
		}
		pool[1][0] = pool[0][1]
		p.Cov[0], p.Cov[1] = pool, pool
	}
	return p, p.Check() == nil
}
