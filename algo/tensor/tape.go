package tensor

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/thelab/lab/algo"
)

// backwards numbers every Backward of every tape, so that a leaf shared by
// several tapes is zeroed once by each Backward and never skipped.
var backwards atomic.Uint64

// opKind names a recorded operation.
type opKind uint8

const (
	opNone opKind = iota
	opMatMul
	opAdd
	opSub
	opMul
	opDiv
	opScale
	opAddConst
	opExp
	opLog
	opTanh
	opSigmoid
	opRelu
	opSquare
	opSqrt
	opAbs
	opSoftplus
	opSum
	opSumAxis
	opSoftmax
	opLogSoftmax
	opLogSumExp
	opCrossEntropy
	opPick
	opConv2D
	opMaxPool
	opAvgPool
	opLayerNorm
	opEmbedding
	opCausalMask
	opAttention
	opDropout
	opConcat
	opSlice
	opReshape
	opTranspose
)

// node is one recorded operation. Nodes are allocated once and reused
// every step: buf and gbuf keep their capacity, so recording the same
// model again allocates nothing.
type node struct {
	op    opKind
	out   Tensor
	in    [3]*Tensor
	ins   []*Tensor // Concat's inputs
	iarg  [6]int
	farg  [2]float64
	buf   []float64 // out.Data's storage
	gbuf  []float64 // out.Grad's storage
	aux   []float64 // the operation's saved state (probabilities, masks, im2col …)
	aux2  []float64
	idx   []int     // integer state (labels, argmax, broadcast map)
	pack  []float64 // scratch of small matrix products
	bcast bool      // a binary operation uses the general broadcast map in idx
}

// Tape records operations for reverse mode (seed 000 §1.3): a forward pass
// stores every intermediate value, Backward pops them in reverse, adding
// each node's adjoint times its local derivative into its inputs'
// gradients (+=, §1.4.2).
//
// A training step is: Rewind, run the model (each operation appends a node
// whose buffers are reused from the previous step), Backward, update. Once
// a step has run, repeating it with the same shapes allocates nothing.
// Tensors returned by operations belong to the tape: they are overwritten
// after Rewind, and using one from an earlier step is an error.
//
// A Tape is not safe for concurrent use.
type Tape struct {
	nodes []*node
	n     int
	gen   uint64 // the step, incremented by Rewind
	bgen  uint64 // this Backward's number, for zeroing each leaf's Grad once
	err   error
	bad   Tensor // what an operation returns once err is set

	kinks      bool
	kinkHash   uint64
	kinkMargin float64

	forward bool // gradients are never wanted (NewForwardTape)
}

// NewTape returns an empty tape.
func NewTape() *Tape { return &Tape{gen: 1, kinkMargin: math.Inf(1)} }

// NewForwardTape returns an empty tape for forward passes only (an
// evaluation, a sample, a picture): its operations keep no gradient, even
// of parameters that have one, which halves what it holds, and Backward
// on it is an error. The values are those of any tape.
func NewForwardTape() *Tape {
	tp := NewTape()
	tp.forward = true
	return tp
}

// Rewind starts a new step: the nodes are kept for reuse, every tensor
// the tape returned before is invalidated, and the error and kink record
// are cleared.
func (tp *Tape) Rewind() {
	tp.n = 0
	tp.gen++
	tp.err = nil
	tp.kinkHash = 0
	tp.kinkMargin = math.Inf(1)
}

// Len is the number of operations recorded since the last Rewind.
func (tp *Tape) Len() int { return tp.n }

// Err is the first error of this step, or nil.
func (tp *Tape) Err() error { return tp.err }

// TrackKinks turns on the record of non-differentiable points met in the
// forward pass (off by default: it costs a hash per element). See Kinks.
func (tp *Tape) TrackKinks(on bool) { tp.kinks = on }

// Kinks reports, since the last Rewind and while TrackKinks is on, a hash
// of every branch taken at a kink — the sign of each Relu and Abs input and
// each MaxPool window's argmax — and the margin: the smallest |x| at a
// Relu or Abs and the smallest gap between a max-pool window's two largest
// values. A finite difference whose two evaluations give different hashes
// straddles a kink and is not a valid check of the derivative there.
func (tp *Tape) Kinks() (hash uint64, margin float64) { return tp.kinkHash, tp.kinkMargin }

func (tp *Tape) kink(branch uint64, margin float64) {
	tp.kinkHash = (tp.kinkHash ^ branch) * 1099511628211 // FNV-1a step
	if margin < tp.kinkMargin {
		tp.kinkMargin = margin
	}
}

// fail records the first error of the step and returns the placeholder.
func (tp *Tape) fail(op string, format string, args ...any) *Tensor {
	if tp.err == nil {
		tp.err = fmt.Errorf("tensor %s (operation %d): %s", op, tp.n+1, fmt.Sprintf(format, args...))
	}
	return &tp.bad
}

// Fail records err as the step's error, if it has none yet, and returns
// the placeholder: for models built on the tape (algo/seq) whose own
// checks fail, so that their callers see one sticky error as from any
// operation.
func (tp *Tape) Fail(op string, err error) *Tensor { return tp.fail(op, "%v", err) }

// ok checks the step's error and that the inputs are live tensors: not
// nil, and either leaves or produced by this tape in this step.
func (tp *Tape) ok(op string, ts ...*Tensor) bool {
	if tp.err != nil {
		return false
	}
	for i, t := range ts {
		if t == nil {
			tp.fail(op, "input %d is nil", i+1)
			return false
		}
		if t == &tp.bad {
			tp.fail(op, "input %d is the placeholder returned by a failed operation", i+1)
			return false
		}
		if t.tape != nil && (t.tape != tp || t.gen != tp.gen) {
			tp.fail(op, "input %d is from another tape or from before the last Rewind", i+1)
			return false
		}
	}
	return true
}

