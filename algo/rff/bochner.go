package rff

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Spectral names the shift-invariant kernel of a Bochner estimate.
type Spectral string

const (
	// GaussSpectral is k(δ) = exp(−γ‖δ‖²), spectral density N(0, 2γI)
	// (seed 004 L57).
	GaussSpectral Spectral = "rbf"
	// LaplaceSpectral is the product Laplace kernel k(δ) = exp(−γ‖δ‖₁),
	// whose spectral density is a product of Cauchy(0, γ) densities
	// (seed-003/004 catalogue R1: "for the Laplacian e^{−|δ|} in 1-D, Ω is
	// the standard Cauchy"). Its frequencies have no variance, yet the
	// estimate cos(wᵀδ) stays bounded, so the estimator keeps its 1/√m
	// rate (seed 004 L68: "X_i is iid and bounded").
	LaplaceSpectral Spectral = "laplace"
)

// String is the kernel's name.
func (s Spectral) String() string { return string(s) }

// Bochner is the Monte Carlo estimate of a shift-invariant kernel value
// k(x, y) = f(δ), δ = x − y, from Bochner's theorem (seed 004 L53–66; seed
// 000 Theorem 4.2): f(δ) = E_{w∼Ω}[cos(wᵀδ)] with Ω the kernel's spectral
// density, so
//
//	K̂_m = (1/m) Σ_{i≤m} cos(w_iᵀδ),  w_i iid ~ Ω,
//
// is unbiased ("unbiased estimation of the original kernel", L64) with
// variance Var_1/m, Var_1 = Var cos(wᵀδ) = (1 + f(2δ))/2 − f(δ)² (from
// cos² = (1 + cos 2·)/2). One Step draws one frequency.
type Bochner struct {
	kind  Spectral
	gamma float64
	delta []float64
	rng   *rand.Rand
	w     []float64
	m     int
	mean  float64 // running mean of cos(wᵀδ)
	m2    float64 // Welford's sum of squared deviations
	last  float64 // cos(wᵀδ) of the last draw
}

// NewBochner estimates the kernel value at δ (copied).
func NewBochner(kind Spectral, gamma float64, delta []float64, rng *rand.Rand) (*Bochner, error) {
	if kind != GaussSpectral && kind != LaplaceSpectral {
		return nil, algo.BadParam("kernel", kind, fmt.Sprintf("one of %v", []Spectral{GaussSpectral, LaplaceSpectral}))
	}
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return nil, algo.BadParam("gamma", gamma, "a finite number > 0")
	}
	if len(delta) == 0 {
		return nil, algo.BadParam("d", 0, "at least 1")
	}
	for _, v := range delta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, algo.BadParam("r", delta, "finite")
		}
	}
	return &Bochner{kind: kind, gamma: gamma, delta: append([]float64(nil), delta...), rng: rng, w: make([]float64, len(delta))}, nil
}

// Kernel returns f(δ') for any displacement δ'.
func (b *Bochner) Kernel(delta []float64) float64 {
	s := 0.0
	for _, v := range delta {
		if b.kind == GaussSpectral {
			s += v * v
		} else {
			s += math.Abs(v)
		}
	}
	return math.Exp(-b.gamma * s)
}

// Exact is f(δ).
func (b *Bochner) Exact() float64 { return b.Kernel(b.delta) }

// Var1 is the variance of one term, (1 + f(2δ))/2 − f(δ)².
func (b *Bochner) Var1() float64 {
	d2 := make([]float64, len(b.delta))
	for i, v := range b.delta {
		d2[i] = 2 * v
	}
	k := b.Exact()
	return (1+b.Kernel(d2))/2 - k*k
}

// Density is the spectral density of one coordinate of w at t: N(0, 2γ)
// or Cauchy(0, γ).
func (b *Bochner) Density(t float64) float64 {
	if b.kind == GaussSpectral {
		v := 2 * b.gamma
		return math.Exp(-t*t/(2*v)) / math.Sqrt(2*math.Pi*v)
	}
	return b.gamma / (math.Pi * (b.gamma*b.gamma + t*t))
}

// Step draws one frequency and updates the estimate.
func (b *Bochner) Step() error {
	for i := range b.w {
		if b.kind == GaussSpectral {
			b.w[i] = math.Sqrt(2*b.gamma) * b.rng.NormFloat64()
		} else {
			b.w[i] = b.gamma * math.Tan(math.Pi*(b.rng.Float64()-0.5))
		}
	}
	v := math.Cos(dot(b.w, b.delta))
	b.last = v
	b.m++
	d := v - b.mean
	b.mean += d / float64(b.m)
	b.m2 += d * (v - b.mean)
	return nil
}

// M is the number of frequencies drawn.
func (b *Bochner) M() int { return b.m }

// Estimate is K̂_m.
func (b *Bochner) Estimate() float64 { return b.mean }

// W returns the last frequency (a view).
func (b *Bochner) W() []float64 { return b.w }

// SampleSD is the sample standard deviation of the terms cos(w_iᵀδ) (0
// before two draws).
func (b *Bochner) SampleSD() float64 {
	if b.m < 2 {
		return 0
	}
	return math.Sqrt(b.m2 / float64(b.m-1))
}
