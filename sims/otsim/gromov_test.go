package otsim

import (
	"testing"

	"github.com/thelab/lab/algo/ot/gromov"
	"github.com/thelab/lab/sims/simtest"
)

// TestGromovFindsIsometry: the default run (the spiral against its
// rotated, reflected and relabelled copy) converges within 30 outer
// iterations with at least 95% of the spiral's points having their
// heaviest entry at their true copy (all but one or two neighbours
// confused by the entropic blur), E − εH never rising by more than the
// slack of the inner solves (capped at 1000 iterations, as POT's), and the
// GW objective below 2% of the independent coupling's; the copy laid into
// space is matched as well by the fourth outer iteration; and for both,
// the exact correspondence (the permutation the copy was made with, noise
// 0) has E = 0 to rounding.
func TestGromovFindsIsometry(t *testing.T) {
	s := simtest.Build(t, Gromov, nil, 1, nil)
	simtest.RunToEnd(t, s, 30)
	sim := s.(*gwSim)
	f := s.Frame()
	if m := simtest.Metric(t, f, "matched"); m < 0.95 {
		t.Errorf("matched %g, want ≥ 0.95", m)
	}
	if e := simtest.Metric(t, f, "GW"); e > 0.02*sim.obj[0] {
		t.Errorf("E(T) = %g, over 2%% of the start's %g", e, sim.obj[0])
	}
	for k := 1; k < len(sim.reg); k++ {
		if sim.reg[k] > sim.reg[k-1]+1e-6 {
			t.Errorf("E − εH rose at outer iteration %d: %g after %g", k, sim.reg[k], sim.reg[k-1])
		}
	}

	s = simtest.Build(t, Gromov, map[string]string{"shape": "3d"}, 1, nil)
	simtest.Run(t, s, 4)
	if m := simtest.Metric(t, s.Frame(), "matched"); m < 0.95 {
		t.Errorf("3d: matched %g after 4 outer iterations, want ≥ 0.95", m)
	}

	for _, shape := range []string{"rotate", "3d"} {
		s0 := simtest.Build(t, Gromov, map[string]string{"shape": shape, "noise": "0"}, 1, nil).(*gwSim)
		n := len(s0.tx)
		perm := make([]float64, n*n)
		for i, j := range s0.truth {
			perm[i*n+j] = 1 / float64(n)
		}
		c1, c2 := gromov.Distances(s0.x, 2), gromov.Distances(s0.y, s0.dim)
		if e := gromov.Objective(c1, c2, perm, n, n); e > 1e-12 {
			t.Errorf("%s: E(true permutation) = %g, want 0", shape, e)
		}
	}
}
