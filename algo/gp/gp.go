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
	"gonum.org/v1/gonum/mat"
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
	noise  float64
	jitter float64
	n      int
	chol   mat.Cholesky
	u      blas64.Triangular // the upper factor U = Lᵀ
	a      []float64
	logDet float64
}

// Fit conditions a zero-mean GP with kernel k on observations y at inputs x
// (not copied) with noise variance noise ≥ 0. With no observations it is
// the prior. It returns an error, never a bad factor, when C is not
// positive definite even with the largest jitter.
func Fit(k kernel.Kernel, x [][]float64, y []float64, noise float64) (*Posterior, error) {
	if len(x) != len(y) {
		return nil, algo.BadParam("data", len(x), fmt.Sprintf("%d inputs for %d targets", len(x), len(y)))
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite variance ≥ 0")
	}
	p := &Posterior{kern: k, x: x, y: y, noise: noise, n: len(x)}
	if p.n == 0 {
		return p, nil
	}
	gram := kernel.Gram(k, x)
	if err := p.factor(gram); err != nil {
		return nil, err
	}
	return p, nil
}

// factor factorises gram + (noise + jitter)I, escalating the jitter, and
// solves for a.
func (p *Posterior) factor(gram []float64) error {
	jitter, err := factorJitter(&p.chol, gram, p.n, p.noise)
	if err != nil {
		return err
	}
	p.jitter = jitter
	n := p.n
	p.u = p.chol.RawU().(*mat.TriDense).RawTriangular()
	av := mat.NewVecDense(n, nil)
	if err := p.chol.SolveVecTo(av, mat.NewVecDense(n, p.y)); err != nil {
		return fmt.Errorf("GP solve: %w", err)
	}
	p.a = av.RawVector().Data
	p.logDet = p.chol.LogDet()
	return nil
}

// N is the number of observations.
func (p *Posterior) N() int { return p.n }

// Jitter returns the jitter added to the diagonal (0 when none was needed).
func (p *Posterior) Jitter() float64 { return p.jitter }

// Weights returns a = C⁻¹y, the coefficients of m(x) = Σ a_i k(x_i, x) (a
// view).
func (p *Posterior) Weights() []float64 { return p.a }

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
	// V = L⁻¹ K_*ᵀ: solve Uᵀ V = K_*ᵀ with K_*ᵀ n×m.
	ks := kernel.Cross(p.kern, xs, p.x) // m×n
	v := make([]float64, p.n*m)
	for a := 0; a < m; a++ {
		row := ks[a*p.n : (a+1)*p.n]
		s := 0.0
		for i, kv := range row {
			v[i*m+a] = kv
			s += kv * p.a[i]
		}
		mean[a] = s
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, p.u, blas64.General{Rows: p.n, Cols: m, Stride: m, Data: v})
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
	ks := kernel.Cross(p.kern, xs, p.x)
	v := make([]float64, p.n*m)
	for a := 0; a < m; a++ {
		for i := 0; i < p.n; i++ {
			v[i*m+a] = ks[a*p.n+i]
		}
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, p.u, blas64.General{Rows: p.n, Cols: m, Stride: m, Data: v})
	vg := blas64.General{Rows: p.n, Cols: m, Stride: m, Data: v}
	blas64.Gemm(blas.Trans, blas.NoTrans, -1, vg, vg, 1, blas64.General{Rows: m, Cols: m, Stride: m, Data: cov})
	return cov
}

// Samples draws len(z) functions from the posterior at xs, f = m + Lz with
// LLᵀ the posterior covariance (jittered like Fit when it is numerically
// singular, which a posterior covariance on a fine grid always is): each
// z[s] holds len(xs) standard normal values, so fixed z make the samples
// morph smoothly as the posterior changes (seed 002 D5's suggestion).
func (p *Posterior) Samples(xs [][]float64, z [][]float64) ([][]float64, error) {
	m := len(xs)
	cov := p.Covariance(xs)
	mean, _ := p.Predict(xs)
	var ch mat.Cholesky
	if _, err := factorJitter(&ch, cov, m, 0); err != nil {
		return nil, err
	}
	var l mat.TriDense
	ch.LTo(&l)
	out := make([][]float64, len(z))
	for s, zs := range z {
		f := make([]float64, m)
		for i := 0; i < m; i++ {
			v := mean[i]
			for j := 0; j <= i; j++ {
				v += l.At(i, j) * zs[j]
			}
			f[i] = v
		}
		out[s] = f
	}
	return out, nil
}

// factorJitter factorises the n×n row-major matrix a + noise·I into ch,
// adding jitter (see JitterStart, JitterMax) when it is not numerically
// positive definite, and returns the jitter used. a's diagonal is
// modified.
func factorJitter(ch *mat.Cholesky, a []float64, n int, noise float64) (float64, error) {
	scale := 0.0
	for i := 0; i < n; i++ {
		scale += math.Abs(a[i*n+i]) / float64(n)
	}
	if scale == 0 {
		scale = 1
	}
	diag := make([]float64, n)
	for i := range diag {
		diag[i] = a[i*n+i]
	}
	c := mat.NewSymDense(n, a) // a backs c; only its diagonal changes
	for jitter := 0.0; ; {
		for i := 0; i < n; i++ {
			c.SetSym(i, i, diag[i]+noise+jitter)
		}
		if ch.Factorize(c) && ch.Cond() <= MaxCond {
			return jitter, nil
		}
		switch {
		case jitter == 0:
			jitter = JitterStart * scale
		case jitter < JitterMax*scale*(1-1e-9):
			jitter *= 10
		default:
			return 0, fmt.Errorf("the covariance (%d×%d) is not positive definite even with jitter %.1g·mean(diag K): "+
				"raise noise, or use a kernel that is positive semidefinite", n, n, JitterMax)
		}
	}
}

// LogMarginal returns log p(y | θ) = −½ yᵀC⁻¹y − ½ log|C| − (n/2) log 2π
// (seed 003 L1037, seed 002 L1959), split into the data-fit term −½yᵀC⁻¹y,
// the complexity term −½log|C| and the constant. C includes any jitter.
func (p *Posterior) LogMarginal() (total, dataFit, complexity float64) {
	if p.n == 0 {
		return 0, 0, 0
	}
	dataFit = -0.5 * dotv(p.y, p.a)
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
