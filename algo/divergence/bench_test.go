package divergence

import (
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/target"
)

func BenchmarkFlowStep(b *testing.B) {
	f, _ := NewFlow(FlowConfig{Mu0: 2, Sigma0: 1, Mu: -3, Sigma: 1.5, EtaMu: 1e-9, EtaSigma: 1e-9, Gradient: Exact})
	b.ReportAllocs()
	for b.Loop() {
		_ = f.Step()
	}
}

// BenchmarkFitStep is one step of both fits on the 2-D `mixture` target:
// the reverse KL's expectations take a 4096-node rule (RuleFor).
func BenchmarkFitStep(b *testing.B) {
	f, _ := NewFit(target.Fig37(), FitConfig{Start: []float64{1, 0}, StartSD: 2, LR: 1e-9})
	b.ReportAllocs()
	for b.Loop() {
		_ = f.Step()
	}
}

func BenchmarkCodingStep(b *testing.B) {
	c, _ := NewCoding([]float64{0.1, 0.2, 0.4, 0.3}, []float64{0.25, 0.25, 0.25, 0.25}, rand.New(rand.NewPCG(1, 1)))
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Step()
	}
}
