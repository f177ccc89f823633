// Package pushforward holds the push-forward of seed 002 §1.3 (L136–194):
// a source distribution P_X, a map T, and the law of Y = T(X), whose density
// the change-of-variables theorem gives when T is a diffeomorphism,
//
//	p_Y(y) = p_X(T⁻¹(y)) |det ∇_y T⁻¹(y)|   (Thm 1.1, eq 1.5),
//
// and which is in general (T_# P_X)(A) = P_X(T⁻¹(A)) (eq 1.6). For a map
// that is only piecewise invertible, such as x² (Ex 1.3), the density is the
// sum of (1.5) over the branches of T⁻¹. Inverse-CDF sampling is the special
// case X ~ U(0, 1), T = F⁻¹: the push-forward is the law with CDF F.
package pushforward

import (
	"fmt"
	"math"
)

// Map is a measurable map T: ℝ → ℝ with its inverse branches.
type Map interface {
	// Name is the map's name (its MapKind's).
	Name() string
	// Formula is T(x) in short, e.g. "x²".
	Formula() string
	// Apply returns T(x).
	Apply(x float64) float64
	// Domain is the open interval on which T is defined.
	Domain() (lo, hi float64)
	// Range is the smallest interval holding T(Domain).
	Range() (lo, hi float64)
	// Branches writes the preimages x_i of y, one per branch of T⁻¹, and
	// the Jacobians |dx_i/dy| into xs and js (length ≥ 2), and returns how
	// many there are (0 when y is outside the range).
	Branches(y float64, xs, js []float64) int
	// CDF returns P(T(X) ≤ y) for a continuous X with CDF F: the mass of
	// the preimage of (−∞, y] (eq 1.6).
	CDF(y float64, F func(float64) float64) float64
}

// MapKind names a map of NewMap.
type MapKind string

// The maps: x² (Ex 1.3), a·x + b, eˣ, tanh x, Example 1.2's T(1) = a,
// T(2) = T(3) = b, and three quantile functions (inverse-CDF sampling from a
// uniform source).
const (
	MapSquare         MapKind = "square"
	MapAffine         MapKind = "affine"
	MapExp            MapKind = "exp"
	MapTanh           MapKind = "tanh"
	MapEx12           MapKind = "ex1.2"
	MapExpQuantile    MapKind = "exp-quantile"
	MapNormalQuantile MapKind = "normal-quantile"
	MapCauchyQuantile MapKind = "cauchy-quantile"
)

// String is the map's name.
func (k MapKind) String() string { return string(k) }

// mapKinds are the maps NewMap knows.
var mapKinds = []MapKind{MapSquare, MapAffine, MapExp, MapTanh, MapEx12, MapExpQuantile, MapNormalQuantile, MapCauchyQuantile}

// NewMap returns a map; a and b are the affine map's slope (≠ 0) and
// intercept and are not used by the others.
func NewMap(kind MapKind, a, b float64) (Map, error) {
	name := string(kind)
	switch kind {
	case MapSquare:
		return square{}, nil
	case MapAffine:
		if a == 0 || math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, badParam("a", a, "a finite number ≠ 0")
		}
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return nil, badParam("b", b, "a finite number")
		}
		return affine{a, b}, nil
	case MapExp:
		return expMap{}, nil
	case MapTanh:
		return tanhMap{}, nil
	case MapEx12:
		return ex12{}, nil
	case MapExpQuantile:
		return quantile{name: name, formula: "−log(1−x)",
			f: func(u float64) float64 { return -math.Log1p(-u) },
			cdf: func(y float64) float64 {
				if y <= 0 {
					return 0
				}
				return -math.Expm1(-y)
			},
			pdf: func(y float64) float64 {
				if y < 0 {
					return 0
				}
				return math.Exp(-y)
			},
			lo: 0, hi: math.Inf(1)}, nil
	case MapNormalQuantile:
		return quantile{name: name, formula: "Φ⁻¹(x)",
			f:   func(u float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*u) },
			cdf: func(y float64) float64 { return 0.5 * math.Erfc(-y/math.Sqrt2) },
			pdf: func(y float64) float64 { return math.Exp(-y*y/2) / math.Sqrt(2*math.Pi) },
			lo:  math.Inf(-1), hi: math.Inf(1)}, nil
	case MapCauchyQuantile:
		return quantile{name: name, formula: "tan(π(x−½))",
			f:   func(u float64) float64 { return math.Tan(math.Pi * (u - 0.5)) },
			cdf: func(y float64) float64 { return 0.5 + math.Atan(y)/math.Pi },
			pdf: func(y float64) float64 { return 1 / (math.Pi * (1 + y*y)) },
			lo:  math.Inf(-1), hi: math.Inf(1), show: [2]float64{-10, 10}}, nil
	}
	return nil, badParam("map", name, fmt.Sprintf("one of %v", mapKinds))
}

// square is T(x) = x², not invertible on ℝ: two branches ±√y (Ex 1.3).
type square struct{}

func (square) Name() string             { return "square" }
func (square) Formula() string          { return "x²" }
func (square) Apply(x float64) float64  { return x * x }
func (square) Domain() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }
func (square) Range() (lo, hi float64)  { return 0, math.Inf(1) }
func (square) Branches(y float64, xs, js []float64) int {
	if !(y > 0) {
		return 0
	}
	r := math.Sqrt(y)
	xs[0], xs[1] = r, -r
	js[0], js[1] = 1/(2*r), 1/(2*r)
	return 2
}
func (square) CDF(y float64, F func(float64) float64) float64 {
	if y <= 0 {
		return 0
	}
	r := math.Sqrt(y)
	return F(r) - F(-r)
}

