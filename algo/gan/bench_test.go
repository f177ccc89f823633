package gan

import (
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/toy2d"
)

// BenchmarkStep2D is the target: one training round of a 2-D GAN
// (generator 2×32×32×2, discriminator 2×32×32×1, batch 256, one
// discriminator step and one generator step), under 1 ms.
func BenchmarkStep2D(b *testing.B) {
	defer algotest.CPUTime(b)()
	rng := rand.New(rand.NewPCG(1, 2))
	xy, _, _ := toy2d.Sample(toy2d.Ring, rng, 4000)
	g, err := New(Config{Dim: 2, Noise: 2, Hidden: []int{32, 32}, Batch: 256, Loss: NonSaturating, DSteps: 1,
		OptD: opt.Config{LR: 0.001}, OptG: opt.Config{LR: 0.001}}, xy, rng)
	if err != nil {
		b.Fatal(err)
	}
	g.Step()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := g.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
