package ot

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
)

func sum(w []float64) float64 {
	s := 0.0
	for _, v := range w {
		s += v
	}
	return s
}

// TestPresets: every preset builds, with marginals summing to 1, the
// requested sizes (worked examples: their own), positions of the right
// shape and a finite cost; the generated ones are reproducible from the
// seed.
func TestPresets(t *testing.T) {
	for _, pr := range Presets {
		p, err := pr.New(rand.New(rand.NewPCG(1, 2)), 30, 20)
		if err != nil {
			t.Fatalf("%s: %v", pr.Name, err)
		}
		if p.Name != pr.Name {
			t.Errorf("%s: named %q", pr.Name, p.Name)
		}
		algotest.Near(t, pr.Name+" Σμ", sum(p.Mu), 1, 1e-12)
		algotest.Near(t, pr.Name+" Σν", sum(p.Nu), 1, 1e-12)
		if !pr.Fixed && (p.N() != 30 || (p.M() != 20 && pr.Name != "gauss-hist")) {
			t.Errorf("%s: %d×%d atoms", pr.Name, p.N(), p.M())
		}
		if n, m := pr.Atoms(30, 20); p.N() != n || p.M() != m || p.Dim != pr.Dim {
			t.Errorf("%s: %d×%d atoms in %d-D, declared %d×%d in %d-D", pr.Name, p.N(), p.M(), p.Dim, n, m, pr.Dim)
		}
		if p.Dim > 0 && (len(p.X) != p.Dim*p.N() || len(p.Y) != p.Dim*p.M()) {
			t.Errorf("%s: %d and %d coordinates for %d×%d atoms in %d-D", pr.Name, len(p.X), len(p.Y), p.N(), p.M(), p.Dim)
		}
		c, err := p.Cost(2)
		if err != nil || CheckCost(c, p.N(), p.M()) != nil {
			t.Errorf("%s: cost %v", pr.Name, err)
		}
		again, _ := pr.New(rand.New(rand.NewPCG(1, 2)), 30, 20)
		for k, v := range p.X {
			if again.X[k] != v {
				t.Fatalf("%s: not reproducible from the seed", pr.Name)
			}
		}
		if got, ok := PresetByName(pr.Name); !ok || got.Name != pr.Name {
			t.Errorf("PresetByName(%q)", pr.Name)
		}
	}
	_, err := TwoGaussians(rand.New(rand.NewPCG(1, 2)), 0, 5)
	algotest.WantParam(t, err, "n")
}

// TestGroundCost: ‖x − y‖^p in 1-D and 2-D, and the 3×3 example's cost is
// |x − y|² on its points.
func TestGroundCost(t *testing.T) {
	c := GroundCost([]float64{0, 0, 3, 4}, []float64{0, 0}, 2, 1)
	if c[0] != 0 || c[1] != 5 {
		t.Errorf("2-D distances %v", c)
	}
	c = GroundCost([]float64{0, 0, 3, 4}, []float64{0, 0}, 2, 3)
	algotest.Near(t, "p = 3", c[1], 125, 1e-12)
	p := Three()
	g := GroundCost(p.X, p.Y, 1, 2)
	for k, v := range p.C {
		algotest.Near(t, "three", g[k], v, 0)
	}
	q, _ := TwoGaussians(rand.New(rand.NewPCG(1, 2)), 3, 3)
	_, err := q.Cost(0.5)
	algotest.WantParam(t, err, "p")
}

// TestMarginals: unequal totals are refused, naming both sums; within
// MassTol they are accepted and each side divided by its own total.
func TestMarginals(t *testing.T) {
	_, _, err := Marginals([]float64{0.5, 0.5}, []float64{0.5, 0.6})
	algotest.WantParam(t, err, "nu")
	if err == nil || !strings.Contains(err.Error(), "1.1") || !strings.Contains(err.Error(), "mu, 1,") {
		t.Errorf("%v should show both totals", err)
	}
	a, b, err := Marginals([]float64{2, 2}, []float64{1, 3 * (1 + 1e-7)})
	if err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "Σa", sum(a), 1, 1e-15)
	algotest.Near(t, "Σb", sum(b), 1, 1e-15)
	for _, tt := range []struct {
		mu, nu []float64
		param  string
	}{
		{nil, []float64{1}, "mu"},
		{[]float64{1}, []float64{}, "nu"},
		{[]float64{1, -1, 1}, []float64{1}, "mu"},
		{[]float64{1}, []float64{math.NaN()}, "nu"},
		{[]float64{0, 0}, []float64{1}, "mu"},
		{[]float64{1}, []float64{math.Inf(1)}, "nu"},
	} {
		_, _, err := Marginals(tt.mu, tt.nu)
		algotest.WantParam(t, err, tt.param)
	}
	algotest.WantParam(t, CheckCost([]float64{0, math.NaN()}, 1, 2), "cost")
	algotest.WantParam(t, CheckCost([]float64{0}, 1, 2), "cost")
}

