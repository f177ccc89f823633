package gensim

import (
	"sync"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui/tuitest"
)

// The vae at its defaults from seed 1 (tuitest.Seed), one run that the
// golden frame, TestVAETrains and TestVAEDigitsAtFamous share (11 ms a
// step under -race): the golden case's snapshot after vaeGoldenSteps, and
// the frame at VAE.Famous. A Frame copies what it shows, so the snapshot
// is that of step vaeGoldenSteps however far the run has gone since.
const vaeGoldenSteps = 15

var vaeRun = sync.OnceValues(func() (*simtest.Shared, error) {
	return simtest.Share(VAE, nil, tuitest.Seed, vaeGoldenSteps)
})

// vaeFamous is the frame of the shared run at step VAE.Famous.
var vaeFamous = sync.OnceValues(func() (sims.Frame, error) {
	r, err := vaeRun()
	if err != nil {
		return sims.Frame{}, err
	}
	if err := simtest.RunErr(r.Sim, VAE.Famous-vaeGoldenSteps); err != nil {
		return sims.Frame{}, err
	}
	return r.Sim.Frame(), nil
})

// ganGoldenSteps is the steps of the gan golden frames, whose runs
// TestGANPanes checks too: the default and the 1-D two-mode one.
const ganGoldenSteps = 25

var (
	ganRun   = sync.OnceValues(func() (*simtest.Shared, error) { return simtest.Share(GAN, nil, tuitest.Seed, ganGoldenSteps) })
	gan1DRun = sync.OnceValues(func() (*simtest.Shared, error) {
		return simtest.Share(GAN, map[string]string{"dim": "1", "target": "twomodes"}, tuitest.Seed, ganGoldenSteps)
	})
)
