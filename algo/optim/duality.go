package optim

import (
	"math"

	"github.com/thelab/lab/algo"
)

// DualAscent is projected gradient ascent on the dual of the toy of seed
// 003's duality interlude (L488–681, catalogue O1), with the target a
// and the bound c free (the notes' toy is a = 0, c = 1):
//
//	minimise f(w) = (w − a)²  subject to  g(w) = c − w ≤ 0.
//
// The generalised Lagrangian (L580) is L(w, α) = (w − a)² + α(c − w),
// α ≥ 0; its minimiser in w is w(α) = a + α/2, so the dual function
// (L614) is
//
//	θ_D(α) = min_w L(w, α) = α(c − a) − α²/4,
//
// concave, with θ_D′(α) = g(w(α)) (the constraint at the Lagrangian's
// minimiser). Weak duality (L625): θ_D(α) ≤ p* for every α ≥ 0, p* the
// primal optimum. Here f is convex and g affine, so strong duality holds
// (L644–659): max θ_D = p* = max(c − a, 0)², at α* = max(2(c − a), 0),
// w* = max(a, c), and the KKT conditions (L665–668) hold there: w* =
// w(α*), g(w*) ≤ 0, α* ≥ 0, α* g(w*) = 0 (an active constraint, c > a,
// has α* > 0 and g = 0; an inactive one α* = 0).
//
// One step is α ← max(0, α + η g(w(α))). On α > 0 it is the affine map
// α − α* ↦ (1 − η/2)(α − α*): it converges for 0 < η < 4, monotonically
// for η ≤ 2; for η > 4 it oscillates outward until the projection onto
// α ≥ 0 catches it in the cycle 0 ↔ η(c − a), which never settles.
//
// Errata of the notes avoided: L534 calls Fermat's condition necessary
// and sufficient (sufficient only for convex f, as here).
type DualAscent struct {
	a, c, eta, tol float64
	alpha          float64
	k              int
}

// NewDualAscent starts the ascent at alpha0 ≥ 0 with step eta > 0; it
// stops when a step moves α by at most tol.
func NewDualAscent(a, c, eta, alpha0, tol float64) (*DualAscent, error) {
	switch {
	case !algo.Finite(a):
		return nil, algo.BadParam("a", a, "finite")
	case !algo.Finite(c):
		return nil, algo.BadParam("c", c, "finite")
	case !(eta > 0) || !algo.Finite(eta):
		return nil, algo.BadParam("eta", eta, "positive")
	case !(alpha0 >= 0) || !algo.Finite(alpha0):
		return nil, algo.BadParam("alpha0", alpha0, "≥ 0")
	case !(tol >= 0) || !algo.Finite(tol):
		return nil, algo.BadParam("tol", tol, "≥ 0")
	}
	return &DualAscent{a: a, c: c, eta: eta, tol: tol, alpha: alpha0}, nil
}

// Step takes one projected ascent step; it returns algo.ErrConverged
// when the step moved α by at most tol.
func (d *DualAscent) Step() error {
	next := math.Max(0, d.alpha+d.eta*d.G(d.W(d.alpha)))
	moved := math.Abs(next - d.alpha)
	d.alpha = next
	d.k++
	if moved <= d.tol {
		return algo.ErrConverged
	}
	return nil
}

// Alpha is the current multiplier α.
func (d *DualAscent) Alpha() float64 { return d.alpha }

// Steps is the steps taken.
func (d *DualAscent) Steps() int { return d.k }

// W is the Lagrangian's minimiser w(α) = a + α/2.
func (d *DualAscent) W(alpha float64) float64 { return d.a + alpha/2 }

// F is the objective (w − a)².
func (d *DualAscent) F(w float64) float64 { return (w - d.a) * (w - d.a) }

// G is the constraint c − w (≤ 0 when w is admissible).
func (d *DualAscent) G(w float64) float64 { return d.c - w }

// L is the Lagrangian (w − a)² + α(c − w).
func (d *DualAscent) L(w, alpha float64) float64 { return d.F(w) + alpha*d.G(w) }

// Dual is θ_D(α) = α(c − a) − α²/4.
func (d *DualAscent) Dual(alpha float64) float64 { return alpha*(d.c-d.a) - alpha*alpha/4 }

// Optimum is the closed-form solution: the primal w*, p* = f(w*) and the
// multiplier α*.
func (d *DualAscent) Optimum() (w, p, alpha float64) {
	w = math.Max(d.a, d.c)
	return w, d.F(w), math.Max(2*(d.c-d.a), 0)
}
