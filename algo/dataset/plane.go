package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// The 2-D sets of TensorFlow Playground that the notes' MLP examples call
// for (seed 001 [A15]: "XOR or two moons"; seed 002 F1: "two moons / XOR /
// spirals"), inside about [−1.2, 1.2]², with Gaussian noise of standard
// deviation noise added to each coordinate (classification) or to the
// target (regression), half of the points in each class.
//
// Each classification set has a gap δ: the distance across the ideal
// decision boundary between the two classes' noiseless structures (the
// constants below say where it is measured). Noise given in gaps, σ = ν·δ,
// means the same for every set: a point drawn at δ/2 from the boundary
// (on a spiral's arm, a circle, a moon's tip) is pushed across it, where
// the boundary is about straight, with probability Φ(−(δ/2)/σ) =
// Φ(−1/(2ν)): 3·10⁻⁷ at ν = 0.1, 0.6% at 0.2, 2.3% at 0.25, 16% at 0.5
// and 31% at 1, the classes then mixed. The same σ in absolute units would
// erase the spiral (δ = 2/7) long before it blurs the gaussians (δ = √2).
// The generators take σ itself; the playground passes ν·δ. The gaps:
const (
	// SpiralGap: the arms r = t, angle 3.5πt + cπ, meet a ray from the
	// centre at angle φ where 3.5πr + cπ ≡ φ (mod 2π), so along the ray
	// the classes alternate every π/(3.5π) = 2/7 in r.
	SpiralGap = 2.0 / 7
	// XorGap: a quadrant's points are uniform in 0.1 ≤ |x|, |y| ≤ 1, at
	// 0.55 from each axis on average, so the centres of two neighbouring
	// quadrants (opposite classes) are 1.1 apart across the axis between
	// them.
	XorGap = 1.1
	// GaussGap: the centres ±(0.5, 0.5) of the two clusters are √2 apart
	// (each cluster has its own s.d. 0.3 besides the noise).
	GaussGap = math.Sqrt2
	// MoonsGap: the moons of Moons come nearest at the tips, each 0.5 from
	// the other's arc: (1, 0) from (1, −0.5) on the circle of radius 1
	// round (1, 0.5), and (0, 0.5) from (0, 1) on the unit circle.
	MoonsGap = 0.5
)

// CirclesGap is the gap of Circles with inner radius factor: the radii's
// difference 1 − factor.
func CirclesGap(factor float64) float64 { return 1 - factor }

func checkPlane(n int, noise float64) error {
	if n < 2 || n > MaxN {
		return algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	return nil
}

func plane(name string, classes int) *Labelled {
	return &Labelled{Name: name, Features: []string{"x", "y"}, Classes: classes}
}

// XorCloud draws points uniformly in [−1, 1]² away from the axes (|x|, |y|
// ≥ 0.1) with the class of the quadrant: 1 where x·y < 0 (XOR of the
// signs). No single line separates it; two hidden units do (seed 001 Ex
// 9.1).
func XorCloud(rng *rand.Rand, n int, noise float64) (*Labelled, error) {
	if err := checkPlane(n, noise); err != nil {
		return nil, err
	}
	l := plane("xor", 2)
	away := func() float64 {
		v := 0.1 + 0.9*rng.Float64()
		if rng.IntN(2) == 0 {
			return -v
		}
		return v
	}
	for range n {
		x, y := away(), away()
		l.Y = append(l.Y, b2f(x*y < 0))
		l.X = append(l.X, []float64{x + noise*rng.NormFloat64(), y + noise*rng.NormFloat64()})
	}
	return l, nil
}

// TwoGaussians draws two round clusters of standard deviation 0.3 centred
// at ±(0.5, 0.5), with the noise on top: s.d. √(0.3² + noise²) in all, so
// that the line x + y = 0, at √2/2 from each centre, separates all but
// Φ(−(√2/2)/s.d.) of the points: 0.9% at noise 0, 1.7% at noise 0.1·√2.
func TwoGaussians(rng *rand.Rand, n int, noise float64) (*Labelled, error) {
	if err := checkPlane(n, noise); err != nil {
		return nil, err
	}
	l := plane("gauss", 2)
	sd := math.Hypot(0.3, noise)
	for i := range n {
		c := i % 2
		m := 0.5 * float64(2*c-1)
		l.X = append(l.X, []float64{m + sd*rng.NormFloat64(), m + sd*rng.NormFloat64()})
		l.Y = append(l.Y, float64(c))
	}
	return l, nil
}

// Spiral draws two interleaved spirals, each 1.75 turns from the centre
// out to radius 1: r = t, angle 3.5π t + cπ for t ~ U(0, 1) and class c.
func Spiral(rng *rand.Rand, n int, noise float64) (*Labelled, error) {
	if err := checkPlane(n, noise); err != nil {
		return nil, err
	}
	l := plane("spiral", 2)
	for i := range n {
		c := i % 2
		t := rng.Float64()
		a := 3.5*math.Pi*t + math.Pi*float64(c)
		l.X = append(l.X, []float64{t*math.Sin(a) + noise*rng.NormFloat64(), t*math.Cos(a) + noise*rng.NormFloat64()})
		l.Y = append(l.Y, float64(c))
	}
	return l, nil
}

// Surface names a regression target on the plane.
type Surface string

// The targets t(x, y) on [−1, 1]²:
//
//	plane  t = (x + y)/2                      (a linear model fits it)
//	bumps  t = e^{−8‖p − c₁‖²} − e^{−8‖p − c₂‖²} + e^{−8‖p − c₃‖²} − e^{−8‖p − c₄‖²},
//	       c = (±0.5, ±0.5), signs alternating round the square
const (
	SurfacePlane Surface = "plane"
	SurfaceBumps Surface = "bumps"
)

func (s Surface) String() string { return string(s) }

// Eval is t(x, y).
func (s Surface) Eval(x, y float64) float64 {
	if s == SurfacePlane {
		return (x + y) / 2
	}
	t := 0.0
	for k, c := range [4][2]float64{{0.5, 0.5}, {-0.5, 0.5}, {-0.5, -0.5}, {0.5, -0.5}} {
		g := math.Exp(-8 * ((x-c[0])*(x-c[0]) + (y-c[1])*(y-c[1])))
		if k%2 == 1 {
			g = -g
		}
		t += g
	}
	return t
}

// OnSurface draws n points uniform in [−1, 1]² with targets t(x, y) +
// noise·N(0, 1).
func OnSurface(rng *rand.Rand, s Surface, n int, noise float64) (*Labelled, error) {
	if s != SurfacePlane && s != SurfaceBumps {
		return nil, algo.BadParam("surface", s, "plane or bumps")
	}
	if err := checkPlane(n, noise); err != nil {
		return nil, err
	}
	l := &Labelled{Name: string(s), Features: []string{"x", "y"}}
	for range n {
		x, y := 2*rng.Float64()-1, 2*rng.Float64()-1
		l.X = append(l.X, []float64{x, y})
		l.Y = append(l.Y, s.Eval(x, y)+noise*rng.NormFloat64())
	}
	return l, nil
}
