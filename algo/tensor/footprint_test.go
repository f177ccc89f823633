package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// held is what a tape's nodes hold: each node and the 8-byte entries of
// its buffers.
func held(tp *Tape) int64 {
	b := int64(len(tp.nodes)) * nodeBytes
	for _, nd := range tp.nodes {
		b += 8 * int64(cap(nd.buf)+cap(nd.gbuf)+cap(nd.aux)+cap(nd.aux2)+cap(nd.idx)+cap(nd.pack))
	}
	return b
}

// The footprint functions count what the operations allocate: at least the
// buffers' entries, at most the allocator's rounding (an eighth) above,
// whichever route the products take.
func TestFootprint(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	leaf := func(grad bool, dims ...int) *Tensor {
		x, _ := New(dims...)
		for i := range x.Data {
			x.Data[i] = rng.NormFloat64()
		}
		if !grad {
			x.Grad = nil
		}
		return x
	}
	type op struct {
		name     string
		run      func(tp *Tape) *Tensor
		bytes    int64
		backward bool
	}
	var ops []op
	for _, s := range [][3]int{{10, 2, 4}, {64, 3, 256}, {5, 40, 8}, {64, 300, 10}, {100, 64, 64}, {1000, 600, 32}, {7, 20, 1}} {
		m, k, n := s[0], s[1], s[2]
		for _, gradA := range []bool{false, true} {
			for _, back := range []bool{false, true} {
				x, w, wt, b := leaf(gradA, m, k), leaf(true, k, n), leaf(true, n, k), leaf(true, n)
				p := Product{M: m, K: k, N: n, GradA: gradA, GradB: true, Backward: back}
				pt := p
				pt.TB = true
				ops = append(ops,
					op{fmt.Sprintf("Linear %v gradA=%v backward=%v", s, gradA, back), func(tp *Tape) *Tensor { return tp.Linear(x, w, b) },
						p.Bytes(), back},
					op{fmt.Sprintf("MatMulT %v gradA=%v backward=%v", s, gradA, back), func(tp *Tape) *Tensor { return tp.MatMulT(x, wt) },
						pt.Bytes(), back})
			}
		}
	}
	q, kk := leaf(true, 3, 12, 16), leaf(true, 3, 12, 16)
	ops = append(ops, op{"batched MatMulT", func(tp *Tape) *Tensor { return tp.MatMulT(q, kk) },
		Product{Batch: 3, M: 12, K: 16, N: 12, TB: true, GradA: true, GradB: true, Backward: true}.Bytes(), true})
	for _, c := range [][8]int{{4, 1, 16, 16, 8, 3, 1, 1}, {2, 8, 8, 8, 16, 5, 2, 2}} {
		for _, gradX := range []bool{false, true} {
			for _, back := range []bool{false, true} {
				x, w, b := leaf(gradX, c[0], c[1], c[2], c[3]), leaf(true, c[4], c[1], c[5], c[5]), leaf(true, c[4])
				ops = append(ops, op{fmt.Sprintf("Conv2D %v gradX=%v backward=%v", c, gradX, back),
					func(tp *Tape) *Tensor { return tp.Conv2D(x, w, b, c[6], c[7]) },
					Conv2DBytes(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], gradX, back), back})
			}
		}
	}
	logits, labels := leaf(true, 50, 10), make([]int, 50)
	ops = append(ops,
		op{"CrossEntropy", func(tp *Tape) *Tensor { return tp.CrossEntropy(logits, labels) }, CrossEntropyBytes(50, 10, true), true},
		op{"LogSoftmax", func(tp *Tape) *Tensor { return tp.LogSoftmax(logits) }, AuxBytes(500, 500, true), true},
		op{"Dropout", func(tp *Tape) *Tensor { return tp.Dropout(logits, 0.5, rng) }, AuxBytes(500, 500, true), true},
		op{"LayerNorm", func(tp *Tape) *Tensor { return tp.LayerNorm(logits, nil, nil, 1e-5) }, AuxBytes(500, 500, true) + Alloc(50), true},
		op{"Tanh", func(tp *Tape) *Tensor { return tp.Tanh(logits) }, NodeBytes(500, true), true},
		op{"Sum", func(tp *Tape) *Tensor { return tp.Sum(logits) }, NodeBytes(1, true), true},
		op{"Reshape", func(tp *Tape) *Tensor { return tp.Reshape(logits, 500) }, NodeBytes(1, false), true})
	for _, o := range ops {
		tp := NewTape()
		for range 2 { // the second step reuses the first's buffers
			tp.Rewind()
			out := o.run(tp)
			if !o.backward || out.Grad == nil {
				continue
			}
			if err := tp.BackwardFrom(out, make([]float64, len(out.Data))); err != nil {
				t.Fatal(err)
			}
		}
		if err := tp.Err(); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		got := held(tp)
		if o.bytes < got || o.bytes > got+got/8 {
			t.Errorf("%s: holds %d bytes, footprint %d", o.name, got, o.bytes)
		}
	}
}
