package nnsim_test

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
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui"
)

// render draws a sim's pane, paused, as the TUI and `lab run --frames`
// draw it.
func render(spec *sims.Spec, s sims.Sim, w, h int, mono bool) string {
	snap := &sims.Snapshot{Frame: s.Frame(), Spec: spec, State: sims.Paused, Speed: spec.Speed, Seed: 1}
	return tui.RenderPane(snap, w, h, tui.PaneStyle{Focused: true, Mono: mono})
}

// goldenCases are the panes pinned by TestGoldenFrames: each sim at its
// defaults after a few steps (a handful more where the first steps show
// little).
var goldenCases = []struct {
	spec  *sims.Spec
	set   map[string]string
	steps int
}{
	{nnsim.Playground, nil, 200},
	{nnsim.Digits, map[string]string{"n": "1000"}, 150},
	{nnsim.Conv, nil, 4},
	{nnsim.Conv, map[string]string{"image": "digit", "padding": "same", "pool": "max"}, 300},
	{nnsim.Optimizers, nil, 600},
	{nnsim.Optimizers, map[string]string{"surface": "saddle"}, 300},
	{nnsim.Dropout, nil, 500},
	{nnsim.Universal, nil, 1500},
}

// TestGoldenFrames pins each pane at 80×24 and 140×45 in monochrome and
// at 80×24 in colour (go test -update rewrites testdata/), and checks that
// no line is cut mid-word at the right border: every line is exactly the
// pane's width.
func TestGoldenFrames(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(strings.Join(append([]string{c.spec.Name}, keys(c.set)...), "_"), func(t *testing.T) {
			s := simtest.Build(t, c.spec, c.set, 1, nil)
			if err := simtest.RunErr(s, c.steps); err != nil && !errors.Is(err, sims.ErrConverged) {
				t.Fatal(err)
			}
			var out strings.Builder
			for _, size := range [][2]int{{80, 24}, {140, 45}} {
				for _, mono := range []bool{true, false} {
					if !mono && size[0] != 80 {
						continue
					}
					screen := render(c.spec, s, size[0], size[1], mono)
					lines := strings.Split(screen, "\n")
					if len(lines) != size[1] {
						t.Fatalf("%dx%d: %d lines", size[0], size[1], len(lines))
					}
					for i, l := range lines {
						if w := ansi.StringWidth(l); w != size[0] {
							t.Errorf("%dx%d line %d: width %d", size[0], size[1], i, w)
						}
					}
					fmt.Fprintf(&out, "%dx%d mono=%v\n%s\n\n", size[0], size[1], mono, screen)
				}
			}
			golden.RequireEqual(t, out.String())
		})
	}
}

func keys(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}
