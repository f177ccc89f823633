// Package vi holds the variational-inference engines of seed 002 §3.4
// (L1221–1430): coordinate ascent (CAVI, eq 3.13) on a correlated Gaussian
// (Ex 3.6), on a mixture with fixed parameters (Ex 3.7) and on a Bayesian
// Gaussian mixture (the mean-field family of Ex 3.5), and black-box VI with
// the score-function gradient (eq 3.14) and the reparameterisation gradient
// of §6.3 (eq 6.12).
//
// Every engine maximises the ELBO (eq 3.7), equivalently minimises
// KL(q‖p(z|x)) = log p(x) − ELBO (eq 3.9). The CAVI engines' Step is one
// exact coordinate (or block) maximisation, so the ELBO never decreases;
// their tests check it.
package vi

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// MaxDim is the largest dimension a MeanField accepts.
const MaxDim = 10

// MeanField is CAVI for a Gaussian target p(z|x) = N(μ, Σ) with the
// mean-field family q(z) = Π_j N(z_j; m_j, s_j) (seed 002 Ex 3.6,
// L1295–1354, and Remark 3.14). With Λ = Σ⁻¹, the update (3.13) of factor j
// keeps only the terms of log p(x, z) in z_j, −½Λ_jj z_j² − z_j Σ_{i≠j}
// Λ_ji (m_i − μ_i) + Λ_jj z_j μ_j, a Gaussian in z_j:
//
//	m_j ← μ_j − (1/Λ_jj) Σ_{i≠j} Λ_ji (m_i − μ_i),   s_j ← 1/Λ_jj.
//
// So s_j = 1/(Σ⁻¹)_jj = σ_jj(1 − ρ²) in 2-D (L1346–1348) after the first
// update of each coordinate, whatever m: mean field underestimates the
// marginal variances σ_jj whenever ρ ≠ 0; and the mean error contracts by
// ρ² per sweep in 2-D (catalogue C8). Each update minimises
//
//	KL(q‖p) = ½ ( log(det Σ / Π s_j) − d + Σ_j Λ_jj s_j + (m − μ)ᵀΛ(m − μ) )
//
// (L1315) exactly over (m_j, s_j), so the KL never increases and the ELBO
// = log p(x) − KL never decreases.
//
// One Step updates one coordinate, j = 1, 2, ..., d, 1, 2, .... Step does not
// allocate.
type MeanField struct {
	d      int
	mu     []float64
	lam    []float64 // Λ = Σ⁻¹, row-major
	logDet float64   // log det Σ
	m, s   []float64
	next   int     // coordinate updated by the next Step
	k      int     // updates made
	moved  float64 // largest |Δm_j| in the current sweep
	last   float64 // largest |Δm_j| of the last full sweep (+Inf before one)
	kl     float64
	tol    float64
}

