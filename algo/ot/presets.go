package ot

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
)

// MaxAtoms bounds the atoms on each side of a generated problem.
const MaxAtoms = 100000

// Preset is a built-in problem: one of the notes' worked examples (fixed,
// n and m ignored) or a seeded generator of n source and m target atoms.
type Preset struct {
	Name string
	Doc  string // one line, for a menu's help
	// Fixed is true for the worked examples, whose sizes are their own.
	Fixed bool
	// Dim is the Problem's Dim: 1 or 2, or 0 for a cost matrix only.
	Dim   int
	atoms func(n, m int) (int, int)
	New   func(rng *rand.Rand, n, m int) (*Problem, error)
}

// Atoms is the number of source and target atoms New makes when asked for
// n and m, known without making them: what a problem will hold is charged
// before it is built.
func (p Preset) Atoms(n, m int) (int, int) { return p.atoms(n, m) }

// asked, sized and shared are the sizes of the presets' problems: n and m
// as asked, a worked example's own, or n on both sides (one support).
func asked(n, m int) (int, int) { return n, m }

func sized(n, m int) func(int, int) (int, int) { return func(int, int) (int, int) { return n, m } }

func shared(n, _ int) (int, int) { return n, n }

// Presets lists the built-in problems.
var Presets = []Preset{
	{"ex5.1-exists", "Ex 5.1 (i): μ = (1/2, 1/3, 1/6), ν = (1/3, 1/6, 1/2); a Monge map exists", true, 1, sized(3, 3), fixed(Ex51Exists)},
	{"ex5.1-none", "Ex 5.1 (ii): μ = (1/2, 1/4, 1/4), ν uniform on 3 atoms; no Monge map exists", true, 1, sized(3, 3), fixed(Ex51None)},
	{"ex5.2", "Ex 5.2: μ = ν = (1/2, 1/2), C = 1: two optimal Monge maps", true, 0, sized(2, 2), fixed(Ex52)},
	{"ex5.4", "Ex 5.4: the 2×2 problem μ = (0.7, 0.3), ν = (0.4, 0.6), C = [[1,3],[2,5]]: optimum 2.5", true, 0, sized(2, 2), fixed(Ex54)},
	{"three", "3×3 on the points 0, 1, 2 with C = |x − y|²: optimum 0.1", true, 1, sized(3, 3), fixed(Three)},
	{"gauss-hist", "two Gaussian histograms on n bins of [0, 1] (POT's 1-D example at n = 100)", false, 1, shared, GaussHistograms},
	{"gaussians", "two 2-D Gaussian clouds, different means and covariances", false, 2, asked, TwoGaussians},
	{"mixtures", "a 2-component Gaussian mixture to a 3-component one, in 2-D", false, 2, asked, Mixtures},
	{"boxes", "uniform points in two boxes of different shapes", false, 2, asked, Boxes},
	{"moons-ring", "two interleaved moons to a ring", false, 2, asked, MoonsToRing},
	{"gauss-1d", "samples of N(0, 1) and N(3, 0.5²) on the line", false, 1, asked, Gauss1D},
}

// PresetByName returns the preset of that name.
func PresetByName(name string) (Preset, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

func fixed(f func() *Problem) func(*rand.Rand, int, int) (*Problem, error) {
	return func(*rand.Rand, int, int) (*Problem, error) { return f(), nil }
}

// line returns the points 0, 1, ..., k−1.
func line(k int) []float64 {
	x := make([]float64, k)
	for i := range x {
		x[i] = float64(i)
	}
	return x
}

// Ex51Exists is Exercise 5.1 (i) (L2410–2420): the map T(x1) = y3,
// T(x2) = y1, T(x3) = y2 pushes μ onto ν. The notes give no positions or
// costs; the atoms sit at 0, 1, 2 on both sides.
func Ex51Exists() *Problem {
	return &Problem{Name: "ex5.1-exists", Dim: 1, X: line(3), Y: line(3),
		Mu: []float64{1.0 / 2, 1.0 / 3, 1.0 / 6}, Nu: []float64{1.0 / 3, 1.0 / 6, 1.0 / 2}}
}

// Ex51None is Exercise 5.1 (ii) (L2422–2436): a map can only send whole
// source masses, so the target masses lie in {0, 1/4, 1/2, 3/4, 1} and 1/3
// is out of reach.
func Ex51None() *Problem {
	return &Problem{Name: "ex5.1-none", Dim: 1, X: line(3), Y: line(3),
		Mu: []float64{1.0 / 2, 1.0 / 4, 1.0 / 4}, Nu: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}}
}

