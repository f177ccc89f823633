package kernel

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// MaxBumps bounds the number of features of Bumps.
const MaxBumps = 64

// Bumps is the localised feature map of seed 002 Example 4.2 (L1764):
// φ_i(x) = exp(−γ(x − c_i)²) on the real line, M bumps with centres c_i
// evenly spaced on [lo, hi] and γ = 1/(2s²) for a width s. The notes leave
// γ and c_i unspecified (seed-002 catalogue, D4).
type Bumps struct {
	Centres []float64
	Gamma   float64
}

// NewBumps spaces m ≥ 1 centres evenly on [lo, hi] (the midpoint when m =
// 1) with width s > 0.
func NewBumps(m int, lo, hi, s float64) (*Bumps, error) {
	if m < 1 || m > MaxBumps {
		return nil, algo.BadParam("m", m, fmt.Sprintf("in 1..%d", MaxBumps))
	}
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil, algo.BadParam("hi", hi, fmt.Sprintf("finite and > lo = %g", lo))
	}
	if !(s > 0) || math.IsInf(s, 0) || math.IsInf(1/(2*s*s), 0) {
		// γ = 1/(2s²) must be finite too: γ = ∞ makes φ_i(c_i) = e^{−∞·0} NaN.
		return nil, algo.BadParam("s", s, "a finite width > 0 with 1/(2s²) finite")
	}
	b := &Bumps{Centres: make([]float64, m), Gamma: 1 / (2 * s * s)}
	for i := range b.Centres {
		if m == 1 {
			b.Centres[i] = (lo + hi) / 2
		} else {
			b.Centres[i] = lo + (hi-lo)*float64(i)/float64(m-1)
		}
	}
	return b, nil
}

// Map writes φ(x) into dst (length M) and returns it.
func (b *Bumps) Map(x float64, dst []float64) []float64 {
	for i, c := range b.Centres {
		dst[i] = math.Exp(-b.Gamma * (x - c) * (x - c))
	}
	return dst
}

// WeightBLR is Bayesian linear regression in the weight space of M
// features (seed 002 §4.3, L1705–1786): y = φ(x)ᵀw + ε, ε ~ N(0, σ²),
// w ~ N(0, Σ_w) with Σ_w = α⁻¹I (α a precision, as gp.BLR's). The posterior
// is N(μ, Σ) with (L1752)
//
//	Σ = (αI + ΦᵀΦ/σ²)⁻¹,   μ = Σ Φᵀy/σ²,
//
// kept in natural parameters (Σ⁻¹ and Σ⁻¹μ), which one observation updates
// by a rank-one term. The predictive distribution of f_* = φ_*ᵀw is
// N(φ_*ᵀμ, φ_*ᵀΣφ_*): the function-space GP with kernel k(x, x') =
// φ(x)ᵀΣ_wφ(x') (L1806, eqs 4.20–4.21) gives the same numbers.
type WeightBLR struct {
	m            int
	alpha, noise float64
	prec         []float64 // Σ⁻¹, m×m row-major
	eta          []float64 // Σ⁻¹μ
	n            int
	// Refresh's factor and mean.
	chol  mat.Cholesky
	sym   *mat.SymDense
	mu    []float64
	stale bool
	buf   *mat.VecDense
	rhs   mat.VecDense // a view of the right-hand side of a solve (η or φ_*)
}

// NewWeightBLR starts from the prior over m ≥ 1 weights with precision
// alpha > 0 and noise variance noise > 0.
func NewWeightBLR(m int, alpha, noise float64) (*WeightBLR, error) {
	if m < 1 || m > MaxBumps {
		return nil, algo.BadParam("m", m, fmt.Sprintf("in 1..%d", MaxBumps))
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, algo.BadParam("alpha", alpha, "a finite precision > 0")
	}
	if !(noise > 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite variance > 0")
	}
	b := &WeightBLR{m: m, alpha: alpha, noise: noise, prec: make([]float64, m*m), eta: make([]float64, m),
		sym: mat.NewSymDense(m, nil), mu: make([]float64, m), stale: true, buf: mat.NewVecDense(m, nil)}
	for i := 0; i < m; i++ {
		b.prec[i*m+i] = alpha
	}
	return b, nil
}

// Observe adds one observation with features phi (length M) and target y.
func (b *WeightBLR) Observe(phi []float64, y float64) {
	m := b.m
	for i := 0; i < m; i++ {
		pi := phi[i] / b.noise
		row := b.prec[i*m : (i+1)*m]
		for j, pj := range phi[:m] {
			row[j] += pi * pj
		}
		b.eta[i] += pi * y
	}
	b.n++
	b.stale = true
}

// N is the number of observations.
func (b *WeightBLR) N() int { return b.n }

// refresh factorises Σ⁻¹ and solves for μ when an observation came in.
func (b *WeightBLR) refresh() error {
	if !b.stale {
		return nil
	}
	for i := 0; i < b.m; i++ {
		for j := i; j < b.m; j++ {
			b.sym.SetSym(i, j, b.prec[i*b.m+j])
		}
	}
	if !b.chol.Factorize(b.sym) {
		return fmt.Errorf("the posterior precision is not positive definite")
	}
	if err := b.chol.SolveVecTo(b.buf, b.view(b.eta)); err != nil {
		return err
	}
	copy(b.mu, b.buf.RawVector().Data)
	b.stale = false
	return nil
}

// view points the reused vector rhs at v (length M), so that a solve
// allocates no matrix header.
func (b *WeightBLR) view(v []float64) *mat.VecDense {
	b.rhs.SetRawVector(blas64.Vector{N: b.m, Inc: 1, Data: v[:b.m]})
	return &b.rhs
}

// Mean returns μ (a view).
func (b *WeightBLR) Mean() ([]float64, error) {
	if err := b.refresh(); err != nil {
		return nil, err
	}
	return b.mu, nil
}

// Predict returns the predictive mean φ_*ᵀμ and latent variance φ_*ᵀΣφ_*
// of f_* for features phi. Once the posterior is factorised (after the
// first call following an observation) it does not allocate.
func (b *WeightBLR) Predict(phi []float64) (mean, variance float64, err error) {
	if err := b.refresh(); err != nil {
		return 0, 0, err
	}
	if err := b.chol.SolveVecTo(b.buf, b.view(phi)); err != nil {
		return 0, 0, err
	}
	return dot(phi, b.mu), math.Max(dot(phi, b.buf.RawVector().Data), 0), nil
}

// Kernel returns the induced covariance function on feature vectors,
// k(φ, φ') = φᵀΣ_wφ' = ⟨φ, φ'⟩/α: the function-space GP of this model.
func (b *WeightBLR) Kernel() Kernel { return Scaled{C: 1 / b.alpha, K: Linear{}} }
