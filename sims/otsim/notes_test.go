package otsim

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"github.com/thelab/lab/sims/simtest"
)

// TestNotesFit: every line of text a sim shows fits the 78 columns inside
// an 80-column pane, under every preset, before and after a run, so that
// no note is cut at the smallest terminal; and every chart title fits a
// third of that row (three charts side by side). Each sim runs 200 steps
// at its defaults, and each preset 20: a preset changes the names in the
// notes, which show from the first step (200 steps of every barycenter and
// distances preset took most of a minute under -race). The default run
// is checked at steps 1, 20 and 200, so a preset that names the default
// choice (its build is the default's: same notes and titles at every
// step) is not built again.
func TestNotesFit(t *testing.T) {
	check := func(spec *sims.Spec, set map[string]string, runs ...int) {
		s, err := simtest.BuildErr(spec, set, 1, nil)
		if err != nil {
			return // a combination the sim refuses (hungarian on ex5.1) is tested elsewhere
		}
		for _, steps := range runs {
			_ = simtest.RunErr(s, steps)
			f := s.Frame()
			for _, l := range f.Text {
				if w := ansi.StringWidth(l); w > 78 {
					t.Errorf("%s %v: note of width %d: %q", spec.Name, set, w, l)
				}
			}
			for _, c := range f.Charts {
				if w := ansi.StringWidth(c.ChartTitle()) + suffix(c); w > 25 {
					t.Errorf("%s %v: title of width %d: %q", spec.Name, set, w, c.ChartTitle())
				}
			}
		}
	}
	for _, spec := range []*sims.Spec{Assignment, LP, OneD, Gauss, Sinkhorn, Distances, Geodesic, Barycenter} {
		check(spec, nil, 1, 19, 180)
		defaults, err := param.Resolve(spec.Params, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range spec.Params {
			if len(p.Choices) == 0 || p.Name == "domain" && spec == Sinkhorn {
				continue
			}
			for _, c := range p.Choices {
				if c == defaults.Text(p.Name) {
					continue // the default run's build, checked at steps 1 and 20 above
				}
				check(spec, map[string]string{p.Name: c}, 1, 19)
			}
		}
	}
}

// suffix is the width of what the renderer writes after a chart's title.
func suffix(c sims.Chart) int {
	switch c := c.(type) {
	case sims.LineChart:
		if c.LogY {
			return len(" (log scale)")
		}
	case sims.HistChart:
		return len(" (density)")
	}
	return 0
}
