package tensor_test

import (
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/tensor"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkMLPForwardBackward: the 2→16→16→2 ReLU MLP on 256 points,
// forward and backward (the optimiser's share is in algo/tensor/opt).
func BenchmarkMLPForwardBackward(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := newMLP(b, rng, 2, 16, 16, 2)
	x, y := blobs(b, rng, 256)
	tp := tensor.NewTape()
	step := func() {
		tp.Rewind()
		if err := tp.Backward(m.loss(tp, x, y)); err != nil {
			b.Fatal(err)
		}
	}
	step() // the first step allocates the tape's buffers
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}

// BenchmarkMatMul64 measures, in one run, gonum's mat.Dense.Mul of two
// 64×64 matrices alone and the tape's 64×64 product forward and backward,
// with respect to both factors and to the weights only (README: within 2×
// of Dense.Mul).
func BenchmarkMatMul64(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, w := param(b, rng, 64, 64), param(b, rng, 64, 64)
	b.Run("gonum-Dense.Mul", func(b *testing.B) {
		A, B := mat.NewDense(64, 64, x.Data), mat.NewDense(64, 64, w.Data)
		var C mat.Dense
		C.Mul(A, B)
		b.ReportAllocs()
		for b.Loop() {
			C.Mul(A, B)
		}
	})
	for _, c := range []struct {
		name string
		a    *tensor.Tensor
	}{{"tape-fwd+bwd-both", x}, {"tape-fwd+bwd-weights", input(b, rng, 64, 64)}} {
		b.Run(c.name, func(b *testing.B) {
			tp := tensor.NewTape()
			seed := make([]float64, 64*64)
			for i := range seed {
				seed[i] = 1
			}
			step := func() {
				tp.Rewind()
				if err := tp.BackwardFrom(tp.MatMul(c.a, w), seed); err != nil {
					b.Fatal(err)
				}
			}
			step()
			b.ReportAllocs()
			for b.Loop() {
				step()
			}
		})
	}
}
