package mixturesim

import (
	"errors"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenInDimensions pins em-gmm's and kmeans' panes on a 4-column
// --data table (hidden()), clustered in 4-D and drawn on the first two
// principal components, at 80×24 and 140×45 in monochrome and 80×24 in
// colour, a few steps in. (The panes on generated 2-D data are pinned by
// tui's golden screens of every sim.) Run with -update to rewrite
// testdata/TestGoldenInDimensions after an intended change.
func TestGoldenInDimensions(t *testing.T) {
	tab, _ := hidden()
	for _, c := range []struct {
		spec  *sims.Spec
		steps int
	}{{EMGMM, 1}, {KMeans, 3}} {
		t.Run(c.spec.Name, func(t *testing.T) {
			s := simtest.Build(t, c.spec, map[string]string{"k": "4"}, tuitest.Seed, tab)
			snap := &sims.Snapshot{Spec: c.spec, Seed: tuitest.Seed, State: sims.Paused, Speed: c.spec.Speed}
			for range c.steps {
				if err := s.Step(); errors.Is(err, sims.ErrConverged) {
					snap.State = sims.Converged
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
			snap.Frame = s.Frame()
			tuitest.Golden(t, snap, tuitest.Standard)
		})
	}
}
