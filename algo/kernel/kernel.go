// Package kernel holds the positive-definite kernels every kernel method of
// the lab shares (linear, polynomial, Gaussian RBF, their sums, products,
// scalings, exponentials and positive polynomials), their Gram matrices,
// and the engines that use nothing but a Gram matrix: the dual (kernel)
// perceptron, kernel ridge regression by Cholesky, conjugate gradients and
// gradient descent, kernel PCA, and the positive-semidefiniteness check.
//
// Conventions (the lab's, stated once):
//
//	linear    k(x, z) = ⟨x, z⟩
//	poly      k(x, z) = (⟨x, z⟩ + coef0)^degree
//	rbf       k(x, z) = exp(−γ‖x − z‖²)
//
// The notes parametrise the Gaussian kernel differently: seed 001 §7
// Example 7.7 (L695) writes exp(−‖x − z‖²/σ), so γ = 1/σ there (erratum E7
// of the seed-001 catalogue: σ divides directly, not 2σ²); seeds 000 (4.19,
// L1559) and 003 (L881) write exp(−‖x − z‖²/(2σ²)), so γ = 1/(2σ²).
//
// Every kernel here is a function of ⟨x, z⟩, ‖x‖² and ‖z‖² only (the
// squared distance being ‖x‖² + ‖z‖² − 2⟨x, z⟩), which lets a Gram matrix
// be built from one matrix product.
package kernel

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// Kernel is a function k(x, z) on R^d × R^d.
type Kernel interface {
	// FromDot returns k(x, z) given xz = ⟨x, z⟩, xx = ‖x‖² and zz = ‖z‖².
	FromDot(xz, xx, zz float64) float64
	// String names the kernel and its parameters, e.g. "rbf(γ=0.5)".
	String() string
}

// Eval returns k(x, z).
func Eval(k Kernel, x, z []float64) float64 {
	return k.FromDot(dot(x, z), dot(x, x), dot(z, z))
}

