package seqsim

import (
	"sync"

	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui/tuitest"
)

// Runs that a golden frame and a test share, each from seed 1
// (tuitest.Seed). A Frame of these sims copies what it shows and leaves
// the run as it was, so a snapshot taken on the way and the figures at
// the end are those of separate runs.

// The rnn golden frame is step 25 of the default run (22 ms a step under
// -race) that TestRNN continues to step 225 (rnnAt225).
const rnnGoldenSteps, rnnTestSteps = 25, 225

var rnnGolden = sync.OnceValues(func() (*simtest.Shared, error) {
	return simtest.Share(RNN, nil, tuitest.Seed, rnnGoldenSteps)
})

var rnnAt225 = sync.OnceValues(func() (*rnnSim, error) {
	r, err := rnnGolden()
	if err != nil {
		return nil, err
	}
	if err := simtest.RunErr(r.Sim, rnnTestSteps-rnnGoldenSteps); err != nil {
		return nil, err
	}
	return r.Sim.(*rnnSim), nil
})

// gptText is the tinygpt golden case on text, 10 steps with an evaluation
// at the first and the tenth, which TestTinyGPTText checks as well (an
// evaluation on text costs a second under -race).
var gptText = sync.OnceValues(func() (*simtest.Shared, error) {
	return simtest.Share(TinyGPT, map[string]string{"eval_every": "10"}, tuitest.Seed, 10)
})
