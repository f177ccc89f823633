package gensim

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui"
)

// TestGoldenFrames pins each sim's pane, as `lab run SIM --frames` draws
// it in monochrome at 100×30, after a few steps from seed 1. Run with
// -update to rewrite testdata/TestGoldenFrames after an intended change.
func TestGoldenFrames(t *testing.T) {
	const w, h = 100, 30
	for _, tt := range []struct {
		name  string
		spec  *sims.Spec
		set   map[string]string
		steps int
	}{
		{"fdiv", FDiv, nil, 60},
		{"fdiv-js", FDiv, map[string]string{"divergence": "js", "mq": "3", "sq": "0.5"}, 60},
		{"flow", Flow, nil, 60},
		{"flow-affine", Flow, map[string]string{"mode": "affine"}, 30},
		{"flow-triangular", Flow, map[string]string{"mode": "triangular"}, 40},
		{"flow-icdf", Flow, map[string]string{"mode": "icdf"}, 50},
		{"autoencoder", Autoencoder, nil, 60},
		{"autoencoder-nonlinear", Autoencoder, map[string]string{"mode": "nonlinear"}, 30},
		{"autoencoder-denoise", Autoencoder, map[string]string{"mode": "denoise"}, 30},
		{"gan", GAN, nil, 25},
		{"gan-1d", GAN, map[string]string{"dim": "1", "target": "twomodes"}, 25},
		{"vae", VAE, nil, 15},
		{"vae-plane", VAE, map[string]string{"data": "plane"}, 60},
		{"vae-toy", VAE, map[string]string{"data": "toy"}, 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := simtest.Build(t, tt.spec, tt.set, 1, nil)
			snap := &sims.Snapshot{Spec: tt.spec, Seed: 1, State: sims.Paused, Speed: tt.spec.Speed}
			for range tt.steps {
				err := s.Step()
				if errors.Is(err, sims.ErrConverged) {
					snap.State = sims.Converged
					break
				}
				if err != nil {
					snap.State, snap.Err = sims.Diverged, err
					break
				}
			}
			snap.Frame = s.Frame()
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