// dot is ⟨x, z⟩ with four accumulators, which keeps the multiply-adds
// from waiting on one another.
func dot(x, z []float64) float64 {
	var s0, s1, s2, s3 float64
	n := len(x)
	z = z[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += x[i] * z[i]
		s1 += x[i+1] * z[i+1]
		s2 += x[i+2] * z[i+2]
		s3 += x[i+3] * z[i+3]
	}
	for ; i < n; i++ {
		s0 += x[i] * z[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// sqDist is ‖x − z‖² from the dot products, floored at zero against
// cancellation.
func sqDist(xz, xx, zz float64) float64 {
	d := xx + zz - 2*xz
	if d < 0 { // a branch, which inlines (math.Max does not on amd64)
		return 0
	}
	return d
}

// Linear is k(x, z) = ⟨x, z⟩.
type Linear struct{}

func (Linear) FromDot(xz, _, _ float64) float64 { return xz }
func (Linear) String() string                   { return "linear" }

// Poly is k(x, z) = (⟨x, z⟩ + Coef0)^Degree. With Coef0 ≥ 0 it is a
// positive polynomial of the linear kernel, hence a kernel (seed 000 §4.5).
type Poly struct {
	Degree int
	Coef0  float64
}

func (k Poly) FromDot(xz, _, _ float64) float64 { return powi(xz+k.Coef0, k.Degree) }
func (k Poly) String() string                   { return fmt.Sprintf("poly(p=%d,c=%g)", k.Degree, k.Coef0) }

// powi is x^n for a small non-negative integer n, by repeated squaring.
func powi(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}

// RBF is the Gaussian kernel k(x, z) = exp(−Gamma‖x − z‖²); see the package
// comment for the notes' σ conventions.
type RBF struct{ Gamma float64 }

func (k RBF) FromDot(xz, xx, zz float64) float64 { return math.Exp(-k.Gamma * sqDist(xz, xx, zz)) }
func (k RBF) String() string                     { return fmt.Sprintf("rbf(γ=%g)", k.Gamma) }

// Laplace is k(x, z) = exp(−Gamma‖x − z‖), a kernel for every Gamma > 0
// (seed 001 Example 7.7, L696, with Gamma = 1/σ).
type Laplace struct{ Gamma float64 }

func (k Laplace) FromDot(xz, xx, zz float64) float64 {
	return math.Exp(-k.Gamma * math.Sqrt(sqDist(xz, xx, zz)))
}
func (k Laplace) String() string { return fmt.Sprintf("laplace(γ=%g)", k.Gamma) }

// Sum is k₁ + k₂, a kernel when both are (seed 003 L412).
type Sum struct{ A, B Kernel }

func (k Sum) FromDot(xz, xx, zz float64) float64 {
	return k.A.FromDot(xz, xx, zz) + k.B.FromDot(xz, xx, zz)
}
func (k Sum) String() string { return k.A.String() + " + " + k.B.String() }

// Product is k₁·k₂, a kernel when both are (the Schur product theorem; seed
// 003 L413, seed 000 §4.5).
type Product struct{ A, B Kernel }

func (k Product) FromDot(xz, xx, zz float64) float64 {
	return k.A.FromDot(xz, xx, zz) * k.B.FromDot(xz, xx, zz)
}
func (k Product) String() string { return "(" + k.A.String() + ")·(" + k.B.String() + ")" }

// Scaled is c·k. It is a kernel only for c ≥ 0: the notes omit the sign
// condition (seed 003 L414; erratum 4 of the seed-003 catalogue), and a
// negative c makes every Gram matrix negative semidefinite.
type Scaled struct {
	C float64
	K Kernel
}

func (k Scaled) FromDot(xz, xx, zz float64) float64 { return k.C * k.K.FromDot(xz, xx, zz) }
func (k Scaled) String() string                     { return fmt.Sprintf("%g·%s", k.C, k.K) }

// Exp is exp(k(x, z)), the limit of the positive polynomials Σ k^p/p!, hence
// a kernel when k is (seed 002 Remark 4.15, L1931).
type Exp struct{ K Kernel }

func (k Exp) FromDot(xz, xx, zz float64) float64 { return math.Exp(k.K.FromDot(xz, xx, zz)) }
func (k Exp) String() string                     { return "exp(" + k.K.String() + ")" }

// PolyOf is Σ_p Coeffs[p]·k^p, a kernel when every coefficient is ≥ 0 and
// k is a kernel (seed 000 §4.5, L1548–1553).
type PolyOf struct {
	Coeffs []float64
	K      Kernel
}

func (k PolyOf) FromDot(xz, xx, zz float64) float64 {
	v := k.K.FromDot(xz, xx, zz)
	s := 0.0
	for p := len(k.Coeffs) - 1; p >= 0; p-- { // Horner
		s = s*v + k.Coeffs[p]
	}
	return s
}
func (k PolyOf) String() string { return fmt.Sprintf("poly%v(%s)", k.Coeffs, k.K) }

// Distance is ‖x − z‖. It is NOT a positive-definite kernel: its Gram matrix
// has a zero diagonal, hence trace zero, so with two distinct points it has
// a negative eigenvalue (seed-003 catalogue, K4). It is here as the
// negative control of the PSD check.
type Distance struct{}

func (Distance) FromDot(xz, xx, zz float64) float64 { return math.Sqrt(sqDist(xz, xx, zz)) }
func (Distance) String() string                     { return "‖x−z‖ (not a kernel)" }

// Sigmoid is tanh(A⟨x, z⟩ + C), the "sigmoid kernel", which is not positive
// semidefinite in general (seed 000 §4.4 demo; seed 001 [A12]).
type Sigmoid struct{ A, C float64 }

func (k Sigmoid) FromDot(xz, _, _ float64) float64 { return math.Tanh(k.A*xz + k.C) }
func (k Sigmoid) String() string                   { return fmt.Sprintf("tanh(%g⟨x,z⟩%+g) (not a kernel)", k.A, k.C) }

// Kind names a kernel of New: sum is rbf + poly and product is rbf·poly,
// with the same parameters.
type Kind string

// The kernels of New.
const (
	KindLinear  Kind = "linear"
	KindPoly    Kind = "poly"
	KindRBF     Kind = "rbf"
	KindSum     Kind = "sum"
	KindProduct Kind = "product"
)

// String is the kernel's name.
func (k Kind) String() string { return string(k) }

// kinds are the kernels New knows.
var kinds = []Kind{KindLinear, KindPoly, KindRBF, KindSum, KindProduct}

// Spec is a kernel of New with its parameters.
type Spec struct {
	Name   Kind
	Degree int     // poly: degree p in 1..MaxDegree
	Coef0  float64 // poly: offset c ≥ 0
	Gamma  float64 // rbf: γ > 0
}

// MaxDegree is the largest polynomial degree accepted.
const MaxDegree = 10

// New validates s and builds the kernel, or returns an algo.ParamError
// naming the parameter at fault.
func New(s Spec) (Kernel, error) {
	poly := func() (Kernel, error) {
		if s.Degree < 1 || s.Degree > MaxDegree {
			return nil, algo.BadParam("degree", s.Degree, fmt.Sprintf("in 1..%d", MaxDegree))
		}
		if !(s.Coef0 >= 0) || math.IsInf(s.Coef0, 0) {
			return nil, algo.BadParam("coef0", s.Coef0, "a finite number ≥ 0 (a negative offset breaks positive definiteness)")
		}
		return Poly{Degree: s.Degree, Coef0: s.Coef0}, nil
	}
	rbf := func() (Kernel, error) {
		if !(s.Gamma > 0) || math.IsInf(s.Gamma, 0) {
			return nil, algo.BadParam("gamma", s.Gamma, "a finite number > 0")
		}
		return RBF{Gamma: s.Gamma}, nil
	}
	switch s.Name {
	case KindLinear:
		return Linear{}, nil
	case KindPoly:
		return poly()
	case KindRBF:
		return rbf()
	case KindSum, KindProduct:
		a, err := rbf()
		if err != nil {
			return nil, err
		}
		b, err := poly()
		if err != nil {
			return nil, err
		}
		if s.Name == KindSum {
			return Sum{a, b}, nil
		}
		return Product{a, b}, nil
	}
	return nil, algo.BadParam("kernel", string(s.Name), fmt.Sprintf("one of %v", kinds))
}

// QuadFeatures is the explicit feature map of the kernel (⟨x, z⟩)² + 1 on
// R²: Φ(x) = (1, x₁², x₂², √2 x₁x₂), so that ⟨Φ(x), Φ(z)⟩ = ⟨x, z⟩² + 1
// (seed 003 L207–210 with the bias coordinate x₀ = 1 of L64; seed-003
// catalogue K2). It panics unless len(x) == 2.
func QuadFeatures(x []float64) []float64 {
	return []float64{1, x[0] * x[0], x[1] * x[1], math.Sqrt2 * x[0] * x[1]}
}
