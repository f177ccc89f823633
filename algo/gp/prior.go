package gp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Prior draws sample paths of a zero-mean GP, f ~ GP(0, k), at fixed
// inputs x₁ … x_n by seed 002 Algorithm 1 (L1940–1950; seed 003 L881–883,
// the seed-003 catalogue G2): K_ij = k(x_i, x_j) = LLᵀ by Cholesky, then one
// Step draws z ~ N(0, I_n) and returns f = Lz, so that Cov f = LLᵀ = K.
// The notes factorise K as it is; a dense smooth kernel's Gram matrix is
// numerically singular (the seed-002 catalogue, D5, measured the failure
// from 50 points of an SE kernel), so K is factorised with the jitter
// policy of Fit (JitterStart … JitterMax times the mean of diag K, raised
// tenfold until cond(K + jitter·I) ≤ MaxCond), and Jitter reports it.
//
// It keeps the moments that make the draws an oracle of the kernel: with a
// reference input x_r, the sums S_ri = Σ f(x_r)f(x_i) and S_ii = Σ f(x_i)²
// over the draws, hence the empirical covariance S_ri/N → k(x_r, x_i)
// (standard error √((k_rr k_ii + k_ri²)/N), since the mean is known to be
// 0 and E[a²b²] = k_aa k_bb + 2k_ab² for a centred Gaussian pair) and the
// empirical correlation ρ̂_i = S_ri/√(S_rr S_ii) → ρ_i = k_ri/√(k_rr k_ii),
// with asymptotic standard error (1 − ρ_i²)/√N (the delta method for a
// bivariate normal's correlation). A Step costs O(n²), n normals and a
// triangular matrix-vector product, and does not allocate.
type Prior struct {
	rng   *rand.Rand
	f     factor
	ref   int
	kref  []float64 // k(x_r, x_i)
	kdiag []float64 // k(x_i, x_i)
	path  []float64 // the last draw f = Lz
	sref  []float64 // S_ri
	ssq   []float64 // S_ii
	draws int
}

// PriorFootprint is the bytes a Prior over n inputs holds: its factor and
// six vectors of n (the Gram matrix it is built from is garbage once
// factorised).
func PriorFootprint(n int) int64 { return factorBytes(n) + 6*8*int64(n) }

// NewPrior factorises the Gram matrix of k at the inputs x (not kept) and
// takes x[ref] as the reference input of the moments; the draws come from
// rng. It returns an error when there are no inputs, ref is not one of
// them, or K is not positive definite even with the largest jitter (a
// function that is not a kernel).
func NewPrior(k kernel.Kernel, x [][]float64, ref int, rng *rand.Rand) (*Prior, error) {
	n := len(x)
	if n == 0 {
		return nil, algo.BadParam("inputs", 0, "at least one input")
	}
	if ref < 0 || ref >= n {
		return nil, algo.BadParam("ref", ref, fmt.Sprintf("in 0..%d", n-1))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a random source")
	}
	gram := kernel.Gram(k, x)
	p := &Prior{rng: rng, ref: ref, kref: make([]float64, n), kdiag: make([]float64, n),
		path: make([]float64, n), sref: make([]float64, n), ssq: make([]float64, n)}
	for i := range n {
		if !(gram[i*n+i] > 0) || math.IsInf(gram[i*n+i], 0) {
			return nil, fmt.Errorf("the kernel's variance k(x, x) = %g at input %d: a GP prior needs a finite variance > 0", gram[i*n+i], i)
		}
		p.kdiag[i] = gram[i*n+i]
		p.kref[i] = gram[ref*n+i]
	}
	if err := p.f.factorize(gram, n, 0); err != nil {
		return nil, err
	}
	return p, nil
}

// Step draws the next path f = Lz and adds it to the moments.
func (p *Prior) Step() error {
	for i := range p.path {
		p.path[i] = p.rng.NormFloat64()
	}
	blas64.Trmv(blas.NoTrans, p.f.tri(), vec(p.path))
	fr := p.path[p.ref]
	for i, v := range p.path {
		p.sref[i] += fr * v
		p.ssq[i] += v * v
	}
	p.draws++
	return nil
}

// Path is the last draw (a view, overwritten by the next Step; zeros
// before the first).
func (p *Prior) Path() []float64 { return p.path }

// Draws is the number of paths drawn.
func (p *Prior) Draws() int { return p.draws }

// Jitter is the jitter added to K's diagonal (0 when none was needed).
func (p *Prior) Jitter() float64 { return p.f.jitter }

// Ref is the index of the reference input.
func (p *Prior) Ref() int { return p.ref }

// Kernel returns k(x_r, x_i) and k(x_i, x_i) at input i.
func (p *Prior) Kernel(i int) (kri, kii float64) { return p.kref[i], p.kdiag[i] }

// Cov returns the empirical covariance S_ri/N of f(x_r) and f(x_i) and its
// standard error √((k_rr k_ii + k_ri²)/N) (NaN before the first draw).
func (p *Prior) Cov(i int) (cov, se float64) {
	if p.draws == 0 {
		return math.NaN(), math.NaN()
	}
	n := float64(p.draws)
	krr := p.kdiag[p.ref]
	return p.sref[i] / n, math.Sqrt((krr*p.kdiag[i] + p.kref[i]*p.kref[i]) / n)
}

// Var returns the empirical variance S_ii/N of f(x_i) and its standard
// error k_ii√(2/N) (NaN before the first draw).
func (p *Prior) Var(i int) (v, se float64) {
	if p.draws == 0 {
		return math.NaN(), math.NaN()
	}
	n := float64(p.draws)
	return p.ssq[i] / n, p.kdiag[i] * math.Sqrt(2/n)
}

// Corr writes the empirical correlations ρ̂_i = S_ri/√(S_rr S_ii) into dst
// (grown if short) and returns it: NaN before the first draw.
func (p *Prior) Corr(dst []float64) []float64 {
	dst = grow(dst, len(p.path))
	srr := p.ssq[p.ref]
	for i := range dst {
		dst[i] = p.sref[i] / math.Sqrt(srr*p.ssq[i])
		if p.draws == 0 {
			dst[i] = math.NaN()
		}
	}
	return dst
}

// KernelCorr writes the kernel's correlations ρ_i = k_ri/√(k_rr k_ii)
// into dst (grown if short) and returns it.
func (p *Prior) KernelCorr(dst []float64) []float64 {
	dst = grow(dst, len(p.path))
	krr := p.kdiag[p.ref]
	for i := range dst {
		dst[i] = p.kref[i] / math.Sqrt(krr*p.kdiag[i])
	}
	return dst
}

// CorrSE is the asymptotic standard error (1 − ρ²)/√N of an empirical
// correlation whose true value is rho, after the draws so far (+Inf before
// the first).
func (p *Prior) CorrSE(rho float64) float64 {
	return (1 - rho*rho) / math.Sqrt(float64(p.draws))
}

// grow returns dst with length n, reallocated only when short.
func grow(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	return dst[:n]
}
