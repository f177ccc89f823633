// Package gp holds Gaussian-process regression (seed 003 L876–1037; seed
// 002 §4.4–4.5, Algorithms 1–3): the posterior by Cholesky with jitter, the
// log marginal likelihood and its analytic gradient in log-parameters, an
// engine that adds observations one at a time, one that learns the
// hyperparameters by gradient ascent, and Bayesian linear regression, the
// weight-space view of a GP with a linear kernel (seed 002 C1, D4).
//
// Noise convention: the observations are y = f(x) + ε, ε ~ N(0, σ²), and
// their covariance is C = K + σ²I with σ² = noise a variance. Seed 003
// writes 1/σ² on the diagonal at L955, L961, L971, L987 and L989 while
// L938, L969 and L1001 use σ² as a variance (erratum 1 of the seed-003
// catalogue); the code uses C = K + σ²I throughout.
package gp

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Jitter policy: when K + σ²I fails to factorise, or factorises with an
// estimated condition number above MaxCond (a dense squared-exponential
// Gram matrix is numerically singular long before it is mathematically so:
// seed-002 catalogue D5 measured failures from 50 points; and a factor that
// succeeds at a condition number of 1e15 gives variances wrong in the
// second digit), the diagonal is raised by JitterStart·s, s the mean of K's
// diagonal, then by ten times more, up to JitterMax·s; beyond that Fit
// returns an error.
const (
	JitterStart = 1e-10
	JitterMax   = 1e-4
	MaxCond     = 1e13
)

// Posterior is a GP regression posterior given n observations: the
// Cholesky factor C = LLᵀ of C = K + (σ² + jitter)I and a = C⁻¹y, so that at
// a test point x with k_i = k(x_i, x) (seed 003 L1012–1018, seed 002
// eqs 4.29–4.30, Algorithm 3):
//
//	mean m(x) = kᵀa = Σ_i a_i k(x_i, x)
//	latent variance v(x) = k(x, x) − ‖L⁻¹k‖²
//
// The variance of a new noisy observation is v(x) + σ² (seed 003's
// σ²(x_{N+1}) = c − kᵀC⁻¹k with c = k(x, x) + σ², L1013). C is never
// inverted: everything is triangular solves.
type Posterior struct {
	kern   kernel.Kernel
	x      [][]float64
	y      []float64
	n      int
	f      *factor
	a      []float64
	quad   float64 // yᵀC⁻¹y = ‖L⁻¹y‖²
	logDet float64
}

// Fit conditions a zero-mean GP with kernel k on observations y at inputs x
// (not copied) with noise variance noise ≥ 0. With no observations it is
// the prior. It returns an error, never a bad factor, when C is not
// positive definite even with the largest jitter.
func Fit(k kernel.Kernel, x [][]float64, y []float64, noise float64) (*Posterior, error) {
	p, _, err := fitGram(k, x, y, noise)
	return p, err
}

// fitGram is Fit, also returning the Gram matrix K (row-major, intact).
func fitGram(k kernel.Kernel, x [][]float64, y []float64, noise float64) (*Posterior, []float64, error) {
	if len(x) != len(y) {
		return nil, nil, algo.BadParam("data", len(x), fmt.Sprintf("%d inputs for %d targets", len(x), len(y)))
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, nil, algo.BadParam("noise", noise, "a finite variance ≥ 0")
	}
	f := &factor{noise: noise}
	if len(x) == 0 {
		return newPosterior(k, x, y, f), nil, nil
	}
	gram := kernel.Gram(k, x)
	if err := f.factorize(gram, len(x), noise); err != nil {
		return nil, nil, err
	}
	return newPosterior(k, x, y, f), gram, nil
}

// newPosterior solves for a = C⁻¹y = L⁻ᵀ(L⁻¹y) on the factor of the first
// f.n observations; the factor is kept, not copied.
func newPosterior(k kernel.Kernel, x [][]float64, y []float64, f *factor) *Posterior {
	n := f.n
	a := append([]float64(nil), y[:n]...)
	f.forward(a)
	quad := dotv(a, a)
	f.backward(a)
	return &Posterior{kern: k, x: x[:n], y: y[:n], n: n, f: f, a: a, quad: quad, logDet: f.logDet()}
}

// N is the number of observations.
func (p *Posterior) N() int { return p.n }

// Jitter returns the jitter added to the diagonal (0 when none was needed).
func (p *Posterior) Jitter() float64 { return p.f.jitter }

