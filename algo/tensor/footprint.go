package tensor

import (
	"unsafe"

	"github.com/thelab/lab/algo"
)

// Footprint is the memory of a tape, worked out from the shapes of what it
// records, for estimating what a model holds before it is built (a sim's
// size, charged to a session's memory budget). A tape keeps its nodes
// from one step to the next, each with the largest buffers recorded in
// its place (record reuses them); so a Footprint takes the operations of
// every pass the tape records, each method counting the buffers of one
// operation as the operation allocates them (whether an input has a
// gradient, grad, and whether a Backward runs, as on the tape), and
// keeps, node by node, the largest of each. A model records its pass on
// it as on a tape (algo/nn's Arch.Record, algo/seq's GPTConfig.Record).
// The zero value is empty.
type Footprint struct {
	// Forward is a forward tape's (NewForwardTape): no node keeps a
	// gradient.
	Forward bool

	nodes []nodeSize
	n     int
}

// nodeSize is the entries of a node's buffers.
type nodeSize struct{ buf, gbuf, aux, aux2, idx, pack int }

// nodeBytes is a node and its slot in the tape's list.
const nodeBytes = int64(unsafe.Sizeof(node{})) + 8

// Rewind starts another pass, which reuses the nodes of the last ones.
func (f *Footprint) Rewind() { f.n = 0 }

// Bytes is what the tape holds: its nodes and their buffers.
func (f *Footprint) Bytes() int64 {
	b := int64(len(f.nodes)) * nodeBytes
	for _, s := range f.nodes {
		b += Alloc(s.buf) + Alloc(s.gbuf) + Alloc(s.aux) + Alloc(s.aux2) + Alloc(s.idx) + Alloc(s.pack)
	}
	return b
}

// record takes the next node's buffers.
func (f *Footprint) record(s nodeSize) {
	if f.Forward {
		s.gbuf = 0
	}
	if f.n == len(f.nodes) {
		f.nodes = append(f.nodes, s)
	} else {
		o := &f.nodes[f.n]
		*o = nodeSize{max(o.buf, s.buf), max(o.gbuf, s.gbuf), max(o.aux, s.aux), max(o.aux2, s.aux2),
			max(o.idx, s.idx), max(o.pack, s.pack)}
	}
	f.n++
}

// out is the values of an output of n entries and, when grad (an input
// has a gradient), its gradient.
func out(n int, grad bool) nodeSize {
	if grad {
		return nodeSize{buf: n, gbuf: n}
	}
	return nodeSize{buf: n}
}

// Op is an operation whose output has n entries and that keeps nothing
// else: elementwise operations (a broadcast over trailing axes), Sum and
// Mean (n = 1), Reshape (1, without gradient: it shares its input's),
// SumAxis, Softmax, Slice, Concat, Transpose, CausalMask, and the weights
// of an Attention (besides its two products).
func (f *Footprint) Op(n int, grad bool) { f.record(out(n, grad)) }

// Aux is an operation that keeps aux values besides its n outputs:
// LogSoftmax and LogSumExp their probabilities, Dropout its mask.
func (f *Footprint) Aux(n, aux int, grad bool) {
	s := out(n, grad)
	s.aux = aux
	f.record(s)
}

// Indexed is an operation that keeps idx indices besides its n outputs:
// MaxPool2D its argmax (idx = n), Pick and Embedding their indices, an
// Add, Sub, Mul or Div broadcast other than over trailing axes its map
// (idx = n).
func (f *Footprint) Indexed(n, idx int, grad bool) {
	s := out(n, grad)
	s.idx = idx
	f.record(s)
}

// LayerNorm of rows of d values keeps x̂ and each row's 1/σ.
func (f *Footprint) LayerNorm(rows, d int, grad bool) {
	s := out(rows*d, grad)
	s.aux, s.aux2 = rows*d, rows
	f.record(s)
}

// CrossEntropy of rows of classes logits keeps the labels and the
// probabilities.
func (f *Footprint) CrossEntropy(rows, classes int, grad bool) {
	s := out(1, grad)
	s.idx, s.aux = rows, rows*classes
	f.record(s)
}

// Product is a product of Batch pairs of an M×K matrix a and a K×N one b
// (MatMul, Linear: b is [K, N]; MatMulT when TB: b is [N, K]) as a tape
// records it: GradA and GradB say which inputs have a gradient, Backward
// that a Backward runs through it.
type Product struct {
	Batch, M, K, N             int // Batch 0 is 1
	TB, GradA, GradB, Backward bool
}

// Product keeps its output and the scratch its products pack, forward
// and, for the inputs that have a gradient, backward.
func (f *Footprint) Product(p Product) {
	m, k, n := p.M, p.K, p.N
	s := out(max(p.Batch, 1)*m*n, p.GradA || p.GradB)
	s.pack = gemmScratch(false, p.TB, m, n, k)
	if p.Backward && p.GradA {
		s.pack = max(s.pack, gemmScratch(false, !p.TB, m, k, n))
	}
	if p.Backward && p.GradB {
		if p.TB {
			s.pack = max(s.pack, gemmScratch(true, false, n, k, m))
		} else {
			s.pack = max(s.pack, gemmScratch(true, false, k, n, m))
		}
	}
	f.record(s)
}

// Conv2D of n images of c channels h×w by f filters k×k at stride s with
// padding p (the filters have a gradient) keeps the patches of every
// image (im2col, for the backward pass) and the scratch of its products;
// when a Backward runs (backward) and the images have a gradient (gradX),
// the patches' gradient besides.
func (f *Footprint) Conv2D(n, c, h, w, filters, k, s, p int, gradX, backward bool) {
	ckk, ohw := c*k*k, convOut(h, k, s, p)*convOut(w, k, s, p)
	sz := out(n*filters*ohw, true)
	sz.aux = n * ckk * ohw
	sz.pack = gemmScratch(false, false, filters, ohw, ckk)
	if backward {
		sz.pack = max(sz.pack, gemmScratch(false, true, filters, ckk, ohw))
	}
	if backward && gradX {
		sz.pack = max(sz.pack, gemmScratch(true, false, ckk, ohw, filters))
		sz.aux2 = ckk * ohw
	}
	f.record(sz)
}

// Alloc is the bytes the allocator takes for n float64s (or ints):
// algo.HeapBytes of their 8n bytes.
func Alloc(n int) int64 { return algo.HeapBytes(8 * int64(n)) }

// Slack is b and a 64th: what a footprint does not see — the runtime's
// pools kept over a collection (gonum's workspaces), a map's room — for
// an estimate that follows every allocation it knows.
func Slack(b int64) int64 { return b + b/64 }

// Appended is the bytes, at most, of a slice of n 8-byte values grown by
// append a value at a time: its capacity doubles up to 256 and then grows
// by a quarter and 192 (Go's growslice), so it ends below 1.25·n + 192.
func Appended(n int) int64 {
	if n == 0 {
		return 0
	}
	return Alloc(n + n/4 + 192)
}
