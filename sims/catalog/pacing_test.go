package catalog

import (
	"testing"

	"github.com/thelab/lab/sims"
)

// TestPacing is the static half of the pacing rule (docs/adding-a-sim.md)
// for every sim: its Speed is a notch of the speed keys (what a pane
// starts at), never "as fast as it goes", and a declared Famous step comes
// within sims.MaxStory. The stepped half, that a story lasts MinStory or
// replays, is checked by cmd/lab's TestSizeEstimates on its run of the
// defaults, outside the race detector (checkPacing).
func TestPacing(t *testing.T) {
	for _, spec := range All().Specs() {
		speed := sims.Speeds[sims.NearestSpeed(spec.Speed)]
		if speed != spec.Speed {
			t.Errorf("%s: Speed %v is not a notch of sims.Speeds: a pane starts at %v", spec.Name, spec.Speed, speed)
		}
		if speed == sims.MaxSpeed {
			t.Errorf("%s: Speed is as fast as it goes: a pane's story would be over before it is seen", spec.Name)
			continue
		}
		if most := int(sims.MaxStory.Seconds() * speed); spec.Famous > most {
			t.Errorf("%s: famous result at step %d: %.0f s at %v steps/s, after the %v a story may take",
				spec.Name, spec.Famous, float64(spec.Famous)/speed, speed, sims.MaxStory)
		}
	}
}
