package catalog

import (
	"errors"
	"flag"
	"math"
	"testing"

	"github.com/thelab/lab/sims"
)

// TestPacing is the pacing rule (docs/adding-a-sim.md) for every sim at
// its defaults: its Speed is a notch of the speed keys (what a pane starts
// at), never "as fast as it goes"; its story — the steps until it
// converges — lasts at least sims.MinStory at that speed, or it Replays
// (and then it does end, within sims.MaxStory); and a declared Famous step
// comes within sims.MaxStory. A sim is stepped only as far as the rule
// needs: MinStory's worth of steps (the open-ended trainers and samplers,
// whose own tests check their results, stop there), or to its end when it
// replays. The sims run as parallel subtests. The trainers in slowStories
// are stepped only with -pacing.slow: their 20 s would triple the
// package's time.
func TestPacing(t *testing.T) {
	for _, spec := range All().Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			speed := sims.Speeds[sims.NearestSpeed(spec.Speed)]
			if speed != spec.Speed {
				t.Errorf("Speed %v is not a notch of sims.Speeds: a pane starts at %v", spec.Speed, speed)
			}
			if speed == sims.MaxSpeed {
				t.Fatalf("Speed is as fast as it goes: a pane's story would be over before it is seen")
			}
			least := int(math.Ceil(sims.MinStory.Seconds() * speed))
			most := int(sims.MaxStory.Seconds() * speed)
			if spec.Famous > most {
				t.Errorf("famous result at step %d: %.0f s at %v steps/s, after the %v a story may take",
					spec.Famous, float64(spec.Famous)/speed, speed, sims.MaxStory)
			}
			if why, ok := slowStories[spec.Name]; ok && !*pacingSlow {
				t.Skipf("%s: stepped with -pacing.slow", why)
			}
			s, err := spec.Build(sims.Config{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			limit := least
			if spec.Replay > 0 {
				limit = most
			}
			end := 0 // the step at which the run converged; 0: not within limit
			for n := 1; n <= limit; n++ {
				if err := s.Step(); errors.Is(err, sims.ErrConverged) {
					end = n // as the runner counts: the call that says so
					break
				} else if err != nil {
					t.Fatalf("step %d: %v", n, err)
				}
			}
			switch {
			case spec.Replay > 0 && end == 0:
				t.Errorf("replays after converging, but has not converged in %d steps (%v at %v steps/s)", most, sims.MaxStory, speed)
			case spec.Replay == 0 && end > 0 && end < least:
				t.Errorf("story over after %d steps: %.1f s at %v steps/s, less than %v; slow it, enlarge its default problem, or let it Replay",
					end, float64(end)/speed, speed, sims.MinStory)
			}
		})
	}
}

var pacingSlow = flag.Bool("pacing.slow", false, "TestPacing: step the sims of slowStories too")

// slowStories are the sims whose 20 s at their pane's speed take a second
// or more of a core to step (measured on the lab's 2-core VM, alone:
// tinygpt 4.6 s, score-match 1.8 s, digits 2.4 s, vae 1.8 s, rnn 1.3 s,
// gan 0.9 s), with what ends their story: TestPacing -pacing.slow steps
// them.
var slowStories = map[string]string{
	"tinygpt":     "trains without end",
	"digits":      "trains without end",
	"rnn":         "trains without end",
	"gan":         "trains without end",
	"vae":         "trains without end; its own test checks its digits at Famous",
	"score-match": "trains 3000 steps, then samples 50: 30.5 s",
}
