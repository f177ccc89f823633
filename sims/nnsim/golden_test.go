package nnsim_test

import (
	"testing"

	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenFrames pins each sim's pane at its defaults after a few steps
// (a handful more where the first steps show little), at 80×24 and 140×45
// in monochrome and at 80×24 in colour (go test -update rewrites
// testdata/). Dropout's and universal's cases are the first steps of
// runs that TestDropoutGap and TestUniversal continue (fixture_test.go).
func TestGoldenFrames(t *testing.T) {
	tuitest.Run(t, tuitest.Standard, []tuitest.Case{
		{Spec: nnsim.Playground, Steps: 200},
		{Spec: nnsim.Digits, Set: map[string]string{"n": "1000"}, Steps: 150},
		{Spec: nnsim.Conv, Steps: 4},
		{Spec: nnsim.Conv, Set: map[string]string{"image": "digit", "padding": "same", "pool": "max"}, Steps: 300},
		{Spec: nnsim.Optimizers, Steps: 600},
		{Spec: nnsim.Optimizers, Set: map[string]string{"surface": "saddle"}, Steps: 300},
	})
	// Runs that tests continue (fixture_test.go): dropout's 500 steps are
	// the start of TestDropoutGap's run, universal's 1500 of TestUniversal's.
	tuitest.RunShared(t, tuitest.Standard, []tuitest.SharedCase{{Name: "dropout", Run: dropoutRun}, {Name: "universal", Run: universalRun}})
}