// Ex52 is Exercise 5.2 (L2438–2456): with C = [[1, 1], [1, 1]] both
// bijections cost 1.
func Ex52() *Problem {
	return &Problem{Name: "ex5.2", Mu: []float64{0.5, 0.5}, Nu: []float64{0.5, 0.5}, C: []float64{1, 1, 1, 1}}
}

// Ex54 is the 2×2 instance of Exercise 5.4 in the seed-002 catalogue (E2):
// Δ = c11 − c12 − c21 + c22 = 1 > 0, so p* = max(0, ν1 − μ2) = 0.1, plan
// [[0.1, 0.6], [0.3, 0]], cost 2.5.
func Ex54() *Problem {
	return &Problem{Name: "ex5.4", Mu: []float64{0.7, 0.3}, Nu: []float64{0.4, 0.6}, C: []float64{1, 3, 2, 5}}
}

// Three is the catalogue's 3×3 example (E2, E5): μ = (0.5, 0.3, 0.2),
// ν = (0.4, 0.4, 0.2) on the points 0, 1, 2 with C = |x − y|², given as C so
// that the catalogue's numbers hold whatever ground cost is chosen. The LP
// optimum is 0.1 with plan [[0.4, 0.1, 0], [0, 0.3, 0], [0, 0, 0.2]].
func Three() *Problem {
	return &Problem{Name: "three", Dim: 1, X: line(3), Y: line(3),
		Mu: []float64{0.5, 0.3, 0.2}, Nu: []float64{0.4, 0.4, 0.2}, C: []float64{0, 1, 4, 1, 0, 1, 4, 1, 0}}
}

func checkSizes(rng *rand.Rand, n, m int) error {
	if rng == nil {
		return algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"n", n}, {"m", m}} {
		if s.v < 1 || s.v > MaxAtoms {
			return algo.BadParam(s.name, s.v, fmt.Sprintf("in 1..%d", MaxAtoms))
		}
	}
	return nil
}

func uniform(k int) []float64 {
	w := make([]float64, k)
	for i := range w {
		w[i] = 1 / float64(k)
	}
	return w
}

// GaussHistograms puts two Gaussian bumps on n bins at the points
// k/(n − 1) of [0, 1] (m is ignored: both sides share the support): the
// source centred at bin 0.2n with standard deviation 0.05n bins, the target
// at 0.6n with 0.1n, each normalised. At n = 100 this is the setting of
// POT's 1-D example (ot.datasets.make_1D_gauss(100, m=20, s=5) and (100,
// m=60, s=10), with the squared distance divided by its maximum, which is
// |x − y|² on these points).
func GaussHistograms(rng *rand.Rand, n, m int) (*Problem, error) {
	if err := checkSizes(rng, n, m); err != nil {
		return nil, err
	}
	if n < 2 {
		return nil, algo.BadParam("n", n, "at least 2 bins")
	}
	x := make([]float64, n)
	a, b := make([]float64, n), make([]float64, n)
	fn := float64(n)
	for k := range x {
		x[k] = float64(k) / (fn - 1)
		a[k] = bump(float64(k), 0.2*fn, 0.05*fn)
		b[k] = bump(float64(k), 0.6*fn, 0.1*fn)
	}
	sa, sb := 0.0, 0.0
	for k := range a {
		sa += a[k]
		sb += b[k]
	}
	return &Problem{Name: "gauss-hist", Dim: 1, X: x, Y: append([]float64(nil), x...), Mu: Normalised(a, sa), Nu: Normalised(b, sb)}, nil
}

func bump(x, m, s float64) float64 { return math.Exp(-(x - m) * (x - m) / (2 * s * s)) }

// gaussCloud appends k points of N(mean, R(angle) diag(sx², sy²) R(angle)ᵀ).
func gaussCloud(rng *rand.Rand, dst []float64, k int, mx, my, sx, sy, angle float64) []float64 {
	c, s := math.Cos(angle), math.Sin(angle)
	for range k {
		u, v := sx*rng.NormFloat64(), sy*rng.NormFloat64()
		dst = append(dst, mx+c*u-s*v, my+s*u+c*v)
	}
	return dst
}

