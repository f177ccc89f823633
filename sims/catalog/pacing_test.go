package catalog

import (
	"errors"
	"flag"
	"math"
	"testing"

	"github.com/thelab/lab/sims"
)

// TestPacing is the static half of the pacing rule (docs/adding-a-sim.md)
// for every sim: its Speed is a notch of the speed keys (what a pane
// starts at), never "as fast as it goes", and a declared Famous step comes
// within sims.MaxStory. The stepped half, checkPacing, runs on
// TestEverySimRuns's seed-1 sim.
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

// storyRun steps a sim and remembers how far it went and why it stopped.
type storyRun struct {
	s     sims.Sim
	steps int   // steps taken, the call that ended the run included
	err   error // what ended it (sims.ErrConverged: it converged), or nil
}

// stepTo steps the sim until it has taken n steps or has ended.
func (r *storyRun) stepTo(n int) {
	for r.err == nil && r.steps < n {
		r.steps++
		r.err = r.s.Step()
	}
}

// checkPacing is the stepped half of the pacing rule, on a sim built from
// its defaults with seed 1 and stepped run.steps so far: its story — the
// steps until it converges — lasts at least sims.MinStory at its speed,
// or it Replays (and then it does end, within sims.MaxStory). The sim is
// stepped only as far as the rule needs: MinStory's worth of steps (the
// open-ended trainers and samplers, whose own tests check their results,
// stop there), or to its end when it replays. The trainers in
// slowStories are stepped on only with -pacing.slow: their 20 s would
// triple the package's time.
func checkPacing(t *testing.T, spec *sims.Spec, run *storyRun) {
	speed := sims.Speeds[sims.NearestSpeed(spec.Speed)]
	if speed == sims.MaxSpeed {
		return // TestPacing says so
	}
	least := int(math.Ceil(sims.MinStory.Seconds() * speed))
	most := int(sims.MaxStory.Seconds() * speed)
	limit := least
	if spec.Replay > 0 {
		limit = most
	}
	if _, slow := slowStories[spec.Name]; !slow || *pacingSlow {
		run.stepTo(limit)
	} else if run.err == nil {
		return // not stepped far enough to judge
	}
	end := 0 // the step at which the run converged; 0: not within limit
	switch {
	case errors.Is(run.err, sims.ErrConverged):
		end = run.steps // as the runner counts: the call that says so
	case run.err != nil:
		t.Fatalf("pacing: step %d: %v", run.steps, run.err)
	}
	switch {
	case spec.Replay > 0 && end == 0:
		t.Errorf("replays after converging, but has not converged in %d steps (%v at %v steps/s)", most, sims.MaxStory, speed)
	case spec.Replay == 0 && end > 0 && end < least:
		t.Errorf("story over after %d steps: %.1f s at %v steps/s, less than %v; slow it, enlarge its default problem, or let it Replay",
			end, float64(end)/speed, speed, sims.MinStory)
	}
}

var pacingSlow = flag.Bool("pacing.slow", false, "checkPacing: step the sims of slowStories too")

// slowStories are the sims whose 20 s at their pane's speed take a second
// or more of a core to step (measured on the lab's 2-core VM, alone:
// tinygpt 4.6 s, score-match 1.8 s, digits 2.4 s, vae 1.8 s, rnn 1.3 s,
// gan 0.9 s), with what ends their story: -pacing.slow steps them.
var slowStories = map[string]string{
	"tinygpt":     "trains without end",
	"digits":      "trains without end",
	"rnn":         "trains without end",
	"gan":         "trains without end",
	"vae":         "trains without end; its own test checks its digits at Famous",
	"score-match": "trains 3000 steps, then samples 50: 30.5 s",
}
