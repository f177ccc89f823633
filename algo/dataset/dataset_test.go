package dataset

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
)

func TestFromColumnsLabels(t *testing.T) {
	tests := []struct {
		name    string
		cols    []string
		rows    [][]float64
		classes int
		y       []float64
		x0      []float64
	}{
		{"last column 0/1", []string{"a", "b", "y"}, [][]float64{{1, 2, 0}, {3, 4, 1}}, 2, []float64{0, 1}, []float64{1, 2}},
		{"±1", []string{"a", "y"}, [][]float64{{1, -1}, {3, 1}}, 2, []float64{0, 1}, []float64{1}},
		{"named label first", []string{"label", "a", "b"}, [][]float64{{2, 1, 2}, {0, 3, 4}}, 3, []float64{2, 0}, []float64{1, 2}},
		{"all one class", []string{"a", "y"}, [][]float64{{1, 1}, {3, 1}}, 2, []float64{1, 1}, []float64{1}},
	}
	for _, tt := range tests {
		l, err := FromColumns("t", tt.cols, tt.rows, true)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if l.Classes != tt.classes || l.Y[0] != tt.y[0] || l.Y[1] != tt.y[1] || l.X[0][0] != tt.x0[0] || l.D() != len(tt.x0) {
			t.Errorf("%s: classes %d, y %v, x0 %v", tt.name, l.Classes, l.Y, l.X[0])
		}
	}
	// Regression keeps real targets.
	l, err := FromColumns("r", []string{"x", "y"}, [][]float64{{1, 0.5}, {2, -3.25}}, false)
	if err != nil || l.Classes != 0 || l.Y[1] != -3.25 {
		t.Errorf("regression: %+v %v", l, err)
	}
}

func TestFromColumnsErrors(t *testing.T) {
	tests := []struct {
		cols []string
		rows [][]float64
		want string
	}{
		{[]string{"y"}, [][]float64{{1}}, "feature column"},
		{[]string{"a", "y"}, nil, "no rows"},
		{[]string{"a", "y"}, [][]float64{{1, 0.5}}, "row 1"},
		{[]string{"a", "y"}, [][]float64{{1, -1}, {1, 2}}, "mixes -1"},
		{[]string{"a", "y"}, [][]float64{{1, -2}}, "labels must be"},
	}
	for _, tt := range tests {
		_, err := FromColumns("t", tt.cols, tt.rows, true)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %v: %v, want %q", tt.cols, tt.rows, err, tt.want)
		}
	}
}

func TestNotesData(t *testing.T) {
	or, xor, spam := Or(), Xor(), Spam()
	if pm, _ := or.PlusMinus(); pm[0] != -1 || pm[3] != 1 {
		t.Errorf("OR labels %v", pm)
	}
	if pm, _ := xor.PlusMinus(); pm[0] != -1 || pm[1] != 1 || pm[3] != -1 {
		t.Errorf("XOR labels %v (erratum E2: − + + −)", pm)
	}
	if spam.N() != 6 || spam.D() != 5 || spam.Y[0] != 1 || spam.Y[1] != 0 {
		t.Errorf("spam %v %v", spam.X, spam.Y)
	}
	if _, err := (&Labelled{Name: "b", Classes: 3}).PlusMinus(); err == nil {
		t.Error("PlusMinus on three classes")
	}
}

// TestSeparableMargin: every point has margin ≥ gamma about w*, and the
// label is the side of the line.
func TestSeparableMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	l, w, err := Separable(rng, 500, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(math.Hypot(w[0], w[1])-1) > 1e-12 {
		t.Fatalf("w* not unit: %v", w)
	}
	for i, x := range l.X {
		m := x[0]*w[0] + x[1]*w[1]
		if math.Abs(m) < 0.1 || (m > 0) != (l.Y[i] == 1) {
			t.Fatalf("point %d: margin %v, label %v", i, m, l.Y[i])
		}
	}
}

func TestGeneratorsAreSeededAndBalanced(t *testing.T) {
	gen := map[string]func(*rand.Rand) (*Labelled, error){
		"blobs": func(r *rand.Rand) (*Labelled, error) { return Blobs(r, 300, 3, 0.5) },
		"moons": func(r *rand.Rand) (*Labelled, error) { return Moons(r, 300, 0.1) },
		"rings": func(r *rand.Rand) (*Labelled, error) { return Rings(r, 300, 3, 0.1) },
	}
	for name, g := range gen {
		a, err := g(rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := g(rand.New(rand.NewPCG(5, 6)))
		if a.X[17][0] != b.X[17][0] {
			t.Errorf("%s: not reproducible from the seed", name)
		}
		counts := make([]int, a.Classes)
		for _, y := range a.Int() {
			counts[y]++
		}
		for c, n := range counts {
			if n != 300/a.Classes {
				t.Errorf("%s: class %d has %d points", name, c, n)
			}
		}
	}
}

func TestGeneratorErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, err := range []error{
		func() error { _, _, e := Separable(rng, 1, 0.1); return e }(),
		func() error { _, _, e := Separable(rng, 10, 0.7); return e }(),
		func() error { _, e := Blobs(rng, 10, 1, 1); return e }(),
		func() error { _, e := Blobs(rng, 10, 3, 0); return e }(),
		func() error { _, e := Moons(rng, 10, -1); return e }(),
		func() error { _, e := Rings(rng, 10, 11, 0.1); return e }(),
	} {
		var pe *algo.ParamError
		if !errors.As(err, &pe) {
			t.Errorf("want a ParamError, got %v", err)
		}
	}
}
