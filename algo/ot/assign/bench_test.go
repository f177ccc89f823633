package assign

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
)

// BenchmarkHungarian200 solves the assignment between 200 and 200 points
// of the gaussians preset (squared Euclidean cost), every step included.
func BenchmarkHungarian200(b *testing.B) {
	p, err := ot.TwoGaussians(rand.New(rand.NewPCG(1, 2)), 200, 200)
	if err != nil {
		b.Fatal(err)
	}
	c, _ := p.Cost(2)
	steps := 0
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		h, err := NewHungarian(c)
		if err != nil {
			b.Fatal(err)
		}
		for !errors.Is(h.Step(), algo.ErrConverged) {
		}
		steps = h.Scans()
	}
	b.ReportMetric(float64(steps), "steps")
}
