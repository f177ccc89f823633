package seqsim

import (
	"sync"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui/tuitest"
)

// Runs that a golden frame and a test share, each from seed 1
// (tuitest.Seed). A Frame of these sims copies what it shows and leaves
// the run as it was, so a snapshot taken on the way and the figures at
// the end are those of separate runs.

// sharedRun is a sim stepped some steps and the golden case's snapshot
// of it then.
type sharedRun struct {
	sim  sims.Sim
	snap *sims.Snapshot
}

func stepAndSnap(spec *sims.Spec, set map[string]string, steps int) (*sharedRun, error) {
	s, err := simtest.BuildErr(spec, set, tuitest.Seed, nil)
	if err != nil {
		return nil, err
	}
	if err := simtest.RunErr(s, steps); err != nil {
		return nil, err
	}
	snap := &sims.Snapshot{Frame: s.Frame(), Spec: spec, Seed: tuitest.Seed, State: sims.Paused, Speed: spec.Speed}
	return &sharedRun{sim: s, snap: snap}, nil
}

// The rnn golden frame is step 25 of the default run (22 ms a step under
// -race) that TestRNN continues to step 250 (rnnAt250).
const rnnGoldenSteps, rnnTestSteps = 25, 250

var rnnGolden = sync.OnceValues(func() (*sharedRun, error) {
	return stepAndSnap(RNN, nil, rnnGoldenSteps)
})

var rnnAt250 = sync.OnceValues(func() (*rnnSim, error) {
	r, err := rnnGolden()
	if err != nil {
		return nil, err
	}
	if err := simtest.RunErr(r.sim, rnnTestSteps-rnnGoldenSteps); err != nil {
		return nil, err
	}
	return r.sim.(*rnnSim), nil
})

// gptText is the tinygpt golden case on text, 10 steps with an evaluation
// at the first and the tenth, which TestTinyGPTText checks as well (an
// evaluation on text costs a second under -race).
var gptText = sync.OnceValues(func() (*sharedRun, error) {
	return stepAndSnap(TinyGPT, map[string]string{"eval_every": "10"}, 10)
})
