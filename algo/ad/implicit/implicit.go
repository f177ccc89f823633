// Package implicit differentiates through the solution of an equation
// instead of through the iterations that found it (seed 000 §1.8): Heron's
// square root unrolled against the implicit function theorem, the circle
// where the theorem fails, implicit JVPs and VJPs sharing one LU
// factorisation, and the sensitivity of a linear program's solution to its
// right-hand side through the KKT system.
package implicit

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad"
)

// ErrIFTFails is wrapped by every error raised because the implicit
// function theorem's hypothesis — ∂₁F(w*, λ) invertible (Theorem 1.2; the
// notes' "≠ 0" means "invertible" in several dimensions, erratum 29) —
// does not hold at the point.
var ErrIFTFails = errors.New("the implicit function theorem does not apply")

type iftError string

func (e iftError) Error() string        { return "IFT does not apply: " + string(e) }
func (e iftError) Is(target error) bool { return target == ErrIFTFails }

func iftFails(format string, args ...any) error { return iftError(fmt.Sprintf(format, args...)) }

// Heron iterates x_{k+1} = g(x_k, a) = ½(x_k + a/x_k) (eq 1.42), whose
// fixed point is x* = √a, carrying two derivatives of x with respect to a:
//
//   - Unrolled: the dual-number tangent pushed through every iteration
//     (forward-mode AD of the loop, "the requirements of unrolling",
//     L539);
//   - IFT: the implicit-function-theorem derivative at the current iterate,
//     dx*/da = −(∂₁F)⁻¹ ∂₂F with F(x, a) = x − g(x, a), so ∂₁F =
//     ½(1 + a/x²), ∂₂F = −1/(2x) and dx*/da = (1/x)/(1 + a/x²), which is
//     1/(2√a) at x = √a.
//
// Both converge to 1/(2√a); the IFT derivative needs no history and is
// already accurate to the iterate's own error (catalogue §1.9: from x₀ = 1,
// a = 2, the unrolled errors are 1.46e-1, 7.6e-3, 1.3e-5, 1.8e-11, 0 and
// the IFT errors 6.1e-4, 5.3e-7, 4.0e-13, 5.6e-17).
type Heron struct {
	a ad.Dual // (a | 1): the parameter, seeded
	x ad.Dual // (x_k | dx_k/da)
	k int
}

// NewHeron starts at x₀ for √a. It needs a > 0 (at a = 0 the derivative
// 1/(2√a) is infinite) and x₀ > 0 (x₀ = 0 divides by zero; x₀ < 0 converges
// to −√a), both finite, and x₀ not so small that the first iteration's
// derivative of a/x, −a/x₀², overflows (x₀ below about √a·7.5e-155, or
// x₀² underflows to 0): the iteration would then fail at once, or from a
// denormal x₀ jump to +Inf and stop there as if converged.
func NewHeron(a, x0 float64) (*Heron, error) {
	if !(a > 0) || math.IsInf(a, 0) {
		return nil, algo.BadParam("a", a, "a finite number > 0")
	}
	if !(x0 > 0) || math.IsInf(x0, 0) {
		return nil, algo.BadParam("x0", x0, "a finite number > 0")
	}
	if math.IsInf(a/(x0*x0), 0) {
		least := math.Max(math.Sqrt(a/math.MaxFloat64), math.Sqrt(math.SmallestNonzeroFloat64))
		return nil, algo.BadParam("x0", x0, fmt.Sprintf("at least about %.2g for a = %g: a/x₀² must be finite", least, a))
	}
	return &Heron{a: ad.Dual{V: a, D: 1}, x: ad.Dual{V: x0}}, nil
}

// Step takes one iteration in dual arithmetic. It returns algo.ErrConverged
// once an iteration leaves x unchanged (x is then √a to rounding).
func (h *Heron) Step() error {
	q, err := ad.ApplyDual(ad.Div, h.a, h.x)
	if err != nil {
		return err
	}
	s, _ := ad.ApplyDual(ad.Add, h.x, q)
	next, _ := ad.ApplyDual(ad.Mul, ad.Dual{V: 0.5}, s)
	same := next.V == h.x.V
	h.x = next
	h.k++
	if same {
		return algo.ErrConverged
	}
	return nil
}

// K is the number of iterations taken.
func (h *Heron) K() int { return h.k }

// X is the current iterate x_k.
func (h *Heron) X() float64 { return h.x.V }

// Unrolled is dx_k/da carried through the iterations by dual numbers.
func (h *Heron) Unrolled() float64 { return h.x.D }

// IFT is −(∂₁F)⁻¹∂₂F = (1/x)/(1 + a/x²) at (x_k, a).
func (h *Heron) IFT() float64 {
	x, a := h.x.V, h.a.V
	return (1 / x) / (1 + a/(x*x))
}

// Exact is 1/(2√a).
func (h *Heron) Exact() float64 { return 0.5 / math.Sqrt(h.a.V) }

// CircleSlope is Example 1.1: on x² + y² = 1, F(y, x) = x² + y² − 1 defines
// y*(x) near (x, y) with slope dy/dx = −∂₂F/∂₁F = −x/y, the branch y⁺ or y⁻
// chosen by the sign of y. At y = 0, ∂₁F = 2y = 0 and the error wraps
// ErrIFTFails. A point farther than tol from the circle is a ParamError.
func CircleSlope(x, y, tol float64) (float64, error) {
	if r := x*x + y*y - 1; !(math.Abs(r) <= tol) {
		return 0, algo.BadParam("(x, y)", fmt.Sprintf("(%g, %g)", x, y), fmt.Sprintf("on the unit circle (|x² + y² − 1| ≤ %g)", tol))
	}
	if y == 0 {
		return 0, iftFails("∂F/∂y = 2y = 0 at (%g, 0): the circle is vertical there", x)
	}
	return -x / y, nil
}
