package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// held is what a tape's nodes hold: each node and its buffers, as the
// allocator rounds them.
func held(tp *Tape) int64 {
	b := int64(len(tp.nodes)) * nodeBytes
	for _, nd := range tp.nodes {
		b += Alloc(cap(nd.buf)) + Alloc(cap(nd.gbuf)) + Alloc(cap(nd.aux)) + Alloc(cap(nd.aux2)) + Alloc(cap(nd.idx)) +
			Alloc(cap(nd.pack))
	}
	return b
}

// A Footprint counts the buffers the operations allocate, whichever route
// the products take.
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
		foot     func(f *Footprint)
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
						func(f *Footprint) { f.Product(p) }, back},
					op{fmt.Sprintf("MatMulT %v gradA=%v backward=%v", s, gradA, back), func(tp *Tape) *Tensor { return tp.MatMulT(x, wt) },
						func(f *Footprint) { f.Product(pt) }, back})
			}
		}
	}
	q, kk := leaf(true, 3, 12, 16), leaf(true, 3, 12, 16)
	ops = append(ops, op{"batched MatMulT", func(tp *Tape) *Tensor { return tp.MatMulT(q, kk) },
		func(f *Footprint) {
			f.Product(Product{Batch: 3, M: 12, K: 16, N: 12, TB: true, GradA: true, GradB: true, Backward: true})
		}, true})
	for _, c := range [][8]int{{4, 1, 16, 16, 8, 3, 1, 1}, {2, 8, 8, 8, 16, 5, 2, 2}} {
		for _, gradX := range []bool{false, true} {
			for _, back := range []bool{false, true} {
				x, w, b := leaf(gradX, c[0], c[1], c[2], c[3]), leaf(true, c[4], c[1], c[5], c[5]), leaf(true, c[4])
				ops = append(ops, op{fmt.Sprintf("Conv2D %v gradX=%v backward=%v", c, gradX, back),
					func(tp *Tape) *Tensor { return tp.Conv2D(x, w, b, c[6], c[7]) },
					func(f *Footprint) { f.Conv2D(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], gradX, back) }, back})
			}
		}
	}
	logits, labels := leaf(true, 50, 10), make([]int, 50)
	ops = append(ops,
		op{"CrossEntropy", func(tp *Tape) *Tensor { return tp.CrossEntropy(logits, labels) }, func(f *Footprint) { f.CrossEntropy(50, 10, true) }, true},
		op{"LogSoftmax", func(tp *Tape) *Tensor { return tp.LogSoftmax(logits) }, func(f *Footprint) { f.Aux(500, 500, true) }, true},
		op{"Dropout", func(tp *Tape) *Tensor { return tp.Dropout(logits, 0.5, rng) }, func(f *Footprint) { f.Aux(500, 500, true) }, true},
		op{"LayerNorm", func(tp *Tape) *Tensor { return tp.LayerNorm(logits, nil, nil, 1e-5) }, func(f *Footprint) { f.LayerNorm(50, 10, true) }, true},
		op{"Tanh", func(tp *Tape) *Tensor { return tp.Tanh(logits) }, func(f *Footprint) { f.Op(500, true) }, true},
		op{"Sum", func(tp *Tape) *Tensor { return tp.Sum(logits) }, func(f *Footprint) { f.Op(1, true) }, true},
		op{"Reshape", func(tp *Tape) *Tensor { return tp.Reshape(logits, 500) }, func(f *Footprint) { f.Op(1, false) }, true})
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
		var f Footprint
		for range 2 {
			f.Rewind()
			o.foot(&f)
		}
		if got, want := held(tp), f.Bytes(); got != want {
			t.Errorf("%s: holds %d bytes, footprint %d", o.name, got, want)
		}
	}
}

// A tape that records passes of different shapes keeps, node by node, the
// largest buffers recorded in its place, and so does a Footprint.
func TestFootprintPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w, _ := New(8, 40)
	b, _ := New(40)
	tp := NewTape()
	var f Footprint
	for _, p := range []struct {
		rows  int
		slice bool
	}{{50, false}, {20, true}, {90, true}, {60, false}} {
		x, _ := FromData(make([]float64, p.rows*8), p.rows, 8)
		for i := range x.Data {
			x.Data[i] = rng.NormFloat64()
		}
		tp.Rewind()
		f.Rewind()
		h := x
		if p.slice { // a node that shifts the others
			h = tp.Slice(x, 1, 0, 8)
			f.Op(p.rows*8, false)
		}
		y := tp.Tanh(tp.Linear(h, w, b))
		f.Product(Product{M: p.rows, K: 8, N: 40, GradB: true, Backward: true})
		f.Op(p.rows*40, true)
		l := tp.Sum(tp.Dropout(y, 0.5, rng))
		f.Aux(p.rows*40, p.rows*40, true)
		f.Op(1, true)
		if err := tp.Backward(l); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := held(tp), f.Bytes(); got != want {
		t.Errorf("holds %d bytes, footprint %d", got, want)
	}
}

// A forward tape computes the same values keeping no gradient, refuses a
// Backward, and holds what a Footprint with Forward set counts.
func TestForwardTape(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, _ := FromData(make([]float64, 30*8), 30, 8)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	w, _ := New(8, 16)
	if err := w.Fill(Xavier, rng); err != nil {
		t.Fatal(err)
	}
	run := func(tp *Tape) *Tensor { return tp.Sum(tp.Tanh(tp.MatMul(x, w))) }
	full, fwd := NewTape(), NewForwardTape()
	a, b := run(full), run(fwd)
	if a.Item() != b.Item() || b.Grad != nil {
		t.Errorf("forward tape: %v (gradient %v), tape: %v", b.Item(), b.Grad, a.Item())
	}
	if err := fwd.Backward(b); err == nil {
		t.Error("Backward on a forward tape: no error")
	}
	f := Footprint{Forward: true}
	f.Product(Product{M: 30, K: 8, N: 16, GradB: true})
	f.Op(30*16, true)
	f.Op(1, true)
	if got, want := held(fwd), f.Bytes(); got != want {
		t.Errorf("forward tape holds %d bytes, footprint %d", got, want)
	}
}

// Alloc rounds a small block to the allocator's size class: what append
// gives a slice grown past a length, every length up to 32 KiB.
func TestSizeClasses(t *testing.T) {
	for n := 1; n <= 4096; n++ {
		got := 8 * int64(cap(append([]float64(nil), make([]float64, n)...)))
		if want := Alloc(n); got != want {
			t.Fatalf("%d float64s: append gives %d bytes, Alloc %d", n, got, want)
		}
	}
}