// affine is T(x) = a x + b.
type affine struct{ a, b float64 }

func (m affine) Name() string            { return "affine" }
func (m affine) Formula() string         { return fmt.Sprintf("%gx%+g", m.a, m.b) }
func (m affine) Apply(x float64) float64 { return m.a*x + m.b }
func (affine) Domain() (lo, hi float64)  { return math.Inf(-1), math.Inf(1) }
func (affine) Range() (lo, hi float64)   { return math.Inf(-1), math.Inf(1) }
func (m affine) Branches(y float64, xs, js []float64) int {
	xs[0], js[0] = (y-m.b)/m.a, 1/math.Abs(m.a)
	return 1
}
func (m affine) CDF(y float64, F func(float64) float64) float64 {
	if m.a > 0 {
		return F((y - m.b) / m.a)
	}
	return 1 - F((y-m.b)/m.a)
}

// expMap is T(x) = eˣ: the log-normal from a normal source (L550).
type expMap struct{}

func (expMap) Name() string             { return "exp" }
func (expMap) Formula() string          { return "eˣ" }
func (expMap) Apply(x float64) float64  { return math.Exp(x) }
func (expMap) Domain() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }
func (expMap) Range() (lo, hi float64)  { return 0, math.Inf(1) }
func (expMap) Branches(y float64, xs, js []float64) int {
	if !(y > 0) {
		return 0
	}
	xs[0], js[0] = math.Log(y), 1/y
	return 1
}
func (expMap) CDF(y float64, F func(float64) float64) float64 {
	if y <= 0 {
		return 0
	}
	return F(math.Log(y))
}

// tanhMap is T(x) = tanh x, onto (−1, 1).
type tanhMap struct{}

func (tanhMap) Name() string             { return "tanh" }
func (tanhMap) Formula() string          { return "tanh x" }
func (tanhMap) Apply(x float64) float64  { return math.Tanh(x) }
func (tanhMap) Domain() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }
func (tanhMap) Range() (lo, hi float64)  { return -1, 1 }
func (tanhMap) Branches(y float64, xs, js []float64) int {
	if !(y > -1 && y < 1) {
		return 0
	}
	xs[0], js[0] = math.Atanh(y), 1/(1-y*y)
	return 1
}
func (tanhMap) CDF(y float64, F func(float64) float64) float64 {
	switch {
	case y <= -1:
		return 0
	case y >= 1:
		return 1
	}
	return F(math.Atanh(y))
}

// ex12 is Example 1.2's map on {1, 2, 3}: T(1) = a, T(2) = T(3) = b,
// coded as a = 0 and b = 1 (it is a step function: its push-forward is
// discrete whatever the source).
type ex12 struct{}

func (ex12) Name() string    { return "ex1.2" }
func (ex12) Formula() string { return "T(1)=a, T(2)=T(3)=b" }
func (ex12) Apply(x float64) float64 {
	if x < 1.5 {
		return 0
	}
	return 1
}
func (ex12) Domain() (lo, hi float64)                   { return math.Inf(-1), math.Inf(1) }
func (ex12) Range() (lo, hi float64)                    { return 0, 1 }
func (ex12) Branches(float64, []float64, []float64) int { return 0 }
func (ex12) CDF(y float64, F func(float64) float64) float64 {
	switch {
	case y < 0:
		return 0
	case y < 1:
		return F(1.5)
	}
	return 1
}

// Label names an image value of the map for display: "a" and "b" for
// Ex 1.2's map, the number otherwise.
func Label(m Map, y float64) string {
	if _, ok := m.(ex12); ok {
		if y == 0 {
			return "a"
		}
		return "b"
	}
	return fmt.Sprintf("%.4g", y)
}

// quantile is inverse-CDF sampling: T = F⁻¹ on (0, 1), so that T(U) has CDF
// F for U ~ U(0, 1); T⁻¹ = F and |dT⁻¹/dy| = f, the density.
type quantile struct {
	name, formula string
	f, cdf, pdf   func(float64) float64
	lo, hi        float64
	show          [2]float64 // a drawing range, when the default would not do
}

// Shown returns the range to draw Y on, when the map has one: the
// Cauchy's heavy tails would otherwise stretch it to ±64 (its 0.5% and
// 99.5% quantiles) and squash the peak into one bin.
func (q quantile) Shown() (lo, hi float64, ok bool) {
	return q.show[0], q.show[1], q.show != [2]float64{}
}

func (q quantile) Name() string            { return q.name }
func (q quantile) Formula() string         { return q.formula }
func (q quantile) Apply(u float64) float64 { return q.f(u) }
func (quantile) Domain() (lo, hi float64)  { return 0, 1 }
func (q quantile) Range() (lo, hi float64) { return q.lo, q.hi }
func (q quantile) Branches(y float64, xs, js []float64) int {
	if !(y > q.lo && y < q.hi) {
		return 0
	}
	xs[0], js[0] = q.cdf(y), q.pdf(y)
	return 1
}
func (q quantile) CDF(y float64, F func(float64) float64) float64 { return F(q.cdf(y)) }
