package tensor_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/tensor"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkMLPForwardBackward: the 2→16→16→2 ReLU MLP on 256 points,
// forward and backward (the optimiser's share is in algo/tensor/opt).
func BenchmarkMLPForwardBackward(b *testing.B) {
	step := mlpStep(b, rand.New(rand.NewPCG(1, 2)))
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

// BenchmarkPerExampleClipping is DP-SGD's gradient for a batch of 64 on a
// 64→32→10 ReLU MLP (an 8×8-digit classifier): per-example gradient norms
// and the clipped sum Σ c_i ∇ℓ_i, vectorised (two backward passes and
// PerExampleSqNorms) and by a batch of one per example.
func BenchmarkPerExampleClipping(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := newMLP(b, rng, 64, 32, 10)
	const n, C = 64, 1.0
	x, y := labelled(b, rng, n, 64, 10)
	perExample := func(tp *tensor.Tape, x *tensor.Tensor, y []int) *tensor.Tensor {
		h := tp.Relu(tp.Linear(x, m.params[0], m.params[1]))
		return tp.Neg(tp.Pick(tp.LogSoftmax(tp.Linear(h, m.params[2], m.params[3])), y))
	}
	b.Run("vectorised", func(b *testing.B) {
		tp := tensor.NewTape()
		ones, c, sq := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		step := func() {
			tp.Rewind()
			losses := perExample(tp, x, y)
			if err := tp.BackwardFrom(losses, ones); err != nil {
				b.Fatal(err)
			}
			if err := tp.PerExampleSqNorms(sq, m.params); err != nil {
				b.Fatal(err)
			}
			for i, s := range sq {
				c[i] = min(1, C/math.Sqrt(s))
			}
			if err := tp.BackwardFrom(losses, c); err != nil {
				b.Fatal(err)
			}
		}
		step()
		b.ReportAllocs()
		for b.Loop() {
			step()
		}
	})
	b.Run("batch-of-one", func(b *testing.B) {
		tp := tensor.NewTape()
		byOne := newClipByOne(m, x, y, perExample)
		step := func() {
			if err := byOne.run(tp, C); err != nil {
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
