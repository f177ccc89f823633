// Package toy2d draws the small data sets of the generative-model sims:
// 2-D (and 1-D) targets whose modes are known, so that a generator's mode
// coverage, a flow's density or a VAE's latent classes can be checked
// against them (seed 002 §6.2–6.3 terminal-sized demos; GAN Lab's
// targets).
package toy2d

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Target names a data law.
type Target string

// The targets. Each point carries the index of the mode it was drawn from.
//
//	twomodes  ½N((−2, 0), 0.3²I) + ½N((2, 0), 0.3²I) (the 1-D two-mode mixture in x, y = 0 in 1-D)
//	ring      8 Gaussians of s.d. 0.1 evenly on the circle of radius 2
//	line      the segment from (−2, −1) to (2, 1) with noise 0.05 across it
//	boxes     two disjoint unit squares [−2, −1]² and [1, 2]²
//	moons     two interleaved half circles with noise 0.08, centred
//	banana    z ~ N(0, I), x = (z₁, z₂/2 + z₁²/2 − 1): a triangular image of noise
const (
	TwoModes Target = "twomodes"
	Ring     Target = "ring"
	Line     Target = "line"
	Boxes    Target = "boxes"
	Moons    Target = "moons"
	Banana   Target = "banana"
)

// Targets lists them.
var Targets = []Target{TwoModes, Ring, Line, Boxes, Moons, Banana}

func (t Target) String() string { return string(t) }

// RingSD is the s.d. of each of the ring's components and RingRadius its
// radius.
const (
	RingSD     = 0.1
	RingRadius = 2
	TwoModesSD = 0.3
)

// Modes returns the number of separated modes whose coverage Coverage
// counts (0 for line and banana, which are connected, and for moons,
// whose halves interleave).
func (t Target) Modes() int {
	switch t {
	case TwoModes, Boxes:
		return 2
	case Ring:
		return 8
	}
	return 0
}

// Centre returns the centre of mode k and a radius that holds it: a point
// within the radius of the centre is "on" the mode.
func (t Target) Centre(k int) (x, y, r float64) {
	switch t {
	case TwoModes:
		return 4*float64(k) - 2, 0, 3 * TwoModesSD
	case Ring:
		a := 2 * math.Pi * float64(k) / 8
		return RingRadius * math.Cos(a), RingRadius * math.Sin(a), 3 * RingSD
	case Boxes:
		c := 3*float64(k) - 1.5
		return c, c, math.Sqrt2 / 2
	}
	return 0, 0, 0
}

// Sample draws n points of the target: xy holds (x, y) pairs, mode each
// point's mode (0 for line and banana). In 1-D (dim = 1) only twomodes is
// drawn with y = 0.
func Sample(t Target, rng *rand.Rand, n int) (xy []float64, mode []int, err error) {
	if n < 1 || n > MaxN {
		return nil, nil, algo.BadParam("n", n, fmt.Sprintf("in 1..%d", MaxN))
	}
	xy, mode = make([]float64, 2*n), make([]int, n)
	for i := range n {
		var x, y float64
		var k int
		switch t {
		case TwoModes:
			k = rng.IntN(2)
			cx, _, _ := t.Centre(k)
			x, y = cx+TwoModesSD*rng.NormFloat64(), 0
		case Ring:
			k = rng.IntN(8)
			cx, cy, _ := t.Centre(k)
			x, y = cx+RingSD*rng.NormFloat64(), cy+RingSD*rng.NormFloat64()
		case Line:
			u, e := rng.Float64()*2-1, 0.05*rng.NormFloat64()
			x, y = 2*u-e/math.Sqrt(5), u+2*e/math.Sqrt(5)
		case Boxes:
			k = rng.IntN(2)
			lo := 3*float64(k) - 2
			x, y = lo+rng.Float64(), lo+rng.Float64()
		case Moons:
			k = rng.IntN(2)
			a := math.Pi * rng.Float64()
			x, y = math.Cos(a), math.Sin(a)
			if k == 1 {
				x, y = 1-x, 0.5-y
			}
			x, y = x-0.5+0.08*rng.NormFloat64(), y-0.25+0.08*rng.NormFloat64()
		case Banana:
			z1, z2 := rng.NormFloat64(), rng.NormFloat64()
			x, y = z1, z2/2+z1*z1/2-1
		default:
			return nil, nil, algo.BadParam("target", t, fmt.Sprint(Targets))
		}
		xy[2*i], xy[2*i+1], mode[i] = x, y, k
	}
	return xy, mode, nil
}

// MaxN bounds a sample.
const MaxN = 200_000

// Coverage counts the modes that hold at least frac of their fair share
// (1/Modes) of the points xy: "modes covered 5/8". It returns the count
// and each mode's share of the points.
func Coverage(t Target, xy []float64, frac float64) (covered int, share []float64) {
	m := t.Modes()
	share = make([]float64, m)
	n := len(xy) / 2
	if m == 0 || n == 0 {
		return 0, share
	}
	for i := range n {
		for k := range m {
			cx, cy, r := t.Centre(k)
			if dx, dy := xy[2*i]-cx, xy[2*i+1]-cy; dx*dx+dy*dy <= r*r {
				share[k]++
				break
			}
		}
	}
	for k := range share {
		share[k] /= float64(n)
		if share[k] >= frac/float64(m) {
			covered++
		}
	}
	return covered, share
}

// Mixture returns the target as an equal-weight mixture of isotropic
// Gaussians N(μ_k, s²I) when it is one (twomodes, ring): the means (x, y
// pairs) and s; ok is false for the others.
func (t Target) Mixture() (means []float64, s float64, ok bool) {
	var sd float64
	switch t {
	case TwoModes:
		sd = TwoModesSD
	case Ring:
		sd = RingSD
	default:
		return nil, 0, false
	}
	for k := range t.Modes() {
		x, y, _ := t.Centre(k)
		means = append(means, x, y)
	}
	return means, sd, true
}

// PosteriorMean is E[X | Y = y] for Y = X + σε, X an equal-weight mixture
// of N(μ_k, s²I) in the plane (means as x, y pairs): Tweedie's formula
// y + σ²∇log f_Y(y) (seed 000 eq 3.1), which for a mixture is
// Σ_k w_k(y) (s²y + σ²μ_k)/(s² + σ²) with w_k ∝ N(y; μ_k, (s² + σ²)I).
func PosteriorMean(means []float64, s, sigma float64, y [2]float64) [2]float64 {
	v := s*s + sigma*sigma
	k := len(means) / 2
	// Log-weights, then normalised stably.
	lw := make([]float64, k)
	top := math.Inf(-1)
	for j := range k {
		dx, dy := y[0]-means[2*j], y[1]-means[2*j+1]
		lw[j] = -(dx*dx + dy*dy) / (2 * v)
		top = math.Max(top, lw[j])
	}
	var sum float64
	var m [2]float64
	for j := range k {
		w := math.Exp(lw[j] - top)
		sum += w
		m[0] += w * means[2*j]
		m[1] += w * means[2*j+1]
	}
	for i := range m {
		m[i] = (s*s*y[i] + sigma*sigma*m[i]/sum) / v
	}
	return m
}
