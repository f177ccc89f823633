package autoenc

import (
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/tensor/opt"
)

// BenchmarkVAEStepDigits16 is the target: one VAE step on 16×16
// procedural digits, batch 64, latent 2, the vae sim's default 64 hidden
// units; under 5 ms.
func BenchmarkVAEStepDigits16(b *testing.B) {
	defer algotest.CPUTime(b)()
	rng := rand.New(rand.NewPCG(1, 2))
	pix, _, err := digits.Generate(rng, 1000, 16, digits.Default)
	if err != nil {
		b.Fatal(err)
	}
	v, err := NewVAE(VAEConfig{D: 256, Latent: 2, Units: 64, Batch: 64, Likelihood: Bernoulli, Opt: opt.Config{LR: 0.001}}, pix, rng)
	if err != nil {
		b.Fatal(err)
	}
	v.Step()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := v.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
