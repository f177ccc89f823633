package adsim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/adsim"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui"
)

// panes are the configurations pinned by golden frames: each sim (each
// demo of implicit) a few steps in, where the pane has something to show.
var panes = []struct {
	name  string
	spec  *sims.Spec
	set   map[string]string
	steps int
}{
	{"ad-graph-forward", adsim.Graph, map[string]string{"mode": "forward"}, 2},
	{"ad-graph-fanout", adsim.Graph, map[string]string{"preset": "fanout", "mode": "reverse"}, 10},
	{"jacobian", adsim.Jacobian, nil, 3},
	{"hessian", adsim.Hessian, nil, 3},
	{"implicit-heron", adsim.Implicit, nil, 3},
	{"implicit-circle", adsim.Implicit, map[string]string{"demo": "circle"}, 1},
	{"implicit-lu", adsim.Implicit, map[string]string{"demo": "lu"}, 9},
	{"implicit-lp", adsim.Implicit, map[string]string{"demo": "lp"}, 9},
	{"coloring", adsim.Coloring, nil, 8},
	{"coloring-jacobian", adsim.Coloring, map[string]string{"problem": "jacobian"}, 8},
	{"gradcheck", adsim.GradCheck, map[string]string{"model": "hinge"}, 6},
}

// render draws the sim's pane after its steps, as `lab run --frames` does.
func render(t *testing.T, spec *sims.Spec, set map[string]string, steps, w, h int, mono bool) string {
	t.Helper()
	s := simtest.Build(t, spec, set, 1, nil)
	_ = simtest.RunErr(s, steps)
	snap := &sims.Snapshot{Frame: s.Frame(), Spec: spec, State: sims.Paused, Speed: spec.Speed, Seed: 1}
	return tui.RenderPane(snap, w, h, tui.PaneStyle{Focused: true, Mono: mono})
}

// TestGoldenPanes pins each pane at 80×24 in monochrome (and the first in
// colour). Run with -update after an intended change.
func TestGoldenPanes(t *testing.T) {
	for i, p := range panes {
		t.Run(p.name, func(t *testing.T) {
			golden.RequireEqual(t, render(t, p.spec, p.set, p.steps, 80, 24, true))
		})
		if i == 0 {
			t.Run(p.name+"-colour", func(t *testing.T) {
				golden.RequireEqual(t, render(t, p.spec, p.set, p.steps, 80, 24, false))
			})
		}
	}
}

// TestNotesFit: every note line and the metrics row fit a pane of 70
// columns (two panes side by side on a 140-column screen), so nothing is
// cut mid-word there; at every step of a run, for every choice of every
// choice parameter of every sim of the package.
func TestNotesFit(t *testing.T) {
	const inner = 68
	type config struct {
		name string
		spec *sims.Spec
		set  map[string]string
	}
	var configs []config
	for _, spec := range []*sims.Spec{adsim.Graph, adsim.Jacobian, adsim.Hessian, adsim.Implicit, adsim.Coloring, adsim.GradCheck} {
		for _, p := range spec.Params {
			for _, c := range p.Choices {
				configs = append(configs, config{spec.Name + " " + p.Name + "=" + c, spec, map[string]string{p.Name: c}})
			}
		}
	}
	for _, p := range configs {
		s := simtest.Build(t, p.spec, p.set, 1, nil)
		check := func(step int) {
			f := s.Frame()
			for _, line := range f.Text {
				if w := ansi.StringWidth(line); w > inner {
					t.Errorf("%s step %d: note of %d columns: %q", p.name, step, w, line)
				}
			}
			var metrics []string
			for _, m := range f.Metrics {
				metrics = append(metrics, fmt.Sprintf("%s %.4g", m.Name, m.Value))
			}
			if w := ansi.StringWidth(strings.Join(metrics, "   ")); w > inner {
				t.Errorf("%s step %d: metrics row of %d columns", p.name, step, w)
			}
		}
		check(0)
		for step := 1; step <= 120; step++ {
			err := s.Step()
			check(step)
			if err != nil {
				break
			}
		}
	}
}
