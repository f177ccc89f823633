package main

import (
	"math"
	"testing"

	"github.com/thelab/lab/sims"
)

// The stepped half of the pacing rule (docs/adding-a-sim.md; the static
// half is sims/catalog's TestPacing): at its defaults a sim's story — the
// steps until it converges — lasts at least sims.MinStory at its speed,
// or it Replays, and then it does end, within sims.MaxStory. It is checked
// on TestSizeEstimates's run of the defaults, which goes on storySteps:
// MinStory's worth of steps (the open-ended trainers and samplers, whose
// own tests check their results, stop there), or MaxStory's when it
// replays. Outside the race detector every sim is stepped that far: 14 s
// of CPU for the 84, tinygpt's 200 steps the longest (3 s).

// storySteps is how far the pacing rule steps spec at its defaults.
func storySteps(spec *sims.Spec) int {
	speed := sims.Speeds[sims.NearestSpeed(spec.Speed)]
	if speed == sims.MaxSpeed {
		return 0 // TestPacing says so
	}
	if spec.Replay > 0 {
		return int(sims.MaxStory.Seconds() * speed)
	}
	return int(math.Ceil(sims.MinStory.Seconds() * speed))
}

// checkPacing judges the run r of spec's defaults, stepped storySteps.
func checkPacing(t *testing.T, spec *sims.Spec, r settingRun) {
	t.Helper()
	speed := sims.Speeds[sims.NearestSpeed(spec.Speed)]
	if speed == sims.MaxSpeed || r.refused {
		return
	}
	end := 0 // the step at which the run converged; 0: not within its steps
	if r.state == "converged" {
		end = r.step + 1 // as the runner counts: the call that says so
	}
	switch least := int(math.Ceil(sims.MinStory.Seconds() * speed)); {
	case spec.Replay > 0 && end == 0:
		t.Errorf("pacing: replays after converging, but has not converged in %d steps (%v at %v steps/s): %s", storySteps(spec), sims.MaxStory, speed, r.state)
	case spec.Replay == 0 && end > 0 && end < least:
		t.Errorf("pacing: story over after %d steps: %.1f s at %v steps/s, less than %v; slow it, enlarge its default problem, or let it Replay",
			end, float64(end)/speed, speed, sims.MinStory)
	}
}
