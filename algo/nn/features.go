package nn

import (
	"math"
	"strings"
)

// Features is a set of input features computed from a 2-D point (x, y),
// TensorFlow Playground's inputs: a network on x² + y² separates a circle
// with no hidden layer at all.
type Features uint8

// The features; Sin and Cos each give two columns (of x and of y).
const (
	FeatX Features = 1 << iota
	FeatY
	FeatX2
	FeatY2
	FeatXY
	FeatSin
	FeatCos
)

// AllFeatures lists them in column order.
var AllFeatures = []Features{FeatX, FeatY, FeatX2, FeatY2, FeatXY, FeatSin, FeatCos}

// Dim is the number of columns.
func (f Features) Dim() int {
	n := 0
	for _, g := range AllFeatures {
		if f&g != 0 {
			n++
			if g == FeatSin || g == FeatCos {
				n++
			}
		}
	}
	return n
}

// Names are the columns' names, in order.
func (f Features) Names() []string {
	var out []string
	for _, g := range AllFeatures {
		if f&g == 0 {
			continue
		}
		switch g {
		case FeatX:
			out = append(out, "x")
		case FeatY:
			out = append(out, "y")
		case FeatX2:
			out = append(out, "x²")
		case FeatY2:
			out = append(out, "y²")
		case FeatXY:
			out = append(out, "xy")
		case FeatSin:
			out = append(out, "sin x", "sin y")
		case FeatCos:
			out = append(out, "cos x", "cos y")
		}
	}
	return out
}

func (f Features) String() string { return strings.Join(f.Names(), ", ") }

// Map writes the features of (x, y) into dst (len Dim).
func (f Features) Map(dst []float64, x, y float64) {
	k := 0
	put := func(v float64) { dst[k] = v; k++ }
	if f&FeatX != 0 {
		put(x)
	}
	if f&FeatY != 0 {
		put(y)
	}
	if f&FeatX2 != 0 {
		put(x * x)
	}
	if f&FeatY2 != 0 {
		put(y * y)
	}
	if f&FeatXY != 0 {
		put(x * y)
	}
	if f&FeatSin != 0 {
		put(math.Sin(x))
		put(math.Sin(y))
	}
	if f&FeatCos != 0 {
		put(math.Cos(x))
		put(math.Cos(y))
	}
}

// Apply maps n points (xy holds x, y pairs) to their n·Dim features.
func (f Features) Apply(xy []float64) []float64 {
	d := f.Dim()
	n := len(xy) / 2
	out := make([]float64, n*d)
	for i := range n {
		f.Map(out[i*d:(i+1)*d], xy[2*i], xy[2*i+1])
	}
	return out
}
