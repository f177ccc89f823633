package otsim

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestNotesFit: every line of text a sim shows fits the 78 columns inside
// an 80-column pane, under every preset, before and after a run, so that
// no note is cut at the smallest terminal; and every chart title fits a
// third of that row (three charts side by side).
func TestNotesFit(t *testing.T) {
	for _, spec := range []*sims.Spec{Assignment, LP, OneD, Gauss, Sinkhorn, Distances, Geodesic, Barycenter} {
		for _, p := range spec.Params {
			if len(p.Choices) == 0 || p.Name == "domain" && spec == Sinkhorn {
				continue
			}
			for _, c := range p.Choices {
				set := map[string]string{p.Name: c}
				s, err := simtest.BuildErr(spec, set, 1, nil)
				if err != nil {
					continue // a combination the sim refuses (hungarian on ex5.1) is tested elsewhere
				}
				for _, steps := range []int{1, 200} {
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
