package seq

import (
	"unsafe"

	"github.com/thelab/lab/algo/tensor"
)

// Footprints: the bytes a sequence model, its trainer and its generator
// hold, for estimating what a model holds before it is built (a sim's
// size; see tensor.Footprint). Each follows the allocations of the code
// it sits beside.

// Arch is a sequence model's architecture, as its footprint needs it:
// GPTConfig or RNNConfig.
type Arch interface {
	// ParamSizes lists the entries of each parameter tensor.
	ParamSizes() []int
	// Tokens is the vocabulary.
	Tokens() int
	// Record records the model's pass on B sequences of T tokens
	// (Forward) on f; backward says that a Backward runs through it.
	Record(f *tensor.Footprint, B, T int, backward bool)
}

// ParamSizes lists the embeddings, each block's parameters, the final
// LayerNorm and the decoder, as NewGPT makes them.
func (c GPTConfig) ParamSizes() []int {
	d := c.Dim
	s := []int{c.Vocab * d}
	if c.Positions == Learned {
		s = append(s, c.Context*d)
	}
	for range c.Layers {
		s = append(s, d, d, d*3*d, 3*d, d*d, d, d, d, d*c.FFN, c.FFN, c.FFN*d, d)
	}
	if c.Norm == Pre {
		s = append(s, d, d)
	}
	if c.Untied {
		s = append(s, d*c.Vocab)
	}
	return s
}

// Tokens is the vocabulary.
func (c GPTConfig) Tokens() int { return c.Vocab }

// Record follows Forward operation by operation: the embeddings, each
// block's LayerNorms, projections, heads' attention, feed-forward layers
// and residual sums, and the decoder.
func (c GPTConfig) Record(f *tensor.Footprint, B, T int, backward bool) {
	d, rows := c.Dim, B*T
	n, dh := rows*d, d/c.Heads
	dense := func(k, m int) { // a Linear on the rows
		f.Product(tensor.Product{M: rows, K: k, N: m, GradA: true, GradB: true, Backward: backward})
	}
	f.Indexed(n, rows, true) // Embedding
	f.Op(1, false)           // Reshape
	if c.Positions != NoneSeen {
		if T != c.Context {
			f.Op(T*d, c.Positions == Learned) // the window of the position rows
		}
		f.Op(n, true)
	}
	for range c.Layers {
		if c.Norm == Pre {
			f.LayerNorm(rows, d, true)
		}
		dense(d, 3*d)
		for range c.Heads {
			for range 3 { // q, k, v
				f.Op(n/c.Heads, true)
			}
			f.Product(tensor.Product{Batch: B, M: T, K: dh, N: T, TB: true, GradA: true, GradB: true, Backward: backward})
			f.Op(B*T*T, true) // the weights
			f.Product(tensor.Product{Batch: B, M: T, K: T, N: dh, GradA: true, GradB: true, Backward: backward})
		}
		if c.Heads > 1 {
			f.Op(n, true) // Concat
		}
		dense(d, d)
		f.Op(n, true) // the residual sum
		f.LayerNorm(rows, d, true)
		dense(d, c.FFN)
		f.Op(rows*c.FFN, true) // Relu
		dense(c.FFN, d)
		f.Op(n, true)
		if c.Norm == Post {
			f.LayerNorm(rows, d, true)
		}
	}
	if c.Norm == Pre {
		f.LayerNorm(rows, d, true)
	}
	f.Product(tensor.Product{M: rows, K: d, N: c.Vocab, TB: !c.Untied, GradA: true, GradB: true, Backward: backward})
}

// RNNConfig is an RNN's architecture (NewRNN's arguments), for its
// footprint.
type RNNConfig struct{ Vocab, Hidden int }

// ParamSizes lists U, W, b, V and c.
func (c RNNConfig) ParamSizes() []int {
	return []int{c.Vocab * c.Hidden, c.Hidden * c.Hidden, c.Hidden, c.Hidden * c.Vocab, c.Vocab}
}

