package otsim

import (
	"errors"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// The sims' own costs on top of their engines' (whose benchmarks live in
// algo/ot/...): a step records a row of a trace; a Frame builds the
// pictures.

// BenchmarkSinkhornStep1000 is one log-domain iteration of the sinkhorn
// sim on 1000 × 1000 points of the gaussians preset (ε = 0.5): the
// engine's iteration and the trace.
func BenchmarkSinkhornStep1000(b *testing.B) {
	s := simtest.Build(b, Sinkhorn, map[string]string{"preset": "gaussians", "n": "1000", "m": "1000", "eps": "0.5", "tol": "0"}, 1, nil)
	b.ReportAllocs()
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSinkhornFrame1000 is a Frame of the same sim that recomputes
// the plan's picture (10⁶ exponentials, summed into 48 × 48 blocks): what
// a paused pane pays per step, and a running one every skPlanEvery
// iterations.
func BenchmarkSinkhornFrame1000(b *testing.B) {
	s := simtest.Build(b, Sinkhorn, map[string]string{"preset": "gaussians", "n": "1000", "m": "1000", "eps": "0.5", "tol": "0"}, 1, nil).(*skSim)
	b.ReportAllocs()
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		s.heatAt = -1
		s.Frame()
	}
}

// BenchmarkLPSolve100 runs the ot-lp sim from the north-west corner to the
// optimum on 100 × 100 points (the "exact LP under 1 s"), the
// frame of the end included.
func BenchmarkLPSolve100(b *testing.B) {
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		s := simtest.Build(b, LP, map[string]string{"preset": "gaussians", "n": "100", "m": "100"}, 1, nil)
		runOut(b, s)
		s.Frame()
	}
}

// BenchmarkOneDSweep100k builds ot-1d on 100,000 + 100,000 weighted
// samples and sweeps it to the end (the sim's largest).
func BenchmarkOneDSweep100k(b *testing.B) {
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		s := simtest.Build(b, OneD, map[string]string{"preset": "samples", "n": "100000", "m": "100000"}, 1, nil)
		runOut(b, s)
		s.Frame()
	}
}

// BenchmarkFrames is a Frame of each sim at its defaults after a few
// steps: what a running pane pays 30 times a second at most.
func BenchmarkFrames(b *testing.B) {
	for _, spec := range []*sims.Spec{Assignment, LP, OneD, Gauss, Sinkhorn, Distances, Geodesic, Barycenter} {
		b.Run(spec.Name, func(b *testing.B) {
			s := simtest.Build(b, spec, nil, 1, nil)
			_ = simtest.RunErr(s, 10)
			b.ReportAllocs()
			for b.Loop() {
				s.Frame()
			}
		})
	}
}

func runOut(b *testing.B, s sims.Sim) {
	for {
		err := s.Step()
		if errors.Is(err, sims.ErrConverged) {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestStepsDoNotAllocate: the stepped sims whose engines do not allocate
// add no allocation of their own in a step (the traces are preallocated).
func TestStepsDoNotAllocate(t *testing.T) {
	for _, tt := range []struct {
		spec *sims.Spec
		set  map[string]string
	}{
		{Sinkhorn, map[string]string{"tol": "0"}},
		{LP, map[string]string{"preset": "gaussians", "n": "60", "m": "60"}},
		{OneD, map[string]string{"preset": "samples"}},
		{Barycenter, map[string]string{"tol": "0"}},
		{Assignment, map[string]string{"preset": "gaussians", "n": "60", "method": "hungarian"}},
	} {
		s := simtest.Build(t, tt.spec, tt.set, 1, nil)
		simtest.Run(t, s, 2)
		if a := testing.AllocsPerRun(20, func() { _ = s.Step() }); a != 0 {
			t.Errorf("%s %v: %g allocations a step", tt.spec.Name, tt.set, a)
		}
	}
}
