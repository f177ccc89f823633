package kernel

import (
	"fmt"
	"math"
)

// Stationary kernels of Gaussian processes: functions of the distance
// r = ‖x − z‖ only (seed 002 Remark 4.14, L1895), in the notes' lengthscale
// convention and with unit variance, k(x, x) = 1; a GP's signal variance σ²
// multiplies them (Scaled). The squared exponential σ²exp(−r²/(2ℓ²))
// (4.25, L1902) is not repeated here: it is Scaled{σ², RBF{1/(2ℓ²)}}, the
// one Gaussian kernel of the lab (gp.Hyper.Kernel builds it so). Laplace
// with γ = 1/ℓ is Matérn ν = 1/2.
//
// Each is evaluated from the dot products like every kernel here, r² being
// ‖x‖² + ‖z‖² − 2⟨x, z⟩ floored at 0; on the real line r = |x − z|.

// RationalQuadratic is the rational quadratic kernel of seed 002 eq 4.26
// (L1908) with unit variance,
//
//	k(r) = (1 + r²/(2αℓ²))^(−α),
//
// a scale mixture of squared exponentials (footnote of L1922: the precision
// τ of exp(−τr²/2) drawn from a Gamma law of shape α and rate αℓ², mean
// ℓ⁻²; the footnote writes the density τ^(α−1)e^(−ατ/β), β⁻¹ = ℓ², without
// its normalising constant (αℓ²)^α/Γ(α), which the equality needs), hence
// a kernel for every α, ℓ > 0. As α → ∞ it tends to exp(−r²/(2ℓ²)).
type RationalQuadratic struct{ Alpha, Lengthscale float64 }

func (k RationalQuadratic) FromDot(xz, xx, zz float64) float64 {
	return math.Pow(1+sqDist(xz, xx, zz)/(2*k.Alpha*k.Lengthscale*k.Lengthscale), -k.Alpha)
}
func (k RationalQuadratic) String() string {
	return fmt.Sprintf("rq(α=%g,ℓ=%g)", k.Alpha, k.Lengthscale)
}

// Periodic is the periodic kernel of seed 002 eq 4.27 (L1914) with unit
// variance,
//
//	k(r) = exp(−2 sin²(π r/p)/ℓ²),
//
// in the notes' convention: ℓ² divides, with no factor 2 beside it (the
// seed-002 catalogue, D5), so ℓ is measured against the period, not in the
// units of x. Since 2sin²(θ/2) = 1 − cos θ, it is e^(−1/ℓ²)·exp(cos(2πr/p)/ℓ²),
// and on the real line cos(2π(x − z)/p) is the linear kernel of the
// features (cos 2πx/p, sin 2πx/p): a positive multiple of exp of a kernel,
// hence a kernel (Remark 4.15, L1931). k(x, x + p) = k(x, x) = 1: draws from
// it are p-periodic.
type Periodic struct{ Period, Lengthscale float64 }

func (k Periodic) FromDot(xz, xx, zz float64) float64 {
	s := math.Sin(math.Pi * math.Sqrt(sqDist(xz, xx, zz)) / k.Period)
	return math.Exp(-2 * s * s / (k.Lengthscale * k.Lengthscale))
}
func (k Periodic) String() string {
	return fmt.Sprintf("periodic(p=%g,ℓ=%g)", k.Period, k.Lengthscale)
}

// MaternNu is the smoothness ν of a Matérn kernel: the half-integers whose
// kernels have closed forms.
type MaternNu int

// The Matérn smoothnesses of Matern.
const (
	MaternHalf        MaternNu = 1 // ν = 1/2
	MaternThreeHalves MaternNu = 3 // ν = 3/2
	MaternFiveHalves  MaternNu = 5 // ν = 5/2
)

// Value is ν as a number.
func (n MaternNu) Value() float64 { return float64(n) / 2 }

// String is ν as a fraction, "3/2".
func (n MaternNu) String() string { return fmt.Sprintf("%d/2", int(n)) }

// Matern is the Matérn kernel of smoothness ν with unit variance,
//
//	k(r) = 2^(1−ν)/Γ(ν) · (√(2ν) r/ℓ)^ν · K_ν(√(2ν) r/ℓ)
//
// (K_ν the modified Bessel function of the second kind; Rasmussen &
// Williams 2006, eq 4.14: the notes do not have it), in its closed forms
// at the half-integers, with s = √(2ν) r/ℓ:
//
//	ν = 1/2:  e^(−s)                (the exponential kernel, Laplace{1/ℓ})
//	ν = 3/2:  (1 + s) e^(−s)
//	ν = 5/2:  (1 + s + s²/3) e^(−s)
//
// Its draws are ⌈ν⌉ − 1 times differentiable (ν = 1/2: continuous, nowhere
// differentiable, an Ornstein–Uhlenbeck path); as ν → ∞ it tends to the
// squared exponential.
type Matern struct {
	Nu          MaternNu
	Lengthscale float64
}

func (k Matern) FromDot(xz, xx, zz float64) float64 {
	r := math.Sqrt(sqDist(xz, xx, zz)) / k.Lengthscale
	switch k.Nu {
	case MaternHalf:
		return math.Exp(-r)
	case MaternThreeHalves:
		s := math.Sqrt(3) * r
		return (1 + s) * math.Exp(-s)
	case MaternFiveHalves:
		s := math.Sqrt(5) * r
		return (1 + s + s*s/3) * math.Exp(-s)
	}
	return math.NaN() // no other ν: the constructors of the callers refuse it
}
func (k Matern) String() string { return fmt.Sprintf("matérn(ν=%v,ℓ=%g)", k.Nu, k.Lengthscale) }
