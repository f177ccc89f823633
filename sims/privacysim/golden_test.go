package privacysim_test

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/privacysim"
	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenFrames pins each pane at 80×24 and 140×45 in monochrome and at
// 80×24 in colour, after enough steps to show it working (go test
// -update rewrites testdata/).
func TestGoldenFrames(t *testing.T) {
	for _, c := range []struct {
		spec  *sims.Spec
		set   map[string]string
		steps int
	}{
		{privacysim.RandomizedResponse, nil, 3000},
		{privacysim.Mechanisms, nil, 6},
		{privacysim.Mechanisms, map[string]string{"mech": "laplace"}, 100},
		{privacysim.DPSGD, map[string]string{"n": "600"}, 40},
		{privacysim.DPSGD, map[string]string{"model": "logistic", "noise": "sum", "n": "600"}, 60},
	} {
		t.Run(tuitest.Name(c.spec, c.set), func(t *testing.T) {
			golden.RequireEqual(t, tuitest.Screens(t, c.spec, c.set, c.steps))
		})
	}
}
