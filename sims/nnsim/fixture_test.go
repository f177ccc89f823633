package nnsim_test

import (
	"sync"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui/tuitest"
)

// dropoutRun is one Dropout run at its defaults from seed 1
// (tuitest.Seed), which the golden frame and TestDropoutGap share (3 ms a
// step under -race): the golden case's snapshot after dropoutGoldenSteps
// steps, and the sim, which dropoutGap steps on to dropoutGapSteps.
const (
	dropoutGoldenSteps = 500
	dropoutGapSteps    = 1500
)

var dropoutRun = sync.OnceValues(func() (*simtest.Shared, error) {
	return simtest.Share(nnsim.Dropout, nil, tuitest.Seed, dropoutGoldenSteps)
})

// dropoutGap is the frame of the shared run after dropoutGapSteps steps.
var dropoutGap = sync.OnceValues(func() (sims.Frame, error) {
	r, err := dropoutRun()
	if err != nil {
		return sims.Frame{}, err
	}
	if err := simtest.RunErr(r.Sim, dropoutGapSteps-dropoutGoldenSteps); err != nil {
		return sims.Frame{}, err
	}
	return r.Sim.Frame(), nil
})

// universalRun is one Universal run at its defaults from seed 1: the
// golden case's snapshot after universalGoldenSteps steps, and the sim,
// which TestUniversal steps on to universalTestSteps (0.5 ms a step
// under -race).
const (
	universalGoldenSteps = 1500
	universalTestSteps   = 3000
)

var universalRun = sync.OnceValues(func() (*simtest.Shared, error) {
	return simtest.Share(nnsim.Universal, nil, tuitest.Seed, universalGoldenSteps)
})
