package dataset

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
)

func TestKernelPresets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e, err := Ellipse(rng, 500, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range e.X {
		q := x[0]*x[0]/EllipseA2 + x[1]*x[1]
		if math.Abs(q-1) < 0.1 || (q < 1) != (e.Y[i] == 1) {
			t.Fatalf("ellipse point %v level %v label %v", x, q, e.Y[i])
		}
	}
	// Two Gaussian classes: the class means are sep apart, each coordinate
	// has unit variance about its class mean (within 4 standard errors).
	const n, d, sep = 4000, 5, 3.0
	g, err := GaussianClasses(rng, n, d, sep)
	if err != nil || g.D() != d || g.Classes != 2 {
		t.Fatalf("gaussians: %v %d", err, g.D())
	}
	var m [2][d]float64
	for i, x := range g.X {
		for j, v := range x {
			m[int(g.Y[i])][j] += v / (n / 2)
		}
	}
	dist := 0.0
	for j := 0; j < d; j++ {
		dist += (m[1][j] - m[0][j]) * (m[1][j] - m[0][j])
	}
	if se := math.Sqrt(2 * 2.0 / n * d); math.Abs(math.Sqrt(dist)-sep) > 4*se {
		t.Errorf("class means %v apart, want %v", math.Sqrt(dist), sep)
	}
	s, _ := Sinusoid(rng, 300, 0.3, 0.4, 0.6)
	for _, x := range s.X {
		if x[0] > 0.4 && x[0] < 0.6 || x[0] < 0 || x[0] > 1 {
			t.Fatalf("sinusoid x = %v in the gap or outside [0, 1]", x[0])
		}
	}
	c, _ := Circles(rng, 200, 0.3, 0)
	for i, x := range c.X {
		r := math.Hypot(x[0], x[1])
		if want := 0.3 + 0.7*c.Y[i]; math.Abs(r-want) > 1e-12 {
			t.Fatalf("circle point at radius %v, class %v", r, c.Y[i])
		}
	}
	l, _ := NoisyLine(rng, 50, 1, -2, 0)
	for i, x := range l.X {
		if math.Abs(l.Y[i]-(1-2*x[0])) > 1e-12 {
			t.Fatalf("noiseless line: %v at %v", l.Y[i], x[0])
		}
	}
	z := Standardize([][]float64{{1, 5}, {3, 5}, {5, 5}})
	if z[0][0] != -math.Sqrt(1.5) || z[2][0] != math.Sqrt(1.5) || z[1][1] != 0 {
		t.Errorf("standardised: %v", z)
	}
}

func TestKernelPresetsBadParams(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	errs := map[string]error{}
	_, errs["n"] = Ellipse(rng, 1, 0.1)
	_, errs["gap"] = Ellipse(rng, 10, 0.6)
	_, errs["d"] = GaussianClasses(rng, 10, 0, 1)
	_, errs["sep"] = GaussianClasses(rng, 10, 2, -1)
	_, errs["noise"] = Sinusoid(rng, 10, -1, 0, 0)
	_, errs["factor"] = Circles(rng, 10, 1, 0)
	for name, err := range errs {
		var pe *algo.ParamError
		if !errors.As(err, &pe) || pe.Name != name {
			t.Errorf("%s: %v", name, err)
		}
	}
}
