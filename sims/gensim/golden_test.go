package gensim

import (
	"testing"

	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenFrames pins each sim's pane, as `lab run SIM --frames` draws
// it in monochrome at 100×30, after a few steps from seed 1. Run with
// -update to rewrite testdata/TestGoldenFrames after an intended change.
func TestGoldenFrames(t *testing.T) {
	tuitest.Run(t, tuitest.Frames, []tuitest.Case{
		{Name: "fdiv", Spec: FDiv, Steps: 60},
		{Name: "fdiv-js", Spec: FDiv, Set: map[string]string{"divergence": "js", "mq": "3", "sq": "0.5"}, Steps: 60},
		{Name: "flow", Spec: Flow, Steps: 60},
		{Name: "flow-affine", Spec: Flow, Set: map[string]string{"mode": "affine"}, Steps: 30},
		{Name: "flow-triangular", Spec: Flow, Set: map[string]string{"mode": "triangular"}, Steps: 40},
		{Name: "flow-icdf", Spec: Flow, Set: map[string]string{"mode": "icdf"}, Steps: 50},
		{Name: "autoencoder", Spec: Autoencoder, Steps: 60},
		{Name: "autoencoder-nonlinear", Spec: Autoencoder, Set: map[string]string{"mode": "nonlinear"}, Steps: 30},
		{Name: "autoencoder-denoise", Spec: Autoencoder, Set: map[string]string{"mode": "denoise"}, Steps: 30},
		{Name: "vae-plane", Spec: VAE, Set: map[string]string{"data": "plane"}, Steps: 60},
		{Name: "vae-toy", Spec: VAE, Set: map[string]string{"data": "toy"}, Steps: 20},
	})
	// Runs that tests share (fixture_test.go): gan's two are TestGANPanes',
	// vae's 15 steps the start of the run that TestVAETrains and
	// TestVAEDigitsAtFamous continue.
	tuitest.RunShared(t, tuitest.Frames, []tuitest.SharedCase{{Name: "gan", Run: ganRun}, {Name: "gan-1d", Run: gan1DRun}, {Name: "vae", Run: vaeRun}})
}
