package adsim

import (
	"strings"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// TestGradCheckModels: every model's reverse-mode gradient agrees with
// central differences (h = 1e-5) to a relative 1e-6 on every entry whose
// stencil stays on one side of every kink, entry by entry to the end.
func TestGradCheckModels(t *testing.T) {
	for _, tc := range []struct {
		model   string
		entries float64
	}{{"mlp", 4*8 + 8 + 8*3 + 3}, {"cnn", 3*9 + 3 + 27*2 + 2}, {"attention", 6*4 + 3*16 + 4 + 4 + 4*6}, {"hinge", 6}} {
		s := simtest.Build(t, GradCheck, map[string]string{"model": tc.model}, 0, nil)
		steps := simtest.RunToEnd(t, s, 1000)
		f := s.Frame()
		if float64(steps) != tc.entries || simtest.Metric(t, f, "checked") != tc.entries {
			t.Errorf("%s: %d steps, %v checked; want %v entries", tc.model, steps, simtest.Metric(t, f, "checked"), tc.entries)
		}
		if r := simtest.Metric(t, f, "max_rel"); r > 1e-6 {
			t.Errorf("%s: max relative error %g", tc.model, r)
		}
	}
}

// TestGradCheckKinks: the hinge loss has two points exactly on the margin,
// so the stencils of w₀ and w₁ cross ReLU's kink; both are flagged (their
// finite differences are far off) and left out of the maximum.
func TestGradCheckKinks(t *testing.T) {
	s := simtest.Build(t, GradCheck, map[string]string{"model": "hinge"}, 0, nil)
	simtest.RunToEnd(t, s, 10)
	f := s.Frame()
	if k := simtest.Metric(t, f, "kinks"); k != 2 {
		t.Fatalf("%v kinks, want 2", k)
	}
	kinked := map[string]bool{}
	for _, r := range tableNamed(t, f, "last entry").Rows {
		if r.Cells[0].Text == "kink" {
			kinked[r.Label] = true
		}
	}
	if !kinked["w[0,0]"] || !kinked["w[1,0]"] || len(kinked) != 2 {
		t.Errorf("flagged %v, want w[0,0] and w[1,0]", kinked)
	}
	if !strings.Contains(simtest.Text(f), "2 entries flagged") {
		t.Errorf("notes:\n%s", simtest.Text(f))
	}
}

// TestGradCheckStep: the difference's error is truncation (~h²) for a
// large step and rounding (~ε/h) for a tiny one, both above h = 1e-5's.
func TestGradCheckStep(t *testing.T) {
	maxRel := func(h string) float64 {
		s := simtest.Build(t, GradCheck, map[string]string{"model": "attention", "h": h}, 0, nil)
		simtest.RunToEnd(t, s, 1000)
		return simtest.Metric(t, s.Frame(), "max_rel")
	}
	mid, big, tiny := maxRel("1e-5"), maxRel("0.05"), maxRel("1e-10")
	if !(big > 100*mid && tiny > 100*mid) {
		t.Errorf("max relative errors: h = 0.05 %g, 1e-5 %g, 1e-10 %g", big, mid, tiny)
	}
}