// record appends a node for op with output shape s; the output needs a
// gradient when grad is true.
func (tp *Tape) record(op opKind, s shape, grad bool) *node {
	var nd *node
	if tp.n < len(tp.nodes) {
		nd = tp.nodes[tp.n]
	} else {
		nd = &node{}
		tp.nodes = append(tp.nodes, nd)
	}
	tp.n++
	nd.op = op
	nd.in = [3]*Tensor{}
	nd.ins = nd.ins[:0]
	nd.bcast = false
	size := s.size()
	nd.buf = grow(nd.buf, size)
	nd.out = Tensor{shape: s, Data: nd.buf, tape: tp, gen: tp.gen}
	if grad && !tp.forward {
		nd.gbuf = grow(nd.gbuf, size)
		nd.out.Grad = nd.gbuf
	}
	return nd
}

// grow returns b resized to n, reusing its storage when it is large enough.
func grow[T any](b []T, n int) []T {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]T, n)
}

func anyGrad(ts ...*Tensor) bool {
	for _, t := range ts {
		if t != nil && t.Grad != nil {
			return true
		}
	}
	return false
}

// Backward computes the gradient of loss (a one-entry tensor recorded on
// this tape in this step) with respect to every tensor that has a Grad:
// parameters, inputs made RequireGrad, and the intermediates. Gradients are
// reset first, so calling it twice gives the same gradients, never their
// sum (accumulate across calls by copying them out). It returns the step's
// sticky error, if any.
func (tp *Tape) Backward(loss *Tensor) error {
	if !tp.ok("Backward", loss) {
		return tp.err
	}
	if loss.tape == nil {
		return algo.BadParam("loss", "a leaf", "a tensor computed on the tape")
	}
	if len(loss.Data) != 1 {
		return algo.BadParam("loss", fmt.Sprint(loss.Shape()), "one entry (use BackwardFrom for a vector)")
	}
	return tp.backward(loss, nil)
}

// BackwardFrom is reverse mode seeded with the cotangent seed on out
// (len = out.Size()): every Grad becomes seedᵀ·∂out/∂(·), a vector-Jacobian
// product (§1.5.2).
func (tp *Tape) BackwardFrom(out *Tensor, seed []float64) error {
	if !tp.ok("BackwardFrom", out) {
		return tp.err
	}
	if out.tape == nil {
		return algo.BadParam("out", "a leaf", "a tensor computed on the tape")
	}
	if len(seed) != len(out.Data) {
		return algo.BadParam("seed", len(seed), fmt.Sprintf("%d values (the size of out)", len(out.Data)))
	}
	return tp.backward(out, seed)
}

//go:norace
func (tp *Tape) backward(out *Tensor, seed []float64) error {
	if tp.forward {
		return algo.BadParam("tape", "a forward tape (NewForwardTape)", "a tape that keeps gradients (NewTape)")
	}
	last := tp.indexOf(out)
	if last < 0 {
		return algo.BadParam("out", "unknown", "a tensor recorded on this tape")
	}
	tp.bgen = backwards.Add(1)
	for i := 0; i <= last; i++ {
		nd := tp.nodes[i]
		if nd.op != opReshape {
			clear(nd.out.Grad)
		}
		for _, t := range nd.in {
			tp.zeroLeaf(t)
		}
		for _, t := range nd.ins {
			tp.zeroLeaf(t)
		}
	}
	if out.Grad == nil {
		return nil // nothing on the tape needs a gradient
	}
	if seed == nil {
		out.Grad[0] = 1
	} else {
		copy(out.Grad, seed)
	}
	for i := last; i >= 0; i-- {
		if nd := tp.nodes[i]; nd.out.Grad != nil {
			nd.backward(tp)
		}
	}
	return nil
}

//go:norace
func (tp *Tape) zeroLeaf(t *Tensor) {
	if t != nil && t.tape == nil && t.Grad != nil && t.stamp != tp.bgen {
		clear(t.Grad)
		t.stamp = tp.bgen
	}
}

// indexOf finds the node whose output is t.
func (tp *Tape) indexOf(t *Tensor) int {
	for i := tp.n - 1; i >= 0; i-- {
		if &tp.nodes[i].out == t {
			return i
		}
	}
	return -1
}

// backward pushes the node's output gradient into its inputs.
//
//go:norace
func (nd *node) backward(tp *Tape) {
	switch nd.op {
	case opMatMul:
		nd.backMatMul()
	case opAdd, opSub, opMul, opDiv:
		nd.backBinary()
	case opScale, opAddConst, opExp, opLog, opTanh, opSigmoid, opRelu, opSquare, opSqrt, opAbs, opSoftplus:
		nd.backUnary()
	case opSum:
		nd.backSum()
	case opSumAxis:
		nd.backSumAxis()
	case opSoftmax, opLogSoftmax, opLogSumExp:
		nd.backSoftmax()
	case opCrossEntropy:
		nd.backCrossEntropy()
	case opPick:
		nd.backPick()
	case opConv2D:
		nd.backConv2D()
	case opMaxPool, opAvgPool:
		nd.backPool()
	case opLayerNorm:
		nd.backLayerNorm()
	case opEmbedding:
		nd.backEmbedding()
	case opCausalMask:
		nd.backCausalMask()
	case opAttention:
		nd.backAttention()
	case opDropout:
		nd.backDropout()
	case opConcat:
		nd.backConcat()
	case opSlice:
		nd.backSlice()
	case opTranspose:
		nd.backTranspose()
	case opReshape: // shares its input's Grad
	}
}
