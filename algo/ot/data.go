package ot

import (
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/algo"
)

// The rules for a user's data. Two forms are read (the CSV parsing is the
// caller's): points, one row per atom with one or two coordinates, an
// optional weight and the side it belongs to (FromPoints); and histograms
// on a shared support, one row per support point x with a source mass a
// and a target mass b (FromHistograms). Weights are masses: both sides
// must have the same total within MassTol, and each side is then divided by
// its own total. A total that differs is refused with both sums shown,
// never rescaled to fit.

// RowError refuses one row of user data: Row counts the data rows from 1,
// so that a reader that knows where each row came from (a file's line)
// can say so.
type RowError struct {
	Data string // the data's name
	Row  int
	Msg  string
}

func (e *RowError) Error() string { return fmt.Sprintf("%s: row %d: %s", e.Data, e.Row, e.Msg) }

func rowError(name string, r int, format string, args ...any) error {
	return &RowError{Data: name, Row: r, Msg: fmt.Sprintf(format, args...)}
}

// Side says which measure a row of point data belongs to.
type Side int8

const (
	Source Side = iota // μ
	Target             // ν
)

func (s Side) String() string {
	if s == Target {
		return "target"
	}
	return "source"
}

// ParseSide reads "source" or "target" (any case, surrounding spaces
// ignored).
func ParseSide(s string) (Side, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "source":
		return Source, nil
	case "target":
		return Target, nil
	}
	return 0, fmt.Errorf("side %q: must be source or target", s)
}

// FromPoints builds a problem from point rows: coords[r] holds the one or
// two coordinates of row r (every row the same number), weights[r] its
// mass (nil: uniform on each side) and sides[r] its side. Errors name the
// data (name) and, for a row with a non-finite coordinate or a negative or
// non-finite weight, the row (counted from 1, a *RowError); a side with no
// rows or no mass, or totals that differ, are refused as a whole.
func FromPoints(name string, coords [][]float64, weights []float64, sides []Side) (*Problem, error) {
	if len(coords) == 0 {
		return nil, fmt.Errorf("%s: no rows", name)
	}
	if len(sides) != len(coords) || (weights != nil && len(weights) != len(coords)) {
		return nil, fmt.Errorf("%s: %d rows but %d sides and %d weights", name, len(coords), len(sides), len(weights))
	}
	dim := len(coords[0])
	if dim != 1 && dim != 2 {
		return nil, fmt.Errorf("%s: points need 1 or 2 coordinates (x or x,y), found %d", name, dim)
	}
	p := &Problem{Name: name, Dim: dim}
	for r, c := range coords {
		if len(c) != dim {
			return nil, rowError(name, r+1, "%d coordinates, row 1 has %d", len(c), dim)
		}
		if !algo.AllFinite(c) {
			return nil, rowError(name, r+1, "coordinates %v are not finite", c)
		}
		w := 1.0
		if weights != nil {
			w = weights[r]
			if !(w >= 0) || math.IsInf(w, 0) {
				return nil, rowError(name, r+1, "weight %g; weights must be finite and ≥ 0", w)
			}
		}
		if sides[r] == Target {
			p.Y, p.Nu = append(p.Y, c...), append(p.Nu, w)
		} else {
			p.X, p.Mu = append(p.X, c...), append(p.Mu, w)
		}
	}
	if weights == nil {
		for i := range p.Mu {
			p.Mu[i] = 1 / float64(len(p.Mu))
		}
		for j := range p.Nu {
			p.Nu[j] = 1 / float64(len(p.Nu))
		}
	}
	if err := checkSides(name, "source", p.Mu, "target", p.Nu); err != nil {
		return nil, err
	}
	return p, p.validate()
}

// FromHistograms builds a problem on a shared support: source masses a and
// target masses b on the points x (columns x,a,b). Zero masses are kept:
// the support is shared, and an empty bin on one side is part of the data.
func FromHistograms(name string, x, a, b []float64) (*Problem, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("%s: no rows", name)
	}
	if len(a) != len(x) || len(b) != len(x) {
		return nil, fmt.Errorf("%s: %d support points but %d source and %d target masses", name, len(x), len(a), len(b))
	}
	for r := range x {
		if !algo.Finite(x[r]) {
			return nil, rowError(name, r+1, "x = %g is not finite", x[r])
		}
		for _, v := range []float64{a[r], b[r]} {
			if !(v >= 0) || math.IsInf(v, 0) {
				return nil, rowError(name, r+1, "mass %g; masses must be finite and ≥ 0", v)
			}
		}
	}
	if err := checkSides(name, "column a", a, "column b", b); err != nil {
		return nil, err
	}
	p := &Problem{Name: name, Dim: 1, X: append([]float64(nil), x...), Y: append([]float64(nil), x...),
		Mu: append([]float64(nil), a...), Nu: append([]float64(nil), b...)}
	return p, p.validate()
}

// checkSides refuses an empty side, a side with no mass, and totals that
// differ by more than MassTol, showing both sums.
func checkSides(name, sa string, a []float64, sb string, b []float64) error {
	ta, tb := 0.0, 0.0
	for _, v := range a {
		ta += v
	}
	for _, v := range b {
		tb += v
	}
	for _, s := range []struct {
		side  string
		n     int
		total float64
	}{{sa, len(a), ta}, {sb, len(b), tb}} {
		if s.n == 0 {
			return fmt.Errorf("%s: the %s side has no rows", name, s.side)
		}
		if !(s.total > 0) {
			return fmt.Errorf("%s: the %s masses sum to 0", name, s.side)
		}
	}
	if Unbalanced(ta, tb) {
		return fmt.Errorf("%s: the %s masses sum to %.10g and the %s masses to %.10g: the totals must agree within a relative %g; they are not rescaled to force it",
			name, sa, ta, sb, tb, MassTol)
	}
	return nil
}
