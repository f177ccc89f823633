package flow

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// Triangular is the increasing triangular map of the plane ([A25](b),
// L1376–L1384)
//
//	T₁(z₁)     = z₁ + β tanh z₁
//	T₂(z₁, z₂) = z₂ + β tanh z₂ + c z₁²
//
// with ∂T_i/∂z_i = 1 + β sech² z_i > 0 for β > −1: det ∇T is the product
// of the diagonal, and the inverse is found coordinate by coordinate by
// bisection (L1382).
type Triangular struct{ Beta, C float64 }

// NewTriangular refuses β ≤ −1: ∂T_i/∂z_i = 1 + β sech² z_i vanishes at
// z_i = 0 for β = −1 and is negative there below, so T is not increasing
// and has no inverse.
func NewTriangular(beta, c float64) (Triangular, error) {
	if !(beta > -1) || math.IsInf(beta, 0) {
		return Triangular{}, algo.BadParam("beta", beta,
			"> −1: ∂T_i/∂z_i = 1 + β sech² z_i must stay positive for T to be increasing and invertible")
	}
	if !algo.Finite(c) {
		return Triangular{}, algo.BadParam("c", c, "a finite number")
	}
	return Triangular{Beta: beta, C: c}, nil
}

// Coord is T_i at z (i = 0 or 1).
func (t Triangular) Coord(i int, z [2]float64) float64 {
	if i == 0 {
		return z[0] + t.Beta*math.Tanh(z[0])
	}
	return z[1] + t.Beta*math.Tanh(z[1]) + t.C*z[0]*z[0]
}

// Map is T(z).
func (t Triangular) Map(z [2]float64) [2]float64 { return [2]float64{t.Coord(0, z), t.Coord(1, z)} }

// LogDet is log det ∇T(z) = Σ log(1 + β sech² z_i).
func (t Triangular) LogDet(z [2]float64) float64 {
	s := 0.0
	for _, v := range z {
		c := 1 / math.Cosh(v)
		s += math.Log1p(t.Beta * c * c)
	}
	return s
}

// Density is p(x) = r(T⁻¹x)/det ∇T(T⁻¹x) for r = N(0, I), with T⁻¹ by
// bisection to machine precision.
func (t Triangular) Density(x [2]float64) float64 {
	z := t.Inverse(x)
	return math.Exp(-0.5*(z[0]*z[0]+z[1]*z[1]) - log2Pi - t.LogDet(z))
}

// Inverse solves T(z) = x to machine precision.
func (t Triangular) Inverse(x [2]float64) [2]float64 {
	b := NewBisection(t, x, 0)
	for b.Step() == nil {
	}
	return b.Z
}

// Bisection inverts a Triangular map one halving at a time ([A27]):
// coordinate 1 first, then coordinate 2 with z₁ fixed, since T₂ depends on
// the solved z₁. Each coordinate's bracket is found by doubling outwards
// from [−1, 1] until T_i changes sign about x_i, which strict
// monotonicity guarantees.
type Bisection struct {
	t      Triangular
	X      [2]float64 // the target
	Z      [2]float64 // the current estimate (bracket midpoints; solved coordinates)
	Lo, Hi float64    // the current coordinate's bracket
	I      int        // the coordinate being solved; 2 when done
	tol    float64
	Halves [2]int // halvings spent on each coordinate
}

// NewBisection starts inverting t at x, stopping each coordinate when its
// bracket is below tol (0: until the bracket cannot shrink in floating
// point).
func NewBisection(t Triangular, x [2]float64, tol float64) *Bisection {
	b := &Bisection{t: t, X: x, tol: tol}
	b.bracket()
	return b
}

// f is T_i(z with z_i = v) − x_i.
func (b *Bisection) f(v float64) float64 {
	z := b.Z
	z[b.I] = v
	return b.t.Coord(b.I, z) - b.X[b.I]
}

func (b *Bisection) bracket() {
	lo, hi := -1.0, 1.0
	for b.f(lo) > 0 {
		lo *= 2
	}
	for b.f(hi) < 0 {
		hi *= 2
	}
	b.Lo, b.Hi = lo, hi
	b.Z[b.I] = 0.5 * (lo + hi)
}

// Step halves the current bracket; it returns algo.ErrConverged when both
// coordinates are solved.
func (b *Bisection) Step() error {
	if b.I == 2 {
		return algo.ErrConverged
	}
	mid := 0.5 * (b.Lo + b.Hi)
	if b.f(mid) < 0 {
		b.Lo = mid
	} else {
		b.Hi = mid
	}
	b.Halves[b.I]++
	next := 0.5 * (b.Lo + b.Hi)
	b.Z[b.I] = next
	if b.Hi-b.Lo <= b.tol || next == b.Lo || next == b.Hi {
		b.I++
		if b.I == 2 {
			return algo.ErrConverged
		}
		b.bracket()
	}
	return nil
}

// Residual is ‖T(Z) − X‖∞.
func (b *Bisection) Residual() float64 {
	tz := b.t.Map(b.Z)
	return math.Max(math.Abs(tz[0]-b.X[0]), math.Abs(tz[1]-b.X[1]))
}

func (t Triangular) String() string {
	return fmt.Sprintf("T₁ = z₁ + %.3g tanh z₁, T₂ = z₂ + %.3g tanh z₂ + %.3g z₁²", t.Beta, t.Beta, t.C)
}
