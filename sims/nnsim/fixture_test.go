package nnsim_test

import (
	"slices"
	"sync"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui/tuitest"
)

// dropoutGolden and dropoutGap are one Dropout run at its defaults from
// seed 1 (tuitest.Seed), which the golden frame and TestDropoutGap share
// (3 ms a step under -race): dropoutGolden steps it dropoutGoldenSteps
// times and keeps the golden case's snapshot, dropoutGap steps the same
// sim on to dropoutGapSteps. A Frame leaves the run as it was (its fits
// use their own tape, the masks are copied after each step), so the
// snapshot and the figures at dropoutGapSteps are those of separate runs.
const (
	dropoutGoldenSteps = 500
	dropoutGapSteps    = 1500
)

var dropoutGolden = sync.OnceValues(func() (*dropoutStage, error) {
	s, err := simtest.BuildErr(nnsim.Dropout, nil, tuitest.Seed, nil)
	if err != nil {
		return nil, err
	}
	if err := simtest.RunErr(s, dropoutGoldenSteps); err != nil {
		return nil, err
	}
	f := s.Frame()
	// The mask images are views of buffers the next steps overwrite.
	for i, c := range f.Charts {
		if img, ok := c.(sims.ImageChart); ok {
			img.Images = slices.Clone(img.Images)
			for j := range img.Images {
				img.Images[j].Pix = slices.Clone(img.Images[j].Pix)
			}
			f.Charts[i] = img
		}
	}
	snap := &sims.Snapshot{Frame: f, Spec: nnsim.Dropout, Seed: tuitest.Seed, State: sims.Paused, Speed: nnsim.Dropout.Speed}
	return &dropoutStage{sim: s, snap: snap}, nil
})

type dropoutStage struct {
	sim  sims.Sim
	snap *sims.Snapshot
}

// dropoutGap is the frame of the shared run after dropoutGapSteps steps.
var dropoutGap = sync.OnceValues(func() (sims.Frame, error) {
	st, err := dropoutGolden()
	if err != nil {
		return sims.Frame{}, err
	}
	if err := simtest.RunErr(st.sim, dropoutGapSteps-dropoutGoldenSteps); err != nil {
		return sims.Frame{}, err
	}
	return st.sim.Frame(), nil
})