// Tokens is the vocabulary.
func (c RNNConfig) Tokens() int { return c.Vocab }

// Record follows Forward: each time step's recurrence, input and tanh,
// the states side by side, and the decoder; with the zero state of a
// batch of B.
func (c RNNConfig) Record(f *tensor.Footprint, B, T int, backward bool) {
	H, n := c.Hidden, B*c.Hidden
	for t := range T {
		f.Product(tensor.Product{M: B, K: H, N: H, GradA: t > 0, GradB: true, Backward: backward})
		f.Indexed(n, B, true) // Embedding
		f.Op(n, true)         // Add
		f.Op(n, true)         // Tanh
		f.Op(1, false)        // Reshape
	}
	if T > 1 {
		f.Op(T*n, true) // Concat
	}
	f.Product(tensor.Product{M: B * T, K: H, N: c.Vocab, GradA: true, GradB: true, Backward: backward})
}

// ParamBytes is what a model's parameters hold: values and gradients,
// and Adam's two moments when trained (a Trainer's optimiser).
func ParamBytes(a Arch, trained bool) int64 {
	per := int64(2)
	if trained {
		per += 2
	}
	b := int64(0)
	for _, n := range a.ParamSizes() {
		b += int64(unsafe.Sizeof(tensor.Tensor{})) + per*tensor.Alloc(n)
	}
	return b
}

// TrainerBytes is what a Trainer of a holds on a task of sequences of T
// tokens scored from position from (Task.Seq), at batch B: the batch's
// inputs and targets and the tape of a step (the model, the scored
// positions and the cross-entropy). The optimiser is in ParamBytes, the
// evaluation tape in EvalBytes or ExactMatchBytes.
func TrainerBytes(a Arch, B, T, from int) int64 {
	var f tensor.Footprint
	recordLoss(&f, a, B, T, from, true)
	return tensor.Alloc(B*T) + tensor.Alloc(B*(T-from)) + f.Bytes()
}

// recordLoss records a step's loss on B sequences of T tokens scored from
// position from: the model, the slice of scored positions and the
// cross-entropy.
func recordLoss(f *tensor.Footprint, a Arch, B, T, from int, backward bool) {
	a.Record(f, B, T, backward)
	if from > 0 {
		f.Op(B*(T-from)*a.Tokens(), true)
	}
	f.CrossEntropy(B*(T-from), a.Tokens(), true)
}

// EvalBytes is a Trainer's evaluation tape once Eval has scored, in
// batches of B, the HeldOut of n tokens in windows of T, and the HeldOut
// itself.
func EvalBytes(a Arch, B, T, n int) int64 {
	f := tensor.Footprint{Forward: true}
	recordLoss(&f, a, min(B, heldWindows(n, T)), T, T/2, false)
	return f.Bytes() + HeldOutBytes(T, n)
}

// HeldOutBytes is what a HeldOut of n tokens in windows of T holds (built
// before any evaluation).
func HeldOutBytes(T, n int) int64 {
	from, windows := T/2, heldWindows(n, T)
	return tensor.Appended(windows*T) + tensor.Appended(windows*(T-from))
}

// ExactMatchBytes is a Trainer's evaluation tape once ExactMatch has
// answered n puzzles of L digits: a pass at each length L+1 … 2L.
func ExactMatchBytes(a Arch, n, L int) int64 {
	f := tensor.Footprint{Forward: true}
	for j := range L {
		f.Rewind()
		a.Record(&f, n, L+1+j, false)
	}
	return f.Bytes()
}

// GeneratorBytes is a Generator's tape, with its window of ctx tokens,
// once Extend has grown a prompt of from tokens to to, and the sampler's
// scratch.
func GeneratorBytes(a Arch, ctx, from, to int) int64 {
	f := tensor.Footprint{Forward: true}
	for n := from; n < to; n++ {
		f.Rewind()
		a.Record(&f, 1, min(n, ctx), false)
	}
	return f.Bytes() + 2*tensor.Alloc(a.Tokens())
}
