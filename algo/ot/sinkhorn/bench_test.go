package sinkhorn

import (
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
)

// benchStep times one iteration on 1,000 × 1,000 points of the gaussians
// preset (squared Euclidean cost, ε = 0.1).
func benchStep(b *testing.B, dom Domain) {
	p, err := ot.TwoGaussians(rand.New(rand.NewPCG(1, 2)), 1000, 1000)
	if err != nil {
		b.Fatal(err)
	}
	c, _ := p.Cost(2)
	s, err := New(p.Mu, p.Nu, c, Config{Eps: 0.1, Domain: dom})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogStep1000 is the target: a log-domain iteration on
// 1,000 × 1,000 points under 20 ms.
func BenchmarkLogStep1000(b *testing.B) { benchStep(b, Log) }

// BenchmarkPlainStep1000 is the plain iteration on the same problem, for
// comparison: two matrix–vector products and the evaluation pass.
func BenchmarkPlainStep1000(b *testing.B) { benchStep(b, Plain) }

// BenchmarkBarycenterStep is one round of projections for the barycenter
// of three shapes on a 48×48 grid (six applications of the separable
// kernel, 48³·2 exponentials each).
func BenchmarkBarycenterStep(b *testing.B) {
	var in [][]float64
	for _, name := range []string{"disk", "ring", "cross"} {
		p, err := ot.Shape(name, 48)
		if err != nil {
			b.Fatal(err)
		}
		in = append(in, p)
	}
	g, err := NewBarycenter(in, []float64{0.3, 0.3, 0.4}, BarycenterConfig{NX: 48, NY: 48, H: 1.0 / 48, Eps: 2e-3})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		_ = g.Step()
	}
}
