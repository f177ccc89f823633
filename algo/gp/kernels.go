package gp

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
)

// Family names a covariance function of the GP kernel zoo (seed 002 §4.4,
// L1895–1931; the seed-002 catalogue, D5).
type Family string

// The kernels of the zoo, each σ² times a unit-variance correlation c(r)
// of the distance r = |x − x′| (package kernel's stationary kernels).
const (
	FamilySE              Family = "se"               // exp(−r²/(2ℓ²)), eq 4.25
	FamilyRQ              Family = "rq"               // (1 + r²/(2αℓ²))^(−α), eq 4.26
	FamilyPeriodic        Family = "periodic"         // exp(−2sin²(πr/p)/ℓ²), eq 4.27
	FamilyLocallyPeriodic Family = "locally-periodic" // SE × periodic with one ℓ, eq 4.28
	FamilyMatern12        Family = "matern12"         // Matérn ν = 1/2: e^(−r/ℓ)
	FamilyMatern32        Family = "matern32"         // Matérn ν = 3/2
	FamilyMatern52        Family = "matern52"         // Matérn ν = 5/2
)

func (f Family) String() string { return string(f) }

// Families are the kernels of the zoo.
var Families = []Family{FamilySE, FamilyRQ, FamilyPeriodic, FamilyLocallyPeriodic,
	FamilyMatern12, FamilyMatern32, FamilyMatern52}

// Combine says how Zoo joins its two kernels (Remark 4.15, L1931: sums and
// products of kernels are kernels).
type Combine string

// The combinations of Zoo.
const (
	CombineNone    Combine = "none"    // the first kernel alone
	CombineSum     Combine = "sum"     // k₁ + k₂ = σ²(c₁ + c₂): variance 2σ²
	CombineProduct Combine = "product" // σ²·c₁·c₂ (= k₁k₂/σ²): variance σ²
)

func (c Combine) String() string { return string(c) }

// Combines are the combinations of Zoo.
var Combines = []Combine{CombineNone, CombineSum, CombineProduct}

// Zoo is a kernel of the zoo with its hyperparameters, or two joined by
// Combine, which then share them: one lengthscale ℓ, as the SE and the
// periodic factor of the locally periodic kernel share it in eq 4.28, so
// that se·periodic is exactly locally-periodic. Alpha is read by rq,
// Period by the periodic kernels.
type Zoo struct {
	First, Second Family
	Combine       Combine
	Lengthscale   float64 // ℓ > 0
	Variance      float64 // σ² > 0
	Alpha         float64 // α > 0 of rq
	Period        float64 // p > 0 of the periodic kernels
}

// Kernel validates z and builds its kernel, or returns an algo.ParamError
// naming the field at fault (lengthscale, variance, alpha, period, kernel,
// second, combine).
func (z Zoo) Kernel() (kernel.Kernel, error) {
	positive := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return algo.BadParam(name, v, "a finite number > 0")
		}
		return nil
	}
	if err := positive("lengthscale", z.Lengthscale); err != nil {
		return nil, err
	}
	if err := positive("variance", z.Variance); err != nil {
		return nil, err
	}
	uses := func(f Family) bool { return z.First == f || (z.Combine != CombineNone && z.Second == f) }
	if uses(FamilyRQ) {
		if err := positive("alpha", z.Alpha); err != nil {
			return nil, err
		}
	}
	if uses(FamilyPeriodic) || uses(FamilyLocallyPeriodic) {
		if err := positive("period", z.Period); err != nil {
			return nil, err
		}
	}
	first, err := z.unit(z.First, "kernel")
	if err != nil {
		return nil, err
	}
	var c kernel.Kernel
	switch z.Combine {
	case CombineNone:
		c = first
	case CombineSum, CombineProduct:
		second, err := z.unit(z.Second, "second")
		if err != nil {
			return nil, err
		}
		if z.Combine == CombineSum {
			c = kernel.Sum{A: first, B: second}
		} else {
			c = kernel.Product{A: first, B: second}
		}
	default:
		return nil, algo.BadParam("combine", string(z.Combine), fmt.Sprintf("one of %v", Combines))
	}
	return kernel.Scaled{C: z.Variance, K: c}, nil
}

// unit is the unit-variance correlation c of family f; name is the field
// to blame for an unknown family.
func (z Zoo) unit(f Family, name string) (kernel.Kernel, error) {
	l := z.Lengthscale
	switch f {
	case FamilySE:
		return kernel.RBF{Gamma: 1 / (2 * l * l)}, nil
	case FamilyRQ:
		return kernel.RationalQuadratic{Alpha: z.Alpha, Lengthscale: l}, nil
	case FamilyPeriodic:
		return kernel.Periodic{Period: z.Period, Lengthscale: l}, nil
	case FamilyLocallyPeriodic:
		return kernel.Product{A: kernel.RBF{Gamma: 1 / (2 * l * l)}, B: kernel.Periodic{Period: z.Period, Lengthscale: l}}, nil
	case FamilyMatern12:
		return kernel.Matern{Nu: kernel.MaternHalf, Lengthscale: l}, nil
	case FamilyMatern32:
		return kernel.Matern{Nu: kernel.MaternThreeHalves, Lengthscale: l}, nil
	case FamilyMatern52:
		return kernel.Matern{Nu: kernel.MaternFiveHalves, Lengthscale: l}, nil
	}
	return nil, algo.BadParam(name, string(f), fmt.Sprintf("one of %v", Families))
}
