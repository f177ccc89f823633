package adsim_test

import (
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// BenchmarkStepFrame is a step and a Frame of each pane of the golden
// tests, restarted when it ends: what a live pane pays per step at full
// speed (a pane draws at most 30 Frames a second).
func BenchmarkStepFrame(b *testing.B) {
	for _, p := range panes {
		b.Run(p.Name, func(b *testing.B) {
			s := simtest.Build(b, p.Spec, p.Set, 1, nil)
			b.ReportAllocs()
			for b.Loop() {
				if s.Step() != nil {
					b.StopTimer()
					s = simtest.Build(b, p.Spec, p.Set, 1, nil)
					b.StartTimer()
				}
				s.Frame()
			}
		})
	}
}
