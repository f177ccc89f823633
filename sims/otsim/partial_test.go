package otsim

import (
	"errors"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot/lp"
	"github.com/thelab/lab/sims/simtest"
)

// TestPartialDefaults: the default run sweeps s over its 50 notches and
// stops; PW is non-decreasing and convex along the grid; PW(1) is the
// balanced optimum of the transportation simplex on the same points; no
// outlier sends or receives anything while the clouds' own mass (30 of 34
// points a side) suffices, and at s = 1 they move all theirs.
//
// One run serves both: it is checked at s = 0.88 on its way to the end
// (a second build run to the 44th notch was the same sim at the same
// step).
func TestPartialDefaults(t *testing.T) {
	s := simtest.Build(t, Partial, nil, 1, nil)
	sim := s.(*ptSim)

	// at s = 0.88 ≤ 30/34
	simtest.Run(t, s, 44)
	algotest.Near(t, "m", sim.sol.Mass, 0.88, 1e-15)
	src, dst := sim.outMoved()
	if src > 1e-12 || dst > 1e-12 {
		t.Errorf("at s = 0.88 the outliers send %g and receive %g, want 0", src, dst)
	}

	// at the end
	simtest.RunToEnd(t, s, 100-44)
	if sim.k != 50 || len(sim.cost) != 51 {
		t.Errorf("ended at notch %d with %d costs, want the grid's 50 and 51", sim.k, len(sim.cost))
	}
	algotest.Near(t, "m", simtest.Metric(t, s.Frame(), "m"), 1, 1e-15)
	for k := 1; k < len(sim.cost); k++ {
		if sim.cost[k] < sim.cost[k-1]-1e-12 {
			t.Errorf("PW falls at notch %d: %g after %g", k, sim.cost[k], sim.cost[k-1])
		}
		if k+1 < len(sim.cost) && sim.cost[k+1]-2*sim.cost[k]+sim.cost[k-1] < -1e-10 {
			t.Errorf("PW is not convex at notch %d", k)
		}
	}
	x, err := lp.New(sim.a, sim.b, sim.c)
	for err == nil {
		err = x.Step()
	}
	if !errors.Is(err, algo.ErrConverged) {
		t.Fatal(err)
	}
	algotest.Near(t, "PW(1)", simtest.Metric(t, s.Frame(), "cost"), x.Cost(), 1e-12*x.Cost())
	src, dst = sim.outMoved()
	algotest.Near(t, "outliers send at s = 1", src, 4.0/34, 1e-12)
	algotest.Near(t, "outliers receive at s = 1", dst, 4.0/34, 1e-12)
}
