package diffusionsim

import (
	"testing"

	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenFrames pins each sim's pane, as `lab run SIM --frames` draws
// it in monochrome at 100×30, after a few steps from seed 1. Run with
// -update to rewrite testdata/TestGoldenFrames after an intended change.
func TestGoldenFrames(t *testing.T) {
	tuitest.Run(t, tuitest.Frames, []tuitest.Case{
		{Name: "forward-noise", Spec: Forward, Steps: 60},
		{Name: "diffusion", Spec: Diffusion, Steps: 60},
		{Name: "diffusion-moons-guided", Spec: Diffusion, Set: map[string]string{"data": "moons", "class": "0", "method": "ddpm"}, Steps: 100},
		{Name: "score-match", Spec: ScoreMatch, Set: map[string]string{"width": "16"}, Steps: 60},
		{Name: "score-match-sampling", Spec: ScoreMatch, Set: map[string]string{"width": "16", "train": "100", "steps": "20", "n": "300"}, Steps: 130},
	})
}