// TwoGaussians draws n points of N((−2, 0), diag(1, 0.25)) and m points of
// N((2, 0.5), R(π/3) diag(0.25, 1) R(π/3)ᵀ), uniform masses.
func TwoGaussians(rng *rand.Rand, n, m int) (*Problem, error) {
	if err := checkSizes(rng, n, m); err != nil {
		return nil, err
	}
	return &Problem{Name: "gaussians", Dim: 2,
		X:  gaussCloud(rng, nil, n, -2, 0, 1, 0.5, 0),
		Y:  gaussCloud(rng, nil, m, 2, 0.5, 0.5, 1, math.Pi/3),
		Mu: uniform(n), Nu: uniform(m)}, nil
}

// Mixtures draws n points of an equal mixture of two Gaussians and m points
// of an equal mixture of three (the setting of Figs 5.10 and 5.12): the
// components of each side are drawn in turn, so each has its share of the
// atoms up to one.
func Mixtures(rng *rand.Rand, n, m int) (*Problem, error) {
	if err := checkSizes(rng, n, m); err != nil {
		return nil, err
	}
	src := [][5]float64{{-3, 1.5, 0.6, 0.3, 0.4}, {-3, -1.5, 0.6, 0.3, -0.4}}
	dst := [][5]float64{{2, 2, 0.4, 0.4, 0}, {3, 0, 0.5, 0.3, 1.2}, {2, -2, 0.4, 0.4, 0}}
	draw := func(k int, comps [][5]float64) []float64 {
		out := make([]float64, 0, 2*k)
		for i := range k {
			c := comps[i%len(comps)]
			out = gaussCloud(rng, out, 1, c[0], c[1], c[2], c[3], c[4])
		}
		return out
	}
	return &Problem{Name: "mixtures", Dim: 2, X: draw(n, src), Y: draw(m, dst), Mu: uniform(n), Nu: uniform(m)}, nil
}

// Boxes draws n points uniformly in [−3, −1] × [−1, 1] and m points
// uniformly in [1, 4] × [−0.5, 0.5].
func Boxes(rng *rand.Rand, n, m int) (*Problem, error) {
	if err := checkSizes(rng, n, m); err != nil {
		return nil, err
	}
	box := func(k int, x0, x1, y0, y1 float64) []float64 {
		out := make([]float64, 0, 2*k)
		for range k {
			out = append(out, x0+(x1-x0)*rng.Float64(), y0+(y1-y0)*rng.Float64())
		}
		return out
	}
	return &Problem{Name: "boxes", Dim: 2, X: box(n, -3, -1, -1, 1), Y: box(m, 1, 4, -0.5, 0.5), Mu: uniform(n), Nu: uniform(m)}, nil
}

// MoonsToRing draws n points on two interleaved moons (dataset.Moons, noise
// 0.05) and m points on the circle of radius 1.2 about the moons' centre
// (0.5, 0.25), with radial noise of 0.05.
func MoonsToRing(rng *rand.Rand, n, m int) (*Problem, error) {
	if err := checkSizes(rng, n, m); err != nil {
		return nil, err
	}
	var x []float64
	if n == 1 {
		x = []float64{0.5, 0.25}
	} else {
		moons, err := dataset.Moons(rng, n, 0.05)
		if err != nil {
			return nil, err
		}
		for _, p := range moons.X {
			x = append(x, p...)
		}
	}
	y := make([]float64, 0, 2*m)
	for range m {
		a := 2 * math.Pi * rng.Float64()
		r := 1.2 + 0.05*rng.NormFloat64()
		y = append(y, 0.5+r*math.Cos(a), 0.25+r*math.Sin(a))
	}
	return &Problem{Name: "moons-ring", Dim: 2, X: x, Y: y, Mu: uniform(n), Nu: uniform(m)}, nil
}

// Gauss1D draws n samples of N(0, 1) and m of N(3, 0.5²): W₂² = 3² + 0.5²
// = 9.25 between the laws (Ex 5.7).
func Gauss1D(rng *rand.Rand, n, m int) (*Problem, error) {
	if err := checkSizes(rng, n, m); err != nil {
		return nil, err
	}
	x, y := make([]float64, n), make([]float64, m)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for j := range y {
		y[j] = 3 + 0.5*rng.NormFloat64()
	}
	return &Problem{Name: "gauss-1d", Dim: 1, X: x, Y: y, Mu: uniform(n), Nu: uniform(m)}, nil
}
