package gensim

import (
	"sync"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// The vae at its defaults from seed 1, one run that TestVAETrains and
// TestVAEDigitsAtFamous share (11 ms a step under -race): its snapshot
// after vaeEarlySteps, and the frame at VAE.Famous. A Frame copies what
// it shows, so the snapshot is that of step vaeEarlySteps however far the
// run has gone since.
const vaeEarlySteps = 15

var vaeRun = sync.OnceValues(func() (*simtest.Shared, error) {
	return simtest.Share(VAE, nil, 1, vaeEarlySteps)
})

// vaeFamous is the frame of the shared run at step VAE.Famous.
var vaeFamous = sync.OnceValues(func() (sims.Frame, error) {
	r, err := vaeRun()
	if err != nil {
		return sims.Frame{}, err
	}
	if err := simtest.RunErr(r.Sim, VAE.Famous-vaeEarlySteps); err != nil {
		return sims.Frame{}, err
	}
	return r.Sim.Frame(), nil
})
