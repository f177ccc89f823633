package mcmcsim

import (
	"strings"
	"testing"

	"github.com/thelab/lab/algo/mcmc"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestNUTSAtFamous checks what the default pane promises by its Famous
// step (400 iterations on the donut, warm-up 200): ε is fixed at the end
// of the warm-up, the mean acceptance statistic after it is near δ = 0.8
// — within [δ − 0.05, δ + 0.15]: the averaged iterate ε̄ after a 200-step
// warm-up is a little small, so the statistic ends above δ (0.85–0.92 on
// seeds 1–8, as Stan's does; the engine's TestNUTSAcceptanceNearDelta
// pins it to 0.05 after a long warm-up), and 200 nearly independent
// iterations give it a standard error of about 0.01 —, no divergence after
// the warm-up, trees of several doublings (a mean of 12–15 leapfrog
// steps), and samples that agree with the ring (no deviation flagged by
// the exact check, R̂ < 1.1). The canvas draws the tree: as many paths as
// doublings that added points, each joined to the trajectory, and the
// start and next-state markers.
func TestNUTSAtFamous(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		s := simtest.Build(t, NUTS, nil, seed, nil)
		simtest.Run(t, s, 200)
		eps := simtest.Metric(t, s.Frame(), "ε")
		simtest.Run(t, s, NUTS.Famous-200)
		f := s.Frame()
		if got := simtest.Metric(t, f, "ε"); got != eps {
			t.Errorf("seed %d: ε %g at the end of the warm-up, %g after", seed, eps, got)
		}
		acc := simtest.Metric(t, f, "accept_stat")
		if !(acc > mcmc.DefaultDelta-0.05 && acc < mcmc.DefaultDelta+0.15) {
			t.Errorf("seed %d: mean acceptance statistic %.3f, δ = %g", seed, acc, mcmc.DefaultDelta)
		}
		if d := simtest.Metric(t, f, "divergent"); d != 0 {
			t.Errorf("seed %d: %g divergent iterations after the warm-up", seed, d)
		}
		res := s.Result()
		if ml := res["mean_leapfrogs"].(float64); ml < 8 {
			t.Errorf("seed %d: %.1f leapfrog steps an iteration", seed, ml)
		}
		for i, r := range res["rhat"].([]any) {
			if r.(float64) > 1.1 {
				t.Errorf("seed %d: R̂[%d] = %.3f", seed, i, r)
			}
		}
		for _, e := range res["exact"].([]map[string]any) {
			if e["flagged"].(bool) {
				t.Errorf("seed %d: off the target: %v", seed, e)
			}
		}
		cv := f.Charts[f.PrimaryChart()].(sims.CanvasChart)
		u := s.(*nutsSim).chain(0)
		tr := u.Tree()
		doublings := map[int8]bool{}
		for _, j := range tr.Doubling {
			if j > 0 {
				doublings[j] = true
			}
		}
		if len(cv.Paths) != len(doublings) || len(cv.Markers) != 3 || !strings.Contains(cv.Title, "tree") {
			t.Errorf("seed %d: canvas %q with %d paths (%d doublings), %d markers", seed, cv.Title, len(cv.Paths), len(doublings), len(cv.Markers))
		}
		points := 0
		for _, p := range cv.Paths {
			points += len(p.X) - 1 // each path repeats the point it grew from
		}
		if points != tr.Len()-1 {
			t.Errorf("seed %d: the paths draw %d new points, the tree has %d", seed, points, tr.Len()-1)
		}
		t.Logf("seed %d: ε %.3f, statistic %.3f, %.1f leapfrogs an iteration, ESS %v", seed, eps, acc, res["mean_leapfrogs"], res["ess"])
	}
}

// TestNUTSFrames: the first frame shows the start (ε₀, undefined tree
// metrics, no tree); every view's frames have the declared metrics,
// finite, and the charts of ε, depth and the acceptance statistic; a 1-D
// target draws its tree as a line; and Step does not allocate.
func TestNUTSFrames(t *testing.T) {
	s := simtest.Build(t, NUTS, nil, 1, nil)
	f := s.Frame()
	for _, name := range []string{"depth", "leapfrogs", "accept_stat"} {
		for _, m := range f.Metrics {
			if m.Name == name && m.Undefined == "" {
				t.Errorf("step 0: %s = %g, want undefined", name, m.Value)
			}
		}
	}
	if e := simtest.Metric(t, f, "ε"); !(e > 0) {
		t.Errorf("step 0: ε = %g", e)
	}
	for _, c := range []struct {
		set   map[string]string
		title string
	}{
		{nil, "chain 1's tree ("},
		{map[string]string{"target": "normal"}, "chain 1's tree: x along"},
		{map[string]string{"target": "squiggle", "chains": "3", "max_depth": "4", "delta": "0.95"}, "chain 1's tree ("},
	} {
		s := simtest.Build(t, NUTS, c.set, 3, nil)
		simtest.Run(t, s, 60)
		f := s.Frame()
		simtest.FiniteMetrics(t, f)
		titles := make([]string, len(f.Charts))
		for i, ch := range f.Charts {
			titles[i] = ch.ChartTitle()
		}
		all := strings.Join(titles, " | ")
		for _, want := range []string{c.title, "step size ε", "tree depth and leapfrog steps", "acceptance statistic vs δ"} {
			if !strings.Contains(all, want) {
				t.Errorf("%v: no chart %q in %s", c.set, want, all)
			}
		}
		if d := simtest.Metric(t, f, "depth"); c.set["max_depth"] == "4" && d > 4 {
			t.Errorf("max_depth 4: depth %g", d)
		}
		if a := testing.AllocsPerRun(50, func() { _ = s.Step() }); a != 0 {
			t.Errorf("%v: Step allocates %v times", c.set, a)
		}
	}
}
