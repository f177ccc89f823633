package tensor

import "unsafe"

// The footprint of a tape: the bytes it holds, for estimating what a model
// holds before it is built (a sim's size, charged to a session's memory
// budget). A tape keeps the nodes of its longest step from one step to the
// next, each with the buffers of the largest operation recorded in its
// place (record reuses them, and a tensor the model keeps from its last
// pass keeps the whole tape alive). Each function below is what one
// operation keeps, counted as the operation allocates it: a model adds up
// those of its pass (algo/nn's TapeBytes).

// nodeBytes is a node and its slot in the tape's list.
const nodeBytes = int64(unsafe.Sizeof(node{})) + 8

// Alloc is the bytes the allocator takes for n float64s (or ints): a
// small block is rounded up to its size class, at most an eighth more,
// which is counted in full; a large one to whole pages of 8 KiB.
func Alloc(n int) int64 {
	b := 8 * int64(n)
	if b <= 32<<10 {
		return b + b/8
	}
	return (b + 8<<10 - 1) &^ (8<<10 - 1)
}

// Appended is the bytes, at most, of a slice of n 8-byte values grown by
// append a value at a time: its capacity doubles up to 256 and then grows
// by a quarter and 192 (Go's growslice), so it ends below 1.25·n + 192.
func Appended(n int) int64 {
	if n == 0 {
		return 0
	}
	return Alloc(n + n/4 + 192)
}

// NodeBytes is an operation whose output has n entries (elementwise,
// reductions, Slice, Concat, Transpose, Softmax; n = 1 for Sum, Mean and
// Reshape, which shares its input's): its node, values and, when grad (an
// input has a gradient), the gradient.
func NodeBytes(n int, grad bool) int64 {
	b := nodeBytes + Alloc(n)
	if grad {
		b += Alloc(n)
	}
	return b
}

// Product is a product of Batch pairs of an M×K matrix a and a K×N one b
// (MatMul, Linear: b is [K, N]; MatMulT when TB: b is [N, K]) as a tape
// records it: GradA and GradB say which inputs have a gradient, Backward
// that a Backward runs through it.
type Product struct {
	Batch, M, K, N             int // Batch 0 is 1
	TB, GradA, GradB, Backward bool
}

// Bytes is the product's node and the scratch its products pack, forward
// and, for the inputs that have a gradient, backward.
func (p Product) Bytes() int64 {
	m, k, n := p.M, p.K, p.N
	scratch := gemmScratch(false, p.TB, m, n, k)
	if p.Backward && p.GradA {
		scratch = max(scratch, gemmScratch(false, !p.TB, m, k, n))
	}
	if p.Backward && p.GradB {
		if p.TB {
			scratch = max(scratch, gemmScratch(true, false, n, k, m))
		} else {
			scratch = max(scratch, gemmScratch(true, false, k, n, m))
		}
	}
	return NodeBytes(max(p.Batch, 1)*m*n, p.GradA || p.GradB) + Alloc(scratch)
}

// AuxBytes is an operation of n outputs that keeps aux values besides
// (LogSoftmax and LogSumExp their probabilities, Dropout its mask, a
// broadcast Add, Sub, Mul or Div its index map, MaxPool2D its argmax,
// Pick and Embedding their indices, LayerNorm x̂ and 1/σ).
func AuxBytes(n, aux int, grad bool) int64 { return NodeBytes(n, grad) + Alloc(aux) }

// CrossEntropyBytes is CrossEntropy on rows of classes logits: its node,
// the labels and the probabilities.
func CrossEntropyBytes(rows, classes int, grad bool) int64 {
	return NodeBytes(1, grad) + Alloc(rows) + Alloc(rows*classes)
}

// Conv2DBytes is Conv2D of n images of c channels h×w by f filters k×k
// at stride s with padding p (the filters have a gradient): the node, the
// patches of every image (im2col, kept for the backward pass) and the
// scratch of the products, with, when a Backward runs (backward) and the
// images have a gradient (gradX), the patches' gradient.
func Conv2DBytes(n, c, h, w, f, k, s, p int, gradX, backward bool) int64 {
	ckk, ohw := c*k*k, convOut(h, k, s, p)*convOut(w, k, s, p)
	scratch := gemmScratch(false, false, f, ohw, ckk)
	b := NodeBytes(n*f*ohw, true) + Alloc(n*ckk*ohw)
	if backward {
		scratch = max(scratch, gemmScratch(false, true, f, ckk, ohw))
	}
	if backward && gradX {
		scratch = max(scratch, gemmScratch(true, false, ckk, ohw, f))
		b += Alloc(ckk * ohw)
	}
	return b + Alloc(scratch)
}
