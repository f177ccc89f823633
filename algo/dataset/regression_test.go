package dataset

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
)

// TestEpsilonIsTheNotesExample: X = [[0, ε], [1, 1]] (columns are samples)
// and y = (1, −1), and w = (−2/ε, 1) fits both samples exactly.
func TestEpsilonIsTheNotesExample(t *testing.T) {
	l, err := Epsilon(0.1)
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{-2 / 0.1, 1}
	for i, x := range l.X {
		if got := x[0]*w[0] + x[1]*w[1]; math.Abs(got-l.Y[i]) > 1e-12 {
			t.Errorf("sample %d: w·x = %v, y = %v", i, got, l.Y[i])
		}
	}
	if l.Classes != 0 {
		t.Error("a regression set has Classes = 0")
	}
}

// TestRegressionGenerators: seeded, the planted line and coefficients are
// recovered on average (the residual mean is within 4 standard errors of 0).
func TestRegressionGenerators(t *testing.T) {
	a, _ := Line(rand.New(rand.NewPCG(3, 4)), 2000, 0.5)
	b, _ := Line(rand.New(rand.NewPCG(3, 4)), 2000, 0.5)
	if a.X[9][0] != b.X[9][0] || a.Y[9] != b.Y[9] {
		t.Error("Line is not reproducible from the seed")
	}
	sum := 0.0
	for i, x := range a.X {
		if x[0] < -3 || x[0] > 3 {
			t.Fatalf("x = %v outside [−3, 3]", x[0])
		}
		sum += a.Y[i] - (1.5*x[0] - 0.5)
	}
	if m := sum / 2000; math.Abs(m) > 4*0.5/math.Sqrt(2000) {
		t.Errorf("Line residual mean %v", m)
	}
	l, err := Linear(rand.New(rand.NewPCG(1, 2)), 3000, 4, 0.5, 0.3)
	if err != nil || l.D() != 4 || l.N() != 3000 {
		t.Fatalf("Linear: %v", err)
	}
	w, b0 := LinearTrue(4)
	if w[0] != 2 || w[1] != -1 || b0 != 1 {
		t.Errorf("LinearTrue = %v, %v", w, b0)
	}
	sum = 0
	for i, x := range l.X {
		r := l.Y[i] - b0
		for j := range x {
			r -= w[j] * x[j]
		}
		sum += r
	}
	if m := sum / 3000; math.Abs(m) > 4*0.3/math.Sqrt(3000) {
		t.Errorf("Linear residual mean %v", m)
	}
}

func TestRegressionGeneratorErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tt := range []struct {
		err  error
		name string
	}{
		{func() error { _, e := Epsilon(0); return e }(), "eps"},
		{func() error { _, e := Line(rng, 1, 0.1); return e }(), "n"},
		{func() error { _, e := Line(rng, 10, -1); return e }(), "noise"},
		{func() error { _, e := Linear(rng, 10, 0, 0, 0); return e }(), "d"},
		{func() error { _, e := Linear(rng, 10, 2, -1, 0); return e }(), "rho"},
	} {
		var pe *algo.ParamError
		if !errors.As(tt.err, &pe) || pe.Name != tt.name {
			t.Errorf("want a ParamError naming %s, got %v", tt.name, tt.err)
		}
	}
}
