package adsim_test

import (
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/adsim"
	"github.com/thelab/lab/sims/simtest"
)

// benchPanes are a pane of each sim (each demo of implicit, each problem
// of coloring, the graph's two modes and its fan-out preset).
var benchPanes = []struct {
	name string
	spec *sims.Spec
	set  map[string]string
}{
	{"ad-graph-forward", adsim.Graph, map[string]string{"mode": "forward"}},
	{"ad-graph-fanout", adsim.Graph, map[string]string{"preset": "fanout", "mode": "reverse"}},
	{"jacobian", adsim.Jacobian, nil},
	{"hessian", adsim.Hessian, nil},
	{"implicit-heron", adsim.Implicit, nil},
	{"implicit-circle", adsim.Implicit, map[string]string{"demo": "circle"}},
	{"implicit-lu", adsim.Implicit, map[string]string{"demo": "lu"}},
	{"implicit-lp", adsim.Implicit, map[string]string{"demo": "lp"}},
	{"coloring", adsim.Coloring, nil},
	{"coloring-jacobian", adsim.Coloring, map[string]string{"problem": "jacobian"}},
	{"gradcheck", adsim.GradCheck, map[string]string{"model": "hinge"}},
}

// BenchmarkStepFrame is a step and a Frame of each of benchPanes,
// restarted when it ends: what a live pane pays per step at full speed
// (a pane draws at most 30 Frames a second).
func BenchmarkStepFrame(b *testing.B) {
	for _, p := range benchPanes {
		b.Run(p.name, func(b *testing.B) {
			s := simtest.Build(b, p.spec, p.set, 1, nil)
			b.ReportAllocs()
			for b.Loop() {
				if s.Step() != nil {
					b.StopTimer()
					s = simtest.Build(b, p.spec, p.set, 1, nil)
					b.StartTimer()
				}
				s.Frame()
			}
		})
	}
}
