package seq

import (
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/text"
)

// BenchmarkGPTStep is a training step of tinygpt's default model (27 200
// parameters: d_emb 32, 4 heads, 2 layers, d_ff 128, context 32) on 16
// sequences of the built-in language: batch, forward, backward, Adam
// (README: at least 20 steps a second, no allocation after the first).
func BenchmarkGPTStep(b *testing.B) {
	defer algotest.CPUTime(b)()
	l, _ := text.NewLanguage(text.Animals())
	v, _ := text.VocabOf(l.Alphabet())
	ids, _ := v.Encode(l.Generate(rand.New(rand.NewPCG(1, 1)), 20_000))
	c, _ := NewCorpus(ids, 32, v.Size())
	g, err := NewGPT(GPTConfig{Vocab: v.Size(), Context: 32, Dim: 32, Heads: 4, Layers: 2, FFN: 128, Positions: Learned, Norm: Pre},
		rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	tr, err := NewTrainer(g, c, 16, opt.Config{Method: opt.Adam, LR: 1e-3}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		b.Fatal(err)
	}
	tr.Step()
	b.ReportAllocs()
	for b.Loop() {
		if err := tr.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
