package privacysim_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/privacysim"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui"
)

// goldenCases are the panes pinned by TestGoldenFrames: each sim after
// enough steps to show it working.
var goldenCases = []struct {
	spec  *sims.Spec
	set   map[string]string
	steps int
}{
	{privacysim.RandomizedResponse, nil, 3000},
	{privacysim.Mechanisms, nil, 6},
	{privacysim.Mechanisms, map[string]string{"mech": "laplace"}, 100},
	{privacysim.DPSGD, map[string]string{"n": "600"}, 40},
	{privacysim.DPSGD, map[string]string{"model": "logistic", "noise": "sum", "n": "600"}, 60},
}

// TestGoldenFrames pins each pane at 80×24 and 140×45 in monochrome and at
// 80×24 in colour (go test -update rewrites testdata/); every line is
// exactly the pane's width.
func TestGoldenFrames(t *testing.T) {
	for _, c := range goldenCases {
		var name []string
		for _, k := range slices.Sorted(maps.Keys(c.set)) {
			name = append(name, k+"="+c.set[k])
		}
		t.Run(strings.Join(append([]string{c.spec.Name}, name...), "_"), func(t *testing.T) {
			s := simtest.Build(t, c.spec, c.set, 1, nil)
			if err := simtest.RunErr(s, c.steps); err != nil && !errors.Is(err, sims.ErrConverged) {
				t.Fatal(err)
			}
			var out strings.Builder
			for _, sz := range []struct {
				w, h int
				mono bool
			}{{80, 24, true}, {140, 45, true}, {80, 24, false}} {
				snap := &sims.Snapshot{Frame: s.Frame(), Spec: c.spec, State: sims.Paused, Speed: c.spec.Speed, Seed: 1}
				screen := tui.RenderPane(snap, sz.w, sz.h, tui.PaneStyle{Focused: true, Mono: sz.mono})
				lines := strings.Split(screen, "\n")
				if len(lines) != sz.h {
					t.Fatalf("%dx%d: %d lines", sz.w, sz.h, len(lines))
				}
				for i, l := range lines {
					if w := ansi.StringWidth(l); w != sz.w {
						t.Errorf("%dx%d line %d: width %d", sz.w, sz.h, i, w)
					}
				}
				fmt.Fprintf(&out, "%dx%d mono=%v\n%s\n\n", sz.w, sz.h, sz.mono, screen)
			}
			golden.RequireEqual(t, out.String())
		})
	}
}
