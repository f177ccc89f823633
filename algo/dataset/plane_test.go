package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
)

// TestPlaneSets: without noise each set obeys its rule — XOR's class is
// the sign of x·y, the spirals stay in the unit disk with radius t, the
// Gaussians' class means sit at ±(0.5, 0.5) — and the classes are
// balanced.
func TestPlaneSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xor, err := XorCloud(rng, 400, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range xor.X {
		if xor.Y[i] != b2f(p[0]*p[1] < 0) || math.Abs(p[0]) < 0.1 || math.Abs(p[1]) < 0.1 {
			t.Fatalf("xor point %v class %g", p, xor.Y[i])
		}
	}
	sp, _ := Spiral(rng, 400, 0)
	for _, p := range sp.X {
		if math.Hypot(p[0], p[1]) > 1 {
			t.Fatalf("spiral point %v outside the unit disk", p)
		}
	}
	g, _ := TwoGaussians(rng, 4000, 0)
	var sum [2][2]float64
	for i, p := range g.X {
		c := int(g.Y[i])
		sum[c][0] += p[0] / 2000
		sum[c][1] += p[1] / 2000
	}
	se := 0.3 / math.Sqrt(2000)
	for c, m := range sum {
		want := 0.5 * float64(2*c-1)
		algotest.Near(t, "gauss mean x", m[0], want, 4*se)
		algotest.Near(t, "gauss mean y", m[1], want, 4*se)
	}
	for _, l := range []*Labelled{xor, sp, g} {
		ones := 0.0
		for _, y := range l.Y {
			ones += y
		}
		if l.Classes != 2 || math.Abs(ones/float64(l.N())-0.5) > 0.1 {
			t.Errorf("%s: %d classes, %g ones of %d", l.Name, l.Classes, ones, l.N())
		}
	}
	_, err = Spiral(rng, 1, 0)
	algotest.WantParam(t, err, "n")
	_, err = XorCloud(rng, 10, -1)
	algotest.WantParam(t, err, "noise")
}

func TestSurfaces(t *testing.T) {
	algotest.Near(t, "plane", SurfacePlane.Eval(0.4, -0.2), 0.1, 1e-15)
	algotest.Near(t, "bumps at c₁", SurfaceBumps.Eval(0.5, 0.5), 1-2*math.Exp(-8)+math.Exp(-16), 1e-12)
	algotest.Near(t, "bumps at 0", SurfaceBumps.Eval(0, 0), 0, 1e-15)
	rng := rand.New(rand.NewPCG(3, 4))
	l, err := OnSurface(rng, SurfaceBumps, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range l.X {
		algotest.Near(t, "target", l.Y[i], SurfaceBumps.Eval(p[0], p[1]), 0)
	}
	_, err = OnSurface(rng, "sine", 50, 0)
	algotest.WantParam(t, err, "surface")
}

// TestPlaneGaps: on noiseless draws the gaps are where their constants say.
// The circles' and the moons' nearest points of opposite classes are
// CirclesGap and MoonsGap apart; a spiral point's nearest point of the
// other arm is 0.9–1 times SpiralGap away between r = 0.4 and 0.7 (the
// arms cross a ray 2/7 apart and lean from it); the xor points lie
// XorGap/2 from the axes on average.
func TestPlaneGaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	nearest := func(l *Labelled, keep func(p []float64) bool) (lo, hi float64) {
		lo, hi = math.Inf(1), 0
		for i, p := range l.X {
			if !keep(p) {
				continue
			}
			d := math.Inf(1)
			for j, q := range l.X {
				if l.Y[j] != l.Y[i] {
					d = math.Min(d, math.Hypot(p[0]-q[0], p[1]-q[1]))
				}
			}
			lo, hi = math.Min(lo, d), math.Max(hi, d)
		}
		return lo, hi
	}
	all := func([]float64) bool { return true }
	c, _ := Circles(rng, 2000, 0.5, 0)
	lo, _ := nearest(c, all)
	algotest.Near(t, "circles' gap", lo, CirclesGap(0.5), 1e-3)
	m, _ := Moons(rng, 4000, 0)
	lo, _ = nearest(m, all)
	algotest.Near(t, "moons' gap", lo, MoonsGap, 3e-3)
	s, _ := Spiral(rng, 4000, 0)
	lo, hi := nearest(s, func(p []float64) bool { r := math.Hypot(p[0], p[1]); return r > 0.4 && r < 0.7 })
	if lo < 0.9*SpiralGap || hi > SpiralGap {
		t.Errorf("spiral: the other arm %g–%g away, want 0.9–1 times %g", lo, hi, SpiralGap)
	}
	x, _ := XorCloud(rng, 20000, 0)
	mean := 0.0
	for _, p := range x.X {
		mean += (math.Abs(p[0]) + math.Abs(p[1])) / float64(2*x.N())
	}
	algotest.Near(t, "xor's mean distance from an axis", mean, XorGap/2, 0.005)
}

// TestQuotedCrossingOdds: the chances the package comment quotes of a
// point δ/2 from the boundary being pushed across it at noise σ = νδ,
// Φ(−1/(2ν)), each to its quoted digits: 3·10⁻⁷ at ν = 0.1, 0.6% at 0.2,
// 2.3% at 0.25, 16% at 0.5 and 31% at 1.
func TestQuotedCrossingOdds(t *testing.T) {
	for _, c := range []struct {
		nu    float64
		quote string
		verb  string
		scale float64
	}{
		{0.1, "3e-07", "%.0e", 1}, {0.2, "0.6", "%.1f", 100}, {0.25, "2.3", "%.1f", 100},
		{0.5, "16", "%.0f", 100}, {1, "31", "%.0f", 100},
	} {
		p := 0.5 * math.Erfc(1/(2*c.nu)/math.Sqrt2)
		if got := fmt.Sprintf(c.verb, c.scale*p); got != c.quote {
			t.Errorf("ν = %g: Φ(−1/(2ν)) = %.3g reads %s, quoted %s", c.nu, p, got, c.quote)
		}
	}
}
