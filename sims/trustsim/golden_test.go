package trustsim

import (
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenFrames pins each sim's pane, as `lab run SIM --frames` draws
// it in monochrome at 100×30, after a few steps from seed 1 (the attacks:
// attackSets' runs to their end, shared with the attack's test). Run with
// -update to rewrite testdata/TestGoldenFrames after an intended change.
func TestGoldenFrames(t *testing.T) {
	tuitest.Run(t, tuitest.Frames, []tuitest.Case{
		{Name: "robust-regression", Spec: RobustReg, Steps: 120},
		{Name: "poisoning", Spec: Poisoning, Steps: 80},
		{Name: "adv-train", Spec: AdvTrain, Steps: 100},
		{Name: "saliency", Spec: Saliency, Steps: 60},
	})
	for i, name := range []string{"attack", "attack-digits"} {
		t.Run(name, func(t *testing.T) {
			snap := &sims.Snapshot{Frame: sharedAttack(t, attackSets[i]).frame, Spec: Attack,
				Seed: tuitest.Seed, State: sims.Converged, Speed: Attack.Speed}
			tuitest.Golden(t, snap, tuitest.Frames)
		})
	}
}
