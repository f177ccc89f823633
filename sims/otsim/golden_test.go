package otsim

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui"
)

// TestGoldenFrames pins each sim's pane, as `lab run SIM --frames` draws
// it in monochrome at 100×30, after a few steps from seed 1: the
// defaults, and the settings whose pictures differ (Hungarian, the plain
// stall, the 2-D barycenter, boxes pulled apart). Run with -update to
// rewrite testdata/TestGoldenFrames after an intended change.
func TestGoldenFrames(t *testing.T) {
	const w, h = 100, 30
	for _, tt := range []struct {
		name  string
		spec  *sims.Spec
		set   map[string]string
		steps int
	}{
		{"assignment", Assignment, nil, 12},
		{"assignment-hungarian", Assignment, map[string]string{"preset": "gaussians", "n": "12"}, 40},
		{"ot-lp", LP, nil, 25},
		{"ot-1d", OneD, nil, 1},
		{"ot-gauss", Gauss, nil, 30},
		{"sinkhorn", Sinkhorn, nil, 12},
		{"sinkhorn-plain-stall", Sinkhorn, map[string]string{"preset": "three", "eps": "0.001", "domain": "plain"}, 100},
		{"distances", Distances, nil, 60},
		{"distances-boxes", Distances, map[string]string{"pair": "boxes"}, 60},
		{"ot-geodesic", Geodesic, nil, 40},
		{"barycenter", Barycenter, nil, 30},
		{"barycenter-shapes", Barycenter, map[string]string{"input": "shapes"}, 30},
	} {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := simtest.SnapshotErr(tt.spec, tt.set, 1, tt.steps)
			if err != nil {
				t.Fatal(err)
			}
			screen := tui.RenderPane(snap, w, h, tui.PaneStyle{Focused: true, Mono: true})
			lines := strings.Split(screen, "\n")
			if len(lines) != h {
				t.Fatalf("%d lines, want %d", len(lines), h)
			}
			for i, l := range lines {
				if got := ansi.StringWidth(l); got != w {
					t.Errorf("line %d has width %d", i, got)
				}
			}
			golden.RequireEqual(t, screen)
		})
	}
}
