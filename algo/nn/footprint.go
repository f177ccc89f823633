package nn

import (
	"unsafe"

	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Footprints: the bytes a network, its tapes and its trainer hold, for
// estimating what a model holds before it is built (a sim's size; see
// tensor.Footprint). Each follows the allocations of the code it sits
// beside.

// Arch is a network's architecture, as its footprint needs it: MLPConfig
// or CNNConfig.
type Arch interface {
	// ParamSizes lists the entries of each parameter tensor, a weight
	// and then its bias, layer by layer.
	ParamSizes() []int
	// Record records the network's forward pass (Forward) on f.
	Record(f *tensor.Footprint, p Pass)
}

// Pass is how a tape records a network's forward pass.
type Pass struct {
	Rows     int  // examples
	GradIn   bool // the inputs have a gradient (InputGrad, a network fed by another)
	Backward bool // a Backward runs through it
	Train    bool // with dropout's masks (an rng: a Trainer's step)
}

// TapeBytes is what a tape holds that records only a's pass p.
func TapeBytes(a Arch, p Pass) int64 {
	var f tensor.Footprint
	a.Record(&f, p)
	return f.Bytes()
}

// ForwardTapeBytes is what a forward tape (tensor.NewForwardTape) holds
// that records only a's pass on rows examples.
func ForwardTapeBytes(a Arch, rows int) int64 {
	f := tensor.Footprint{Forward: true}
	a.Record(&f, Pass{Rows: rows})
	return f.Bytes()
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

// Record is each layer's product, activation, residual sum and dropout.
func (c MLPConfig) Record(f *tensor.Footprint, p Pass) {
	in, grad := c.In, p.GradIn
	for _, w := range c.Hidden {
		n := p.Rows * w
		f.Product(tensor.Product{M: p.Rows, K: in, N: w, GradA: grad, GradB: true, Backward: p.Backward})
		if c.Act != Linear {
			f.Op(n, true)
		}
		if c.Residual && in == w {
			f.Op(n, true)
		}
		if p.Train && c.Dropout > 0 {
			f.Aux(n, n, true)
		}
		in, grad = w, true
	}
	f.Product(tensor.Product{M: p.Rows, K: in, N: c.Out, GradA: grad, GradB: true, Backward: p.Backward})
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

// Record is the reshapes, each block's convolution, activation and
// max-pooling, and the dense layers.
func (c CNNConfig) Record(f *tensor.Footprint, p Pass) {
	f.Op(1, false)
	ch, h, w := 1, c.H, c.W
	grad := p.GradIn
	for _, fs := range c.Filters {
		f.Conv2D(p.Rows, ch, h, w, fs, c.Kernel, 1, (c.Kernel-1)/2, grad, p.Backward)
		if c.Act != Linear {
			f.Op(p.Rows*fs*h*w, true)
		}
		ch, h, w, grad = fs, h/2, w/2, true
		f.Indexed(p.Rows*ch*h*w, p.Rows*ch*h*w, true)
	}
	f.Op(1, false)
	in := c.denseIn()
	ws := c.widths()
	for i, w := range ws {
		f.Product(tensor.Product{M: p.Rows, K: in, N: w, GradA: true, GradB: true, Backward: p.Backward})
		if i < len(ws)-1 && c.Act != Linear {
			f.Op(p.Rows*w, true)
		}
		in = w
	}
}

// Record records the loss's mean over rows outputs of outs values each
// (Mean).
func (l Loss) Record(f *tensor.Footprint, rows, outs int) {
	if l == CrossEntropy {
		f.CrossEntropy(rows, outs, true)
		return
	}
	l.RecordPerExample(f, rows, outs)
	f.Op(1, true)
}

// RecordPerExample records the per-example losses (PerExample).
func (l Loss) RecordPerExample(f *tensor.Footprint, rows, outs int) {
	n := rows * outs
	if l == CrossEntropy { // LogSoftmax, Pick, Neg
		f.Aux(n, n, true)
		f.Indexed(rows, rows, true)
		f.Op(rows, true)
		return
	}
	for range 3 { // Mul, Neg, Softplus; Sub, Square, Scale
		f.Op(n, true)
	}
}

// SetBytes is a Set of n examples of d features with their labels or
// targets, as Subset copies them (the labels appended one at a time).
func SetBytes(n, d int) int64 { return tensor.Alloc(n*d) + tensor.Appended(n) }

// BatchBytes is a Batch of rows examples of d features (NewBatch).
func BatchBytes(rows, d int) int64 {
	return 2*tensorBytes + tensor.Alloc(rows*d) + 2*tensor.Alloc(rows)
}

// Bytes is what a Trainer of the network a holds besides the network, for
// n training examples of in features and outs outputs: the batch, the
// epoch's order, the optimiser's state and the tape of a step (the
// network, the loss and the penalty).
func (c TrainConfig) Bytes(a Arch, n, in, outs int, loss Loss) int64 {
	var f tensor.Footprint
	a.Record(&f, Pass{Rows: c.Batch, Backward: true, Train: true})
	loss.Record(&f, c.Batch, outs)
	sizes := a.ParamSizes()
	for i := 0; i < len(sizes); i += 2 { // the weights, not the biases
		for _, on := range []bool{c.L1 > 0, c.L2 > 0} {
			if on { // Abs or Square, Sum, Scale, Add
				f.Op(sizes[i], true)
				for range 3 {
					f.Op(1, true)
				}
			}
		}
	}
	return BatchBytes(c.Batch, in) + tensor.Alloc(c.Batch) + tensor.Alloc(n) + StateBytes(a, c.Opt.Method) + f.Bytes()
}

// PerExampleBytes is what a PerExample of the network a holds for
// batches of rows examples of d features and outs outputs: the tape of
// the per-example losses (its two backward passes), the seed, the batch
// of one, and a sum per parameter.
func PerExampleBytes(a Arch, loss Loss, rows, d, outs int) int64 {
	var f tensor.Footprint
	a.Record(&f, Pass{Rows: rows, Backward: true})
	loss.RecordPerExample(&f, rows, outs)
	b := f.Bytes() + tensor.Alloc(rows) + BatchBytes(1, d)
	for _, n := range a.ParamSizes() {
		b += tensor.Alloc(n)
	}
	return b
}

// EvaluatorBytes is an Evaluator of chunk rows run on sets of at most n
// examples of in features and outs outputs: its batch, and its forward
// tape for the network and the loss on a chunk.
func EvaluatorBytes(a Arch, chunk, n, in, outs int, loss Loss) int64 {
	rows := min(chunk, n)
	f := tensor.Footprint{Forward: true}
	a.Record(&f, Pass{Rows: rows})
	loss.Record(&f, rows, outs)
	return BatchBytes(chunk, in) + tensor.Alloc(chunk) + f.Bytes()
}
