package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// This file holds the presets of the kernel, SVM and Gaussian-process sims
// (seeds 000 ch. 4, 001 §5–7, 002 ch. 4, 003).

// Ellipse draws n points uniformly in [−2, 2]² labelled by the axis-aligned
// ellipse x₁²/1.5² + x₂²/1² = 1 (class 1 inside), the toy problem of seed
// 003 Fig 2.1 (L220): no line separates the classes in the input space, but
// under Φ(x) = (x₁², x₂², √2x₁x₂) the ellipse becomes the hyperplane
// z₁/2.25 + z₂ = 1. Points whose level x₁²/2.25 + x₂² lies within gap of 1
// are dropped, so the classes are separable in feature space with a margin
// and the perceptron converges.
func Ellipse(rng *rand.Rand, n int, gap float64) (*Labelled, error) {
	if n < 2 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if !(gap >= 0 && gap < 0.5) {
		return nil, algo.BadParam("gap", gap, "in [0, 0.5)")
	}
	l := &Labelled{Name: "ellipse", Features: []string{"x1", "x2"}, Classes: 2}
	for len(l.X) < n {
		x1, x2 := 4*rng.Float64()-2, 4*rng.Float64()-2
		q := x1*x1/2.25 + x2*x2
		if math.Abs(q-1) < gap {
			continue
		}
		l.X = append(l.X, []float64{x1, x2})
		l.Y = append(l.Y, b2f(q < 1))
	}
	return l, nil
}

// EllipseLevel is the boundary of Ellipse in feature coordinates: a point
// is inside when z₁/EllipseA2 + z₂ < 1, z = (x₁², x₂²).
const EllipseA2 = 2.25

// GaussianClasses draws n points in d dimensions from two Gaussian classes
// N(±(sep/2)u, I), u a random unit vector, alternating classes: the classes
// overlap unless sep is several units. It is the lab's stand-in for a
// 569-point, 30-feature benchmark problem of the size of the Wisconsin
// breast-cancer data.
func GaussianClasses(rng *rand.Rand, n, d int, sep float64) (*Labelled, error) {
	if n < 2 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if d < 1 || d > 1000 {
		return nil, algo.BadParam("d", d, "in 1..1000")
	}
	if !(sep >= 0) || math.IsInf(sep, 0) {
		return nil, algo.BadParam("sep", sep, "a finite number ≥ 0")
	}
	u := make([]float64, d)
	norm := 0.0
	for norm == 0 {
		for i := range u {
			u[i] = rng.NormFloat64()
			norm += u[i] * u[i]
		}
	}
	norm = math.Sqrt(norm)
	l := &Labelled{Name: "gaussians", Classes: 2}
	for i := 0; i < d; i++ {
		l.Features = append(l.Features, fmt.Sprintf("x%d", i+1))
	}
	for i := 0; i < n; i++ {
		c := i % 2
		s := sep / 2 * float64(2*c-1) / norm
		x := make([]float64, d)
		for j := range x {
			x[j] = s*u[j] + rng.NormFloat64()
		}
		l.X = append(l.X, x)
		l.Y = append(l.Y, float64(c))
	}
	return l, nil
}

// Sinusoid draws n regression points t = sin(2πx) + ε, ε ~ N(0, noise²),
// with x uniform on [0, 1] outside the interval (gapLo, gapHi) (empty when
// gapLo ≥ gapHi): the sinusoidal data set of seed 003's GP figure (L1028,
// after Bishop), where a stretch without data shows the posterior
// uncertainty growing.
func Sinusoid(rng *rand.Rand, n int, noise, gapLo, gapHi float64) (*Labelled, error) {
	if n < 1 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 1..%d", MaxN))
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	if gapLo < gapHi && (gapLo < 0 || gapHi > 1 || gapHi-gapLo > 0.8) {
		return nil, algo.BadParam("gap", fmt.Sprintf("(%g, %g)", gapLo, gapHi), "a sub-interval of [0, 1] at most 0.8 long")
	}
	l := &Labelled{Name: "sinusoid", Features: []string{"x"}}
	for len(l.X) < n {
		x := rng.Float64()
		if x > gapLo && x < gapHi {
			continue
		}
		l.X = append(l.X, []float64{x})
		l.Y = append(l.Y, math.Sin(2*math.Pi*x)+noise*rng.NormFloat64())
	}
	return l, nil
}

// NoisyLine draws n regression points y = w0 + w1·x + ε, ε ~ N(0, noise²),
// with x uniform on [−1, 1]: the data of Bayesian linear regression (seed
// 002 Ex 3.2, Fig 3.3).
func NoisyLine(rng *rand.Rand, n int, w0, w1, noise float64) (*Labelled, error) {
	if n < 1 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 1..%d", MaxN))
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	l := &Labelled{Name: "line", Features: []string{"x"}}
	for i := 0; i < n; i++ {
		x := 2*rng.Float64() - 1
		l.X = append(l.X, []float64{x})
		l.Y = append(l.Y, w0+w1*x+noise*rng.NormFloat64())
	}
	return l, nil
}

// Standardize returns a copy of the rows with every column shifted to mean
// 0 and scaled to standard deviation 1 (a constant column is only shifted),
// the usual preparation before a distance-based kernel: the RBF kernel
// compares raw coordinates, so a feature in thousands would drown the rest.
func Standardize(x [][]float64) [][]float64 {
	if len(x) == 0 {
		return nil
	}
	d := len(x[0])
	mean, sd := make([]float64, d), make([]float64, d)
	for _, r := range x {
		for j, v := range r {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(len(x))
	}
	for _, r := range x {
		for j, v := range r {
			sd[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(len(x)))
		if sd[j] == 0 {
			sd[j] = 1
		}
	}
	out := make([][]float64, len(x))
	for i, r := range x {
		out[i] = make([]float64, d)
		for j, v := range r {
			out[i][j] = (v - mean[j]) / sd[j]
		}
	}
	return out
}

// Circles draws n points on two concentric circles, the inner of radius
// factor and the outer of radius 1 (class 1 outer), half on each, with
// Gaussian noise of standard deviation noise in each coordinate: the
// "concentric rings" of kernel PCA (seed 000 §4.12, L1826), on which a
// Gaussian kernel of suitable width makes the first component separate the
// rings and linear PCA cannot.
func Circles(rng *rand.Rand, n int, factor, noise float64) (*Labelled, error) {
	if n < 2 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if !(factor > 0 && factor < 1) {
		return nil, algo.BadParam("factor", factor, "in (0, 1)")
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	l := &Labelled{Name: "circles", Features: []string{"x1", "x2"}, Classes: 2}
	for i := 0; i < n; i++ {
		c := i % 2
		r := factor
		if c == 1 {
			r = 1
		}
		a := 2 * math.Pi * rng.Float64()
		l.X = append(l.X, []float64{r*math.Cos(a) + noise*rng.NormFloat64(), r*math.Sin(a) + noise*rng.NormFloat64()})
		l.Y = append(l.Y, float64(c))
	}
	return l, nil
}
