package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Regression presets: Labelled sets with Classes = 0 and real targets.

// Epsilon is the ill-conditioned least-squares example of seed 001 §3
// (L357–L361): in the notes' d×n layout X = [[0, ε], [1, 1]] and y = (1, −1),
// that is two samples x₁ = (0, 1), x₂ = (ε, 1) with targets 1 and −1. Without
// a bias column the least-squares solution is w = (−2/ε, 1): "chaotic" as
// ε → 0.
func Epsilon(eps float64) (*Labelled, error) {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, algo.BadParam("eps", eps, "a finite number > 0")
	}
	return &Labelled{Name: "epsilon", Features: []string{"x1", "x2"},
		X: [][]float64{{0, 1}, {eps, 1}}, Y: []float64{1, -1}}, nil
}

// Line draws n points x ~ U(−3, 3) with y = 1.5x − 0.5 + noise·N(0, 1): a
// 1-D regression whose fitted line can be drawn over the data.
func Line(rng *rand.Rand, n int, noise float64) (*Labelled, error) {
	if n < 2 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	l := &Labelled{Name: "line", Features: []string{"x"}}
	for i := 0; i < n; i++ {
		x := 6*rng.Float64() - 3
		l.X = append(l.X, []float64{x})
		l.Y = append(l.Y, 1.5*x-0.5+noise*rng.NormFloat64())
	}
	return l, nil
}

// LinearTrue returns the coefficients Linear plants: w_j = (−1)^j·2/(j + 1),
// and intercept 1.
func LinearTrue(d int) (w []float64, b float64) {
	w = make([]float64, d)
	for j := range w {
		w[j] = 2 / float64(j+1)
		if j%2 == 1 {
			w[j] = -w[j]
		}
	}
	return w, 1
}

// Linear draws n rows of d correlated features, x_ij = z_ij + rho·z_i0 with
// z ~ N(0, I) (a shared factor: the larger rho, the worse conditioned XᵀX),
// and targets y = ⟨x, w⟩ + 1 + noise·N(0, 1) with w from LinearTrue.
func Linear(rng *rand.Rand, n, d int, rho, noise float64) (*Labelled, error) {
	if n < 2 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if d < 1 || d > 1000 {
		return nil, algo.BadParam("d", d, "in 1..1000")
	}
	if !(rho >= 0) || math.IsInf(rho, 0) {
		return nil, algo.BadParam("rho", rho, "a finite number ≥ 0")
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	w, b := LinearTrue(d)
	l := &Labelled{Name: "linear"}
	for j := 0; j < d; j++ {
		l.Features = append(l.Features, fmt.Sprintf("x%d", j+1))
	}
	for i := 0; i < n; i++ {
		x := make([]float64, d)
		f := rng.NormFloat64()
		y := b
		for j := range x {
			x[j] = rng.NormFloat64() + rho*f
			y += w[j] * x[j]
		}
		l.X = append(l.X, x)
		l.Y = append(l.Y, y+noise*rng.NormFloat64())
	}
	return l, nil
}

// Curve names a smooth truth f of the interpolation presets.
type Curve string

// The curves on [−1, 1]: Runge's 1/(1 + 25x²) (whose equispaced
// interpolants diverge as the degree grows), sin(πx) and the line 0.8x −
// 0.2.
const (
	Runge    Curve = "runge"
	Sine     Curve = "sin"
	Straight Curve = "line"
)

// String is the curve's name.
func (c Curve) String() string { return string(c) }

// Curves are the functions f of the curves.
var Curves = map[Curve]func(float64) float64{
	Sine:     func(x float64) float64 { return math.Sin(math.Pi * x) },
	Runge:    func(x float64) float64 { return 1 / (1 + 25*x*x) },
	Straight: func(x float64) float64 { return 0.8*x - 0.2 },
}

// Layout is how OnCurve places its inputs in [−1, 1]:
//
//	Scattered:  x_i ~ U(−1, 1) (distinct with probability one);
//	Equispaced: x_i = −1 + 2i/(n − 1);
//	Chebyshev:  x_i = cos((2i + 1)π/(2n)), the Chebyshev nodes, whose
//	            interpolants of a smooth f converge (no Runge phenomenon).
type Layout string

// The layouts.
const (
	Scattered  Layout = "random"
	Equispaced Layout = "equispaced"
	Chebyshev  Layout = "chebyshev"
)

// String is the layout's name.
func (l Layout) String() string { return string(l) }

// OnCurve draws n points (x_i, f(x_i) + noise·N(0, 1)) of the curve, with
// the inputs in [−1, 1] placed by the layout.
//
// The rows come in the order in which they "arrive": random points in
// their (random) draw order; the grids in farthest-point order — first
// the point nearest 0, then each time the node farthest from those
// already taken (ties to the left) — so that every prefix is spread over
// [−1, 1] rather than a random clump of the grid.
func OnCurve(rng *rand.Rand, curve Curve, layout Layout, n int, noise float64) (*Labelled, error) {
	f, ok := Curves[curve]
	if !ok {
		return nil, algo.BadParam("curve", curve, "one of runge|sin|line")
	}
	if n < 1 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 1..%d", MaxN))
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	xs := make([]float64, n)
	switch layout {
	case Scattered:
		for i := range xs {
			xs[i] = 2*rng.Float64() - 1
		}
	case Equispaced:
		for i := range xs {
			xs[i] = 0
			if n > 1 {
				xs[i] = -1 + 2*float64(i)/float64(n-1)
			}
		}
	case Chebyshev:
		for i := range xs {
			xs[i] = math.Cos(float64(2*i+1) * math.Pi / float64(2*n))
		}
	default:
		return nil, algo.BadParam("layout", layout, "one of random|equispaced|chebyshev")
	}
	if layout != Scattered {
		xs = farthestFirst(xs)
	}
	l := &Labelled{Name: string(curve), Features: []string{"x"}}
	for _, x := range xs {
		l.X = append(l.X, []float64{x})
		l.Y = append(l.Y, f(x)+noise*rng.NormFloat64())
	}
	return l, nil
}

// farthestFirst orders the points greedily: the one nearest 0 first, then
// each time the one farthest from all taken so far (the smallest on ties).
func farthestFirst(xs []float64) []float64 {
	n := len(xs)
	out := make([]float64, 0, n)
	taken := make([]bool, n)
	dist := make([]float64, n)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	next := 0
	for i, x := range xs {
		if math.Abs(x) < math.Abs(xs[next]) || (math.Abs(x) == math.Abs(xs[next]) && x < xs[next]) {
			next = i
		}
	}
	for len(out) < n {
		taken[next] = true
		out = append(out, xs[next])
		best := -1
		for i, x := range xs {
			if taken[i] {
				continue
			}
			dist[i] = math.Min(dist[i], math.Abs(x-xs[next]))
			if best < 0 || dist[i] > dist[best] || (dist[i] == dist[best] && x < xs[best]) {
				best = i
			}
		}
		next = best
	}
	return out
}