// TestFromPoints: the point form of user data — uniform masses per side
// without a weight column, weights divided by their side's total, and
// clear refusals naming the row or showing both sums.
func TestFromPoints(t *testing.T) {
	coords := [][]float64{{0, 0}, {1, 0}, {0, 1}, {5, 5}, {6, 5}}
	sides := []Side{Source, Source, Source, Target, Target}
	p, err := FromPoints("f.csv", coords, nil, sides)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dim != 2 || p.N() != 3 || p.M() != 2 || p.Mu[0] != 1.0/3 || p.Nu[1] != 0.5 {
		t.Errorf("uniform: %+v", p)
	}
	p, err = FromPoints("f.csv", coords, []float64{1, 2, 1, 3, 1}, sides)
	if err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "μ2", p.Mu[1], 0.5, 1e-15)
	algotest.Near(t, "ν1", p.Nu[0], 0.75, 1e-15)
	for _, tt := range []struct {
		name    string
		coords  [][]float64
		weights []float64
		sides   []Side
		want    string
	}{
		{"unequal totals", coords, []float64{1, 1, 1, 1, 1}, sides, "sum to 3 and the target masses to 2"},
		{"negative weight", coords, []float64{1, -2, 1, 3, 1}, sides, "row 2: weight -2"},
		{"NaN weight", coords, []float64{1, 2, math.NaN(), 3, 1}, sides, "row 3"},
		{"empty side", coords, nil, []Side{Source, Source, Source, Source, Source}, "target side has no rows"},
		{"zero side", coords, []float64{1, 1, 1, 0, 0}, sides, "target masses sum to 0"},
		{"ragged", [][]float64{{0, 0}, {1}}, nil, []Side{Source, Target}, "row 2: 1 coordinates"},
		{"3-D", [][]float64{{0, 0, 0}}, nil, []Side{Source}, "1 or 2 coordinates"},
		{"Inf coordinate", [][]float64{{0}, {math.Inf(1)}}, nil, []Side{Source, Target}, "row 2"},
	} {
		_, err := FromPoints("f.csv", tt.coords, tt.weights, tt.sides)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "f.csv: ") {
			t.Errorf("%s: %v, want a message with %q", tt.name, err, tt.want)
		}
	}
}

// TestFromHistograms: the x,a,b form keeps empty bins and refuses
// unequal totals with both sums.
func TestFromHistograms(t *testing.T) {
	p, err := FromHistograms("h.csv", []float64{0, 1, 2}, []float64{2, 0, 2}, []float64{1, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if p.N() != 3 || p.Mu[1] != 0 || p.Mu[0] != 0.5 || p.Nu[2] != 0.5 {
		t.Errorf("%+v", p)
	}
	_, err = FromHistograms("h.csv", []float64{0, 1}, []float64{1, 1}, []float64{1, 2})
	if err == nil || !strings.Contains(err.Error(), "column a masses sum to 2 and the column b masses to 3") {
		t.Errorf("unequal: %v", err)
	}
	_, err = FromHistograms("h.csv", []float64{0, 1}, []float64{1, -1}, []float64{1, 2})
	if err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("negative: %v", err)
	}
}

func TestParseSide(t *testing.T) {
	for s, want := range map[string]Side{"source": Source, " Target ": Target, "SOURCE": Source} {
		if got, err := ParseSide(s); err != nil || got != want {
			t.Errorf("ParseSide(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSide("left"); err == nil || !strings.Contains(err.Error(), "source or target") {
		t.Errorf("ParseSide(left): %v", err)
	}
}

// TestShapes: every built-in grid shape is a probability vector.
func TestShapes(t *testing.T) {
	for _, name := range Shapes {
		p, err := Shape(name, 32)
		if err != nil {
			t.Fatal(err)
		}
		algotest.Near(t, name, sum(p), 1, 1e-12)
	}
	_, err := Shape("star", 32)
	algotest.WantParam(t, err, "shape")
	_, err = Shape("disk", 4)
	algotest.WantParam(t, err, "grid")
}

// TestMassTol: Marginals takes totals that agree within a relative
// MassTol = 1e-6 (half of it accepted, and both sides then sum to one to
// rounding, 1e-15), and refuses twice it naming nu.
func TestMassTol(t *testing.T) {
	for _, c := range []struct {
		rel float64
		ok  bool
	}{{0.5 * MassTol, true}, {-0.5 * MassTol, true}, {2 * MassTol, false}, {-2 * MassTol, false}} {
		a, b, err := Marginals([]float64{3, 1}, []float64{2, 2 * (1 + 2*c.rel)})
		if !c.ok {
			algotest.WantParam(t, err, "nu")
			continue
		}
		if err != nil {
			t.Errorf("totals a relative %g apart: %v", c.rel, err)
			continue
		}
		algotest.Near(t, "Σa", sum(a), 1, 1e-15)
		algotest.Near(t, "Σb", sum(b), 1, 1e-15)
	}
}
