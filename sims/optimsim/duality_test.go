package optimsim

import (
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestDualityToy: the default run is the notes' toy, min w² s.t. w ≥ 1:
// it ends at α* = 2, w* = 1, θ_D = p* = 1 (strong duality) with every
// KKT condition ticked, its gap curve never below 0 and never rising (η
// = 0.2 ≤ 2), and the story lasts 20 s at its speed.
func TestDualityToy(t *testing.T) {
	s := simtest.Build(t, Duality, nil, 1, nil)
	steps := simtest.RunToEnd(t, s, 5000)
	if secs := float64(steps) / Duality.Speed; secs < 20 {
		t.Errorf("converged in %d steps: %.0f s at %g a second", steps, secs, Duality.Speed)
	}
	f := s.Frame()
	algotest.Near(t, "α", simtest.Metric(t, f, "α"), 2, 1e-8)
	algotest.Near(t, "w", simtest.Metric(t, f, "w"), 1, 1e-8)
	algotest.Near(t, "θ_D", simtest.Metric(t, f, "θ_D"), 1, 1e-12)
	algotest.Near(t, "p*", simtest.Metric(t, f, "p*"), 1, 0)
	if text := simtest.Text(f); strings.Contains(text, "✗") || !strings.Contains(text, "active at the optimum") {
		t.Errorf("KKT at the end:\n%s", text)
	}
	gap, ok := f.Series("gap")
	if !ok || len(gap.Y) != steps+2 {
		t.Fatalf("gap series: %d points after %d steps", len(gap.Y), steps+1)
	}
	for i, g := range gap.Y {
		if g < 0 || i > 0 && g > gap.Y[i-1] {
			t.Fatalf("gap at step %d: %g after %g", i, g, gap.Y[max(i-1, 0)])
		}
	}
}

// TestDualityInactiveAndCycling: with c < a the pane says the constraint
// is inactive and α stays at 0; with η = 4.5 the ascent never settles,
// yet θ_D stays below p*.
func TestDualityInactiveAndCycling(t *testing.T) {
	s := simtest.Build(t, Duality, map[string]string{"a": "1", "c": "-1"}, 1, nil)
	simtest.RunToEnd(t, s, 100)
	f := s.Frame()
	if a := simtest.Metric(t, f, "α"); a != 0 || !strings.Contains(simtest.Text(f), "inactive") {
		t.Errorf("c < a: α = %g\n%s", a, simtest.Text(f))
	}
	s = simtest.Build(t, Duality, map[string]string{"eta": "4.5"}, 1, nil)
	if _, converged := simtest.RunUntil(t, s, 500); converged {
		t.Error("η = 4.5 converged")
	}
	if g := simtest.Metric(t, s.Frame(), "gap"); g < 0 {
		t.Errorf("η = 4.5: gap %g below 0", g)
	}
}
