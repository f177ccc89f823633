package trustsim

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
// it in monochrome at 100×30, after a few steps from seed 1 (the attacks:
// attackSets' runs to their end, shared with the attack's test). Run with
// -update to rewrite testdata/TestGoldenFrames after an intended change.
func TestGoldenFrames(t *testing.T) {
	const w, h = 100, 30
	for _, tt := range []struct {
		name  string
		spec  *sims.Spec
		set   map[string]string
		steps int
	}{
		{"robust-regression", RobustReg, nil, 120},
		{"poisoning", Poisoning, nil, 80},
		{"attack", Attack, attackSets[0], 0},
		{"adv-train", AdvTrain, nil, 100},
		{"saliency", Saliency, nil, 60},
		{"attack-digits", Attack, attackSets[1], 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			snap := &sims.Snapshot{Spec: tt.spec, Seed: 1, State: sims.Paused, Speed: tt.spec.Speed}
			if tt.spec == Attack {
				snap.Frame, snap.State = sharedAttack(t, tt.set).frame, sims.Converged
				checkPane(t, snap, w, h)
				return
			}
			s := simtest.Build(t, tt.spec, tt.set, 1, nil)
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
			checkPane(t, snap, w, h)
		})
	}
}

// checkPane draws snap at w×h and compares it with the golden file.
func checkPane(t *testing.T, snap *sims.Snapshot, w, h int) {
	t.Helper()
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
}
