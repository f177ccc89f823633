package gp

import (
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
)

// BLR is Bayesian linear regression on lines y = w₀ + w₁x + ε, ε ~ N(0, σ²),
// with the prior w ~ N(0, α⁻¹I): α is the prior *precision* (seed 003 L851
// calls α⁻¹ the precision; it is the variance: erratum 2 of the seed-003
// catalogue). With φ(x) = (1, x) the posterior is N(m, S) (seed 002 Ex 3.2,
// L986, and L1752):
//
//	S⁻¹ = αI + (1/σ²) Σ_n φ(x_n)φ(x_n)ᵀ,   m = S (1/σ²) Σ_n φ(x_n) y_n,
//
// and the predictive distribution of f(x) = φ(x)ᵀw is N(φ(x)ᵀm, φ(x)ᵀSφ(x)).
// The posterior is kept in natural parameters (S⁻¹ and S⁻¹m), which one
// observation updates by adding a rank-one term: sequential updating equals
// the batch posterior exactly, up to rounding. In function space this is
// the GP with kernel k(x, x') = φ(x)ᵀ(α⁻¹I)φ(x') = (1 + x x')/α (seed 002
// L1806; seed 003 L869), which Kernel returns.
type BLR struct {
	alpha, noise float64
	prec         [2][2]float64 // S⁻¹
	eta          [2]float64    // S⁻¹ m
	n            int
}

// NewBLR starts from the prior with precision alpha > 0 and noise variance
// noise > 0.
func NewBLR(alpha, noise float64) (*BLR, error) {
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, algo.BadParam("alpha", alpha, "a finite precision > 0")
	}
	if !(noise > 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite variance > 0")
	}
	return &BLR{alpha: alpha, noise: noise, prec: [2][2]float64{{alpha, 0}, {0, alpha}}}, nil
}

// Observe adds one observation (x, y).
func (b *BLR) Observe(x, y float64) {
	phi := [2]float64{1, x}
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			b.prec[i][j] += phi[i] * phi[j] / b.noise
		}
		b.eta[i] += phi[i] * y / b.noise
	}
	b.n++
}

// BatchBLR returns the posterior of all observations at once.
func BatchBLR(alpha, noise float64, x, y []float64) (*BLR, error) {
	b, err := NewBLR(alpha, noise)
	if err != nil {
		return nil, err
	}
	// ΦᵀΦ and Φᵀy summed directly, not by repeated Observe.
	var sx, sxx, sy, sxy float64
	for i, v := range x {
		sx += v
		sxx += v * v
		sy += y[i]
		sxy += v * y[i]
	}
	n := float64(len(x))
	b.prec = [2][2]float64{{alpha + n/noise, sx / noise}, {sx / noise, alpha + sxx/noise}}
	b.eta = [2]float64{sy / noise, sxy / noise}
	b.n = len(x)
	return b, nil
}

// N is the number of observations.
func (b *BLR) N() int { return b.n }

// Cov returns S = (S⁻¹)⁻¹ as (s00, s01, s11).
func (b *BLR) Cov() (s00, s01, s11 float64) {
	p := b.prec
	det := p[0][0]*p[1][1] - p[0][1]*p[1][0]
	return p[1][1] / det, -p[0][1] / det, p[0][0] / det
}

// Mean returns m = S S⁻¹m.
func (b *BLR) Mean() (m0, m1 float64) {
	s00, s01, s11 := b.Cov()
	return s00*b.eta[0] + s01*b.eta[1], s01*b.eta[0] + s11*b.eta[1]
}

// Predict returns the predictive mean and latent variance of f(x) = w₀ + w₁x.
func (b *BLR) Predict(x float64) (mean, variance float64) {
	m0, m1 := b.Mean()
	s00, s01, s11 := b.Cov()
	return m0 + m1*x, s00 + 2*s01*x + s11*x*x
}

// Kernel returns the equivalent GP kernel k(x, x') = (1 + x x')/α.
func (b *BLR) Kernel() kernel.Kernel {
	return kernel.Scaled{C: 1 / b.alpha, K: kernel.Poly{Degree: 1, Coef0: 1}}
}

// Noise returns σ².
func (b *BLR) Noise() float64 { return b.noise }
