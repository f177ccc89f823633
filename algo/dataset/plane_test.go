package dataset

import (
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
