package nn

import (
	"unsafe"

	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Footprints: the bytes a network, its tapes and its trainer hold, for
// estimating what a model holds before it is built (a sim's size; see
// algo/tensor's footprint). Each follows the allocations of the code it
// sits beside.

// Arch is a network's architecture, as its footprint needs it: MLPConfig
// or CNNConfig.
type Arch interface {
	// ParamSizes lists the entries of each parameter tensor.
	ParamSizes() []int
	// TapeBytes is what a tape keeps for the network's forward pass.
	TapeBytes(Pass) int64
}

// Pass is how a tape records a network's forward pass (Forward).
type Pass struct {
	Rows     int  // examples
	GradIn   bool // the inputs have a gradient (InputGrad, a network fed by another)
	Backward bool // a Backward runs through it
	Train    bool // with dropout's masks (an rng: a Trainer's step)
}

// tensorBytes is a tensor's header.
const tensorBytes = int64(unsafe.Sizeof(tensor.Tensor{}))

// ParamBytes is what a network's parameters hold: their values and
// gradients (tensor.New).
func ParamBytes(a Arch) int64 {
	b := int64(0)
	for _, n := range a.ParamSizes() {
		b += tensorBytes + 2*tensor.Alloc(n)
	}
	return b
}

// StateBytes is the state of an optimiser of method m over a network's
// parameters (opt.New).
func StateBytes(a Arch, m opt.Method) int64 {
	b := int64(0)
	for _, n := range a.ParamSizes() {
		b += int64(m.Moments()) * tensor.Alloc(n)
	}
	return b
}

// ParamSizes lists W and b of each layer.
func (c MLPConfig) ParamSizes() []int {
	var s []int
	in := c.In
	for _, w := range append(c.Hidden[:len(c.Hidden):len(c.Hidden)], c.Out) {
		s = append(s, in*w, w)
		in = w
	}
	return s
}

// TapeBytes is each layer's product, activation, residual sum and
// dropout (Forward).
func (c MLPConfig) TapeBytes(p Pass) int64 {
	b := int64(0)
	in, grad := c.In, p.GradIn
	for _, w := range c.Hidden {
		n := p.Rows * w
		b += tensor.Product{M: p.Rows, K: in, N: w, GradA: grad, GradB: true, Backward: p.Backward}.Bytes()
		if c.Act != Linear {
			b += tensor.NodeBytes(n, true)
		}
		if c.Residual && in == w {
			b += tensor.NodeBytes(n, true)
		}
		if p.Train && c.Dropout > 0 {
			b += tensor.AuxBytes(n, n, true)
		}
		in, grad = w, true
	}
	return b + tensor.Product{M: p.Rows, K: in, N: c.Out, GradA: grad, GradB: true, Backward: p.Backward}.Bytes()
}

// ParamSizes lists each convolution's kernels and biases, then W and b of
// the dense layers.
func (c CNNConfig) ParamSizes() []int {
	var s []int
	ch := 1
	for _, f := range c.Filters {
		s = append(s, f*ch*c.Kernel*c.Kernel, f)
		ch = f
	}
	in := c.denseIn()
	for _, w := range c.widths() {
		s = append(s, in*w, w)
		in = w
	}
	return s
}

// denseIn is the features after the last block (each halves the image).
func (c CNNConfig) denseIn() int {
	h, w := c.H, c.W
	for range c.Filters {
		h, w = h/2, w/2
	}
	return c.Filters[len(c.Filters)-1] * h * w
}

// widths are the dense layers' outputs.
func (c CNNConfig) widths() []int {
	if c.Hidden > 0 {
		return []int{c.Hidden, c.Out}
	}
	return []int{c.Out}
}

// TapeBytes is each block's convolution, activation and pooling, the
// reshapes, and the dense layers (Forward).
func (c CNNConfig) TapeBytes(p Pass) int64 {
	b := 2 * tensor.NodeBytes(1, false) // the reshapes
	ch, h, w := 1, c.H, c.W
	grad := p.GradIn
	for _, f := range c.Filters {
		b += tensor.Conv2DBytes(p.Rows, ch, h, w, f, c.Kernel, 1, (c.Kernel-1)/2, grad, p.Backward)
		if c.Act != Linear {
			b += tensor.NodeBytes(p.Rows*f*h*w, true)
		}
		ch, h, w, grad = f, h/2, w/2, true
		b += tensor.AuxBytes(p.Rows*ch*h*w, p.Rows*ch*h*w, true) // max-pooling and its argmax
	}
	in := c.denseIn()
	ws := c.widths()
	for i, w := range ws {
		b += tensor.Product{M: p.Rows, K: in, N: w, GradA: true, GradB: true, Backward: p.Backward}.Bytes()
		if i < len(ws)-1 && c.Act != Linear {
			b += tensor.NodeBytes(p.Rows*w, true)
		}
		in = w
	}
	return b
}

// Bytes is what a tape keeps for the loss's mean over rows outputs of
// outs values each (Mean).
func (l Loss) Bytes(rows, outs int) int64 {
	if l == CrossEntropy {
		return tensor.CrossEntropyBytes(rows, outs, true)
	}
	return l.PerExampleBytes(rows, outs) + tensor.NodeBytes(1, true)
}

// PerExampleBytes is what a tape keeps for the per-example losses
// (PerExample).
func (l Loss) PerExampleBytes(rows, outs int) int64 {
	n := rows * outs
	if l == CrossEntropy { // LogSoftmax, Pick, Neg
		return tensor.AuxBytes(n, n, true) + tensor.AuxBytes(rows, rows, true) + tensor.NodeBytes(rows, true)
	}
	return 3 * tensor.NodeBytes(n, true) // Mul, Neg, Softplus; Sub, Square, Scale
}

// SetBytes is a Set of n examples of d features with their labels or
// targets, as Subset copies them (the labels appended one at a time).
func SetBytes(n, d int) int64 { return tensor.Alloc(n*d) + tensor.Appended(n) }

// BatchBytes is a Batch of rows examples of d features (NewBatch).
func BatchBytes(rows, d int) int64 {
	return 2*tensorBytes + tensor.Alloc(rows*d) + 2*tensor.Alloc(rows)
}

// Bytes is what a Trainer of the network a holds besides the network, for
// n training examples of in features: the batch, the epoch's order, the
// optimiser's state and the tape of a step (the network, the loss and the
// penalty).
func (c TrainConfig) Bytes(a Arch, n, in, outs int, loss Loss) int64 {
	tape := a.TapeBytes(Pass{Rows: c.Batch, Backward: true, Train: true}) + loss.Bytes(c.Batch, outs)
	sizes := a.ParamSizes()
	for i := 0; i < len(sizes); i += 2 { // the weights, not the biases
		if c.L1 > 0 {
			tape += tensor.NodeBytes(sizes[i], true) + 3*tensor.NodeBytes(1, true)
		}
		if c.L2 > 0 {
			tape += tensor.NodeBytes(sizes[i], true) + 3*tensor.NodeBytes(1, true)
		}
	}
	return BatchBytes(c.Batch, in) + tensor.Alloc(c.Batch) + tensor.Alloc(n) + StateBytes(a, c.Opt.Method) + tape
}

// EvaluatorBytes is an Evaluator of chunk rows run on sets of at most n
// examples of in features: its batch, and its tape for the network and
// the loss on a chunk.
func EvaluatorBytes(a Arch, chunk, n, in, outs int, loss Loss) int64 {
	rows := min(chunk, n)
	return BatchBytes(chunk, in) + tensor.Alloc(chunk) + a.TapeBytes(Pass{Rows: rows}) + loss.Bytes(rows, outs)
}