// NewMeanField starts CAVI for N(mu, sigma) from m0 with every s_j = s0.
// sigma must be symmetric positive definite of dimension 1..MaxDim; the
// run ends (ErrConverged) when a full sweep moves no m_j by more than tol.
func NewMeanField(mu []float64, sigma [][]float64, m0 []float64, s0, tol float64) (*MeanField, error) {
	d := len(mu)
	if d < 1 || d > MaxDim || !algo.AllFinite(mu) {
		return nil, algo.BadParam("mu", mu, fmt.Sprintf("1..%d finite numbers", MaxDim))
	}
	if len(sigma) != d {
		return nil, algo.BadParam("sigma", sigma, fmt.Sprintf("a %d×%d matrix", d, d))
	}
	sym := mat.NewSymDense(d, nil)
	for i, row := range sigma {
		if len(row) != d || !algo.AllFinite(row) {
			return nil, algo.BadParam("sigma", sigma, fmt.Sprintf("a %d×%d matrix of finite numbers", d, d))
		}
		for j := range row {
			if row[j] != sigma[j][i] {
				return nil, algo.BadParam("sigma", sigma, "a symmetric matrix")
			}
			sym.SetSym(i, j, row[j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return nil, algo.BadParam("sigma", sigma, "a positive definite matrix")
	}
	if len(m0) != d || !algo.AllFinite(m0) {
		return nil, algo.BadParam("m0", m0, fmt.Sprintf("%d finite numbers", d))
	}
	if !(s0 > 0) || math.IsInf(s0, 0) {
		return nil, algo.BadParam("s0", s0, "a finite number > 0")
	}
	if !(tol >= 0) || math.IsInf(tol, 0) {
		return nil, algo.BadParam("tol", tol, "a finite number ≥ 0")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, algo.BadParam("sigma", sigma, "a well-conditioned matrix")
	}
	mf := &MeanField{d: d, mu: append([]float64(nil), mu...), lam: make([]float64, d*d),
		logDet: ch.LogDet(), m: append([]float64(nil), m0...), s: make([]float64, d),
		last: math.Inf(1), tol: tol}
	for i := range d {
		mf.s[i] = s0
		for j := range d {
			mf.lam[i*d+j] = inv.At(i, j)
		}
	}
	mf.kl = mf.KLAt(mf.m, mf.s)
	return mf, nil
}

// KLAt returns KL(N(m, diag s) ‖ N(μ, Σ)) by the formula of L1315.
func (mf *MeanField) KLAt(m, s []float64) float64 {
	d := mf.d
	kl := mf.logDet - float64(d)
	for i := range d {
		kl += -math.Log(s[i]) + mf.lam[i*d+i]*s[i]
		ei := m[i] - mf.mu[i]
		for j := range d {
			kl += ei * mf.lam[i*d+j] * (m[j] - mf.mu[j])
		}
	}
	return kl / 2
}

// Step updates the next coordinate. At the start of a sweep it returns
// ErrConverged once the last full sweep moved no m_j by more than tol.
func (mf *MeanField) Step() error {
	d := mf.d
	j := mf.next
	if j == 0 && mf.last <= mf.tol {
		return algo.ErrConverged
	}
	row := mf.lam[j*d : (j+1)*d]
	acc := 0.0
	for i, l := range row {
		if i != j {
			acc += l * (mf.m[i] - mf.mu[i])
		}
	}
	mj := mf.mu[j] - acc/row[j]
	mf.moved = math.Max(mf.moved, math.Abs(mj-mf.m[j]))
	mf.m[j], mf.s[j] = mj, 1/row[j]
	mf.kl = mf.KLAt(mf.m, mf.s)
	mf.k++
	if mf.next = (j + 1) % d; mf.next == 0 {
		mf.last, mf.moved = mf.moved, 0
	}
	return nil
}

// M and S are the variational means and variances (views: do not modify).
func (mf *MeanField) M() []float64 { return mf.m }

// S is the vector of variational variances s_j (a view).
func (mf *MeanField) S() []float64 { return mf.s }

// Optimum returns the exact optimum's variances, s_j = 1/(Σ⁻¹)_jj (a fresh
// slice); the optimal means are μ.
func (mf *MeanField) Optimum() []float64 {
	out := make([]float64, mf.d)
	for j := range out {
		out[j] = 1 / mf.lam[j*mf.d+j]
	}
	return out
}

// Mu is the target's mean (a view).
func (mf *MeanField) Mu() []float64 { return mf.mu }

// KL is KL(q‖p) at the current q; the ELBO is −KL for the normalised target
// (log p(x) = 0).
func (mf *MeanField) KL() float64 { return mf.kl }

// Next is the coordinate the next Step updates; Updates the number made.
func (mf *MeanField) Next() int { return mf.next }

// Updates is the number of coordinate updates made.
func (mf *MeanField) Updates() int { return mf.k }

// Dim is the dimension.
func (mf *MeanField) Dim() int { return mf.d }
