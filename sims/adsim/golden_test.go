package adsim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/adsim"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui/tuitest"
)

// panes are the configurations pinned by golden frames: each sim (each
// demo of implicit) a few steps in, where the pane has something to show.
var panes = []tuitest.Case{
	{Name: "ad-graph-forward", Spec: adsim.Graph, Set: map[string]string{"mode": "forward"}, Steps: 2},
	{Name: "ad-graph-fanout", Spec: adsim.Graph, Set: map[string]string{"preset": "fanout", "mode": "reverse"}, Steps: 10},
	{Name: "jacobian", Spec: adsim.Jacobian, Steps: 3},
	{Name: "hessian", Spec: adsim.Hessian, Steps: 3},
	{Name: "implicit-heron", Spec: adsim.Implicit, Steps: 3},
	{Name: "implicit-circle", Spec: adsim.Implicit, Set: map[string]string{"demo": "circle"}, Steps: 1},
	{Name: "implicit-lu", Spec: adsim.Implicit, Set: map[string]string{"demo": "lu"}, Steps: 9},
	{Name: "implicit-lp", Spec: adsim.Implicit, Set: map[string]string{"demo": "lp"}, Steps: 9},
	{Name: "coloring", Spec: adsim.Coloring, Steps: 8},
	{Name: "coloring-jacobian", Spec: adsim.Coloring, Set: map[string]string{"problem": "jacobian"}, Steps: 8},
	{Name: "gradcheck", Spec: adsim.GradCheck, Set: map[string]string{"model": "hinge"}, Steps: 6},
}

// TestGoldenPanes pins each pane at 80×24 in monochrome (and the first in
// colour). Run with -update after an intended change.
func TestGoldenPanes(t *testing.T) {
	tuitest.Run(t, []tuitest.Size{{W: 80, H: 24, Mono: true}}, panes)
	colour := panes[0]
	colour.Name += "-colour"
	tuitest.Run(t, []tuitest.Size{{W: 80, H: 24}}, []tuitest.Case{colour})
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
