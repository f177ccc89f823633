package privacysim_test

import (
	"testing"

	"github.com/thelab/lab/sims/privacysim"
	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenFrames pins each pane at 80×24 and 140×45 in monochrome and at
// 80×24 in colour, after enough steps to show it working (go test
// -update rewrites testdata/).
func TestGoldenFrames(t *testing.T) {
	tuitest.Run(t, tuitest.Standard, []tuitest.Case{
		{Spec: privacysim.RandomizedResponse, Steps: 3000},
		{Spec: privacysim.Mechanisms, Steps: 6},
		{Spec: privacysim.Mechanisms, Set: map[string]string{"mech": "laplace"}, Steps: 100},
		{Spec: privacysim.DPSGD, Set: map[string]string{"n": "600"}, Steps: 40},
		{Spec: privacysim.DPSGD, Set: map[string]string{"model": "logistic", "noise": "sum", "n": "600"}, Steps: 60},
	})
}
