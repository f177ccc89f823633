package optimsim

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestMajoriseWavyLocalMinimum: the pane's default (wavy, a = 4, x0 = 3,
// t = 1/L) stops at the local minimum 2.7607, f = 4.3635 (catalogue [A13]),
// with no descent-lemma failure and the drawn Thm 8.8 bound above the
// least gradient at every step.
func TestMajoriseWavyLocalMinimum(t *testing.T) {
	s := simtest.Build(t, Majorise, nil, 0, nil)
	simtest.RunToEnd(t, s, 500)
	f := s.Frame()
	algotest.Near(t, "x", simtest.Metric(t, f, "x"), 2.7607, 5e-5)
	algotest.Near(t, "f", simtest.Metric(t, f, "f"), 4.3635, 5e-5)
	algotest.Near(t, "lemma_fails", simtest.Metric(t, f, "lemma_fails"), 0, 0)
	g, ok1 := f.Series("min |f′|")
	b, ok2 := f.Series("Thm 8.8 bound")
	if !ok1 || !ok2 || len(g.Y) != len(b.Y) || len(g.Y) < 3 {
		t.Fatalf("series: %v %v", ok1, ok2)
	}
	for k := range g.Y {
		if g.Y[k] > b.Y[k] {
			t.Errorf("step %d: min|f′| = %g above Thm 8.8's %g", k, g.Y[k], b.Y[k])
		}
	}
}

// TestMajoriseNotes: what the text says follows the theory at each step
// size: t ≤ 1/L majorises and the lemma holds; 1/L < t < 2/L does not
// majorise and the lemma fails; t > 2/L diverges on the quadratic; the
// tangent is a lower bound for the convex functions only.
func TestMajoriseNotes(t *testing.T) {
	tests := []struct {
		set       map[string]string
		want      []string
		lemmaFail bool
		diverge   bool
	}{
		{map[string]string{"fn": "quadratic"}, []string{"a majoriser", "tangent ≤ f", "Thm 8.7"}, false, false},
		{map[string]string{"fn": "quadratic", "lr": "0.75"}, []string{"no majoriser", "✗"}, true, false},
		{map[string]string{"fn": "quadratic", "lr": "1.05"}, []string{"no majoriser", "GD diverges"}, true, true},
		{map[string]string{"fn": "logcosh", "x0": "-4"}, []string{"a majoriser", "tangent ≤ f", "Thm 8.5"}, false, false},
		{map[string]string{"fn": "wavy", "a": "2", "x0": "-4"}, []string{"not convex, no lower bound", "Thm 8.8"}, false, false},
	}
	for _, tt := range tests {
		s := simtest.Build(t, Majorise, tt.set, 0, nil)
		text := simtest.Text(s.Frame())
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: notes lack %q:\n%s", tt.set, w, text)
			}
		}
		err := simtest.RunErr(s, 1000)
		if tt.diverge != errors.Is(err, sims.ErrDiverged) {
			t.Errorf("%v: ended with %v", tt.set, err)
		}
		if !tt.diverge {
			simtest.FiniteMetrics(t, s.Frame())
			if fails := simtest.Metric(t, s.Frame(), "lemma_fails"); (fails > 0) != tt.lemmaFail {
				t.Errorf("%v: %v lemma failures", tt.set, fails)
			}
		}
	}
}

// TestMajoriseBoundCurve: on the quadratic with t = 0.5/L the drawn
// Thm 8.7 and 8.5 bounds lie above f(x_k) − f*.
func TestMajoriseBoundCurve(t *testing.T) {
	s := simtest.Build(t, Majorise, map[string]string{"fn": "quadratic", "lr": "0.25"}, 0, nil)
	simtest.RunUntil(t, s, 200)
	f := s.Frame()
	gap, _ := f.Series("f−f*")
	for _, name := range []string{"Thm 8.7 bound", "Thm 8.5 bound"} {
		b, ok := f.Series(name)
		if !ok || len(b.Y) != len(gap.Y) {
			t.Fatalf("no %s", name)
		}
		for k := range gap.Y {
			if gap.Y[k] > b.Y[k]*(1+1e-12)+1e-300 {
				t.Errorf("%s step %d: %g > %g", name, k, gap.Y[k], b.Y[k])
			}
		}
	}
	if v := simtest.Metric(t, f, "model_gap"); !(v >= 0) || math.IsInf(v, 0) {
		t.Errorf("model_gap %v", v)
	}
}

func TestMajoriseBadParams(t *testing.T) {
	_, err := simtest.BuildErr(Majorise, map[string]string{"lr": "0"}, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "lr") {
		t.Errorf("lr=0: %v", err)
	}
}