// Weights returns a = C⁻¹y, the coefficients of m(x) = Σ a_i k(x_i, x) (a
// view).
func (p *Posterior) Weights() []float64 { return p.a }

// crossT returns V = L⁻¹K_*ᵀ, n×m row-major, for the m points xs, and
// writes the means K_* a into mean when it is not nil.
func (p *Posterior) crossT(xs [][]float64, mean []float64) []float64 {
	m := len(xs)
	ks := kernel.Cross(p.kern, xs, p.x) // m×n
	v := make([]float64, p.n*m)
	for a := 0; a < m; a++ {
		row := ks[a*p.n : (a+1)*p.n]
		s := 0.0
		for i, kv := range row {
			v[i*m+a] = kv
			s += kv * p.a[i]
		}
		if mean != nil {
			mean[a] = s
		}
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, p.f.tri(), blas64.General{Rows: p.n, Cols: m, Stride: m, Data: v})
	return v
}

// Predict returns the posterior mean and latent variance at each of xs
// (fresh slices). It costs O(n²) per point.
func (p *Posterior) Predict(xs [][]float64) (mean, variance []float64) {
	m := len(xs)
	mean, variance = make([]float64, m), make([]float64, m)
	for a, x := range xs {
		variance[a] = kernel.Eval(p.kern, x, x)
	}
	if p.n == 0 || m == 0 {
		return mean, variance
	}
	v := p.crossT(xs, mean)
	for i := 0; i < p.n; i++ {
		for a, vv := range v[i*m : (i+1)*m] {
			variance[a] -= vv * vv
		}
	}
	for a := range variance {
		variance[a] = math.Max(variance[a], 0) // rounding can push it below 0
	}
	return mean, variance
}

// Covariance returns the posterior covariance of the latent values at xs,
// K_** − VᵀV with V = L⁻¹K_*ᵀ, as an m×m row-major slice.
func (p *Posterior) Covariance(xs [][]float64) []float64 {
	m := len(xs)
	cov := kernel.Gram(p.kern, xs)
	if p.n == 0 {
		return cov
	}
	subVTV(cov, p.crossT(xs, nil), p.n, m)
	return cov
}

// subVTV subtracts VᵀV from the m×m row-major cov, V being n×m.
func subVTV(cov, v []float64, n, m int) {
	vg := blas64.General{Rows: n, Cols: m, Stride: m, Data: v}
	blas64.Gemm(blas.Trans, blas.NoTrans, -1, vg, vg, 1, blas64.General{Rows: m, Cols: m, Stride: m, Data: cov})
}

// Samples draws len(z) functions from the posterior at xs, f = m + Lz with
// LLᵀ the posterior covariance (jittered like Fit when it is numerically
// singular, which a posterior covariance on a fine grid always is): each
// z[s] holds len(xs) standard normal values, so fixed z make the samples
// morph smoothly as the posterior changes (seed 002 D5's suggestion).
func (p *Posterior) Samples(xs [][]float64, z [][]float64) ([][]float64, error) {
	mean, _ := p.Predict(xs)
	return Draw(mean, p.Covariance(xs), z)
}

// Draw returns the functions m + Lz for each z in z, LLᵀ = cov the m×m
// row-major covariance (read, not modified), factorised with the jitter
// policy of Fit.
func Draw(mean, cov []float64, z [][]float64) ([][]float64, error) {
	m := len(mean)
	var f factor
	if err := f.factorize(cov, m, 0); err != nil {
		return nil, err
	}
	out := make([][]float64, len(z))
	for s, zs := range z {
		v := make([]float64, m)
		for i := 0; i < m; i++ {
			v[i] = mean[i] + dotv(f.l[i*f.stride:i*f.stride+i+1], zs[:i+1])
		}
		out[s] = v
	}
	return out, nil
}

// LogMarginal returns log p(y | θ) = −½ yᵀC⁻¹y − ½ log|C| − (n/2) log 2π
// (seed 003 L1037, seed 002 L1959), split into the data-fit term −½yᵀC⁻¹y,
// the complexity term −½log|C| and the constant. C includes any jitter.
func (p *Posterior) LogMarginal() (total, dataFit, complexity float64) {
	if p.n == 0 {
		return 0, 0, 0
	}
	dataFit = -0.5 * p.quad
	complexity = -0.5 * p.logDet
	return dataFit + complexity - 0.5*float64(p.n)*math.Log(2*math.Pi), dataFit, complexity
}

func dotv(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
