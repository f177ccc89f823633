package nnsim_test

import (
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
)

// stepCases are the training sims at their defaults (digits on its
// default set), for the allocation test and the step benchmarks.
var stepCases = []struct {
	spec *sims.Spec
	set  map[string]string
}{
	{nnsim.Playground, nil},
	{nnsim.Digits, nil},
	{nnsim.Optimizers, nil},
	{nnsim.Dropout, nil},
	{nnsim.Universal, nil},
}

// TestStepsAllocationFree: after the first steps (the traces and tapes
// grow to size) a step allocates nothing (issue 16's performance item).
// The steps measured cover at least one evaluation (playground evaluates
// every 2 steps at its defaults, digits every 52, the others more often).
func TestStepsAllocationFree(t *testing.T) {
	for _, c := range stepCases {
		s := simtest.Build(t, c.spec, c.set, 1, nil)
		simtest.Run(t, s, 60)
		if a := testing.AllocsPerRun(60, func() { _ = s.Step() }); a != 0 {
			t.Errorf("%s: a step allocates %v times", c.spec.Name, a)
		}
	}
}

// BenchmarkStep: one step of each training sim at its defaults.
func BenchmarkStep(b *testing.B) {
	for _, c := range stepCases {
		b.Run(c.spec.Name, func(b *testing.B) {
			s := simtest.Build(b, c.spec, c.set, 1, nil)
			simtest.Run(b, s, 25)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
