package nnsim_test

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/tui/tuitest"
)

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
		t.Run(tuitest.Name(c.spec, c.set), func(t *testing.T) {
			golden.RequireEqual(t, tuitest.Screens(t, c.spec, c.set, c.steps))
		})
	}
}
