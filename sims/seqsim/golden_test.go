package seqsim

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
		{"ngram", NGram, nil, 20},
		{"bpe", BPE, nil, 2},
		{"bpe-animals", BPE, map[string]string{"text": "animals"}, 40},
		{"attention", Attention, nil, 2},
		{"attention-positions", Attention, map[string]string{"view": "positions"}, 5},
		{"attention-kernel", Attention, map[string]string{"view": "kernel"}, 20},
		{"rnn", RNN, nil, 25},
		{"tinygpt", TinyGPT, map[string]string{"eval_every": "10"}, 10},
		{"tinygpt-sort", TinyGPT, map[string]string{"task": "sort", "length": "4"}, 25},
		{"reward", Reward, nil, 40},
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
