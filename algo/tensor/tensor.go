// Package tensor is reverse-mode automatic differentiation over dense
// row-major arrays of float64 (seed 000 §1.3 and chapter 2): the engine of
// the lab's networks. A Tape records operations as a model runs and then
// pushes adjoints back through them (Backward); it is rewound and reused
// every training step, and after the first step neither the forward pass,
// the backward pass nor (with algo/tensor/opt) the update allocates.
//
// Operations: MatMul and MatMulT (gonum BLAS), Add/Sub/Mul/Div with
// broadcasting, Scale, AddConst, elementwise Exp, Log, Tanh, Sigmoid, Relu,
// Square, Sqrt, Abs, Softplus; Sum, Mean (whole or along an axis); Softmax,
// LogSoftmax, LogSumExp, CrossEntropy with integer labels, Pick; Conv2D
// (NCHW, stride, padding), MaxPool2D, AvgPool2D; LayerNorm; Embedding;
// CausalMask and Attention; Dropout; Concat, Slice, Reshape, Transpose.
//
// Misuse (mismatched shapes, a label out of range, a log of a negative
// number) never panics: the first error sticks to the tape, later
// operations return a placeholder, and Backward (or Err) reports it.
//
// The functions that loop over a tensor's data are marked //go:norace: they
// run on the goroutine that steps the engine, on buffers it owns, and the
// race detector's watch of every element made the networks' tests seven
// times slower (docs/ARCHITECTURE.md; algo/par's TestUnwatchedKernelsAreSerial).
package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
)

// MaxRank is the largest number of axes (N, C, H, W).
const MaxRank = 4

// MaxSize bounds the entries of one tensor (2²⁶ ≈ 67 million, 512 MiB).
const MaxSize = 1 << 26

// shape is a tensor's axes, kept in an array so that shapes never
// allocate.
type shape struct {
	d [MaxRank]int
	r int
}

func shapeOf(dims ...int) (shape, error) {
	var s shape
	if len(dims) > MaxRank {
		return s, algo.BadParam("rank", len(dims), fmt.Sprintf("at most %d axes", MaxRank))
	}
	size := 1
	for i, d := range dims {
		if d < 1 {
			return s, algo.BadParam(fmt.Sprintf("axis %d", i), d, "≥ 1")
		}
		if size > MaxSize/d {
			// A copy for the message, so that dims does not escape (a
			// Reshape's dims stay on the stack).
			return s, algo.BadParam("size", fmt.Sprint(slices.Clone(dims)), fmt.Sprintf("at most %d entries", MaxSize))
		}
		size *= d
		s.d[i] = d
	}
	s.r = len(dims)
	return s, nil
}

func (s shape) size() int {
	n := 1
	for _, d := range s.d[:s.r] {
		n *= d
	}
	return n
}

func (s shape) last() int {
	if s.r == 0 {
		return 1
	}
	return s.d[s.r-1]
}

func (s shape) String() string { return fmt.Sprint(s.d[:s.r]) }

// Tensor is an array with a shape, its values Data (row-major) and, when a
// gradient is wanted, Grad (same length). A leaf — a parameter or an input
// made by New or FromData — belongs to the caller; a tensor returned by an
// operation belongs to its Tape and is valid until the tape is rewound.
type Tensor struct {
	shape shape
	Data  []float64
	Grad  []float64 // nil: no gradient flows into this tensor

	tape  *Tape  // the producing tape; nil for a leaf
	gen   uint64 // the tape's step when it was produced
	stamp uint64 // the Backward that last zeroed this leaf's Grad
}

// New returns a zero tensor with a gradient (a parameter). dims may be
// empty (a scalar).
func New(dims ...int) (*Tensor, error) {
	s, err := shapeOf(dims...)
	if err != nil {
		return nil, err
	}
	n := s.size()
	return &Tensor{shape: s, Data: make([]float64, n), Grad: make([]float64, n)}, nil
}

// FromData wraps data (kept, not copied) in a tensor of the given shape
// without a gradient (an input). len(data) must be the product of dims.
func FromData(data []float64, dims ...int) (*Tensor, error) {
	s, err := shapeOf(dims...)
	if err != nil {
		return nil, err
	}
	if len(data) != s.size() {
		return nil, algo.BadParam("data", len(data), fmt.Sprintf("%d values for shape %v", s.size(), s))
	}
	return &Tensor{shape: s, Data: data}, nil
}

// RequireGrad gives a leaf a gradient buffer (if it has none), so that
// Backward fills ∂loss/∂t: the input gradients of saliency maps and
// adversarial attacks.
func (t *Tensor) RequireGrad() *Tensor {
	if t.Grad == nil {
		t.Grad = make([]float64, len(t.Data))
	}
	return t
}

// Shape is the tensor's axes (must not be modified).
func (t *Tensor) Shape() []int { return t.shape.d[:t.shape.r] }

// Rank is the number of axes.
func (t *Tensor) Rank() int { return t.shape.r }

// Dim is the length of axis i (negative i counts from the end).
func (t *Tensor) Dim(i int) int {
	if i < 0 {
		i += t.shape.r
	}
	if i < 0 || i >= t.shape.r {
		return 0
	}
	return t.shape.d[i]
}

// Size is the number of entries.
func (t *Tensor) Size() int { return len(t.Data) }

// Item is the value of a one-entry tensor (a loss), NaN otherwise.
func (t *Tensor) Item() float64 {
	if len(t.Data) != 1 {
		return math.NaN()
	}
	return t.Data[0]
}

// ZeroGrad sets Grad to 0.
func (t *Tensor) ZeroGrad() { clear(t.Grad) }

// fans are the fan-in and fan-out of a weight tensor: [in, out] for a
// dense layer (y = x·W), [F, C, KH, KW] for a convolution (fan-in C·KH·KW,
// fan-out F·KH·KW).
func (t *Tensor) fans() (in, out int) {
	s := t.shape
	switch s.r {
	case 0:
		return 1, 1
	case 1:
		return s.d[0], s.d[0]
	case 2:
		return s.d[0], s.d[1]
	}
	rf := 1
	for _, d := range s.d[2:s.r] {
		rf *= d
	}
	return s.d[1] * rf, s.d[0] * rf
}

// Init names a seeded initialiser.
type Init string

// The initialisers, with fan-in n_in and fan-out n_out from the weight's
// shape ([in, out] for y = x·W; [F, C, KH, KW] for Conv2D):
//
//	xavier         U(−a, a), a = √(6/(n_in + n_out))   (Glorot & Bengio 2010: Var = 2/(n_in + n_out))
//	xavier-normal  N(0, 2/(n_in + n_out))
//	he             N(0, 2/n_in)                         (He et al. 2015, for ReLU)
//	he-uniform     U(−a, a), a = √(6/n_in)
//	zeros          0 (biases)
const (
	Xavier       Init = "xavier"
	XavierNormal Init = "xavier-normal"
	He           Init = "he"
	HeUniform    Init = "he-uniform"
	Zeros        Init = "zeros"
)

// inits are the initialisers Fill accepts.
var inits = []Init{Xavier, XavierNormal, He, HeUniform, Zeros}

// Fill draws t's values from the initialiser with randomness from rng.
func (t *Tensor) Fill(init Init, rng *rand.Rand) error {
	if rng == nil && init != Zeros {
		return algo.BadParam("rng", nil, "a random source")
	}
	in, out := t.fans()
	var uniform, normal float64
	switch init {
	case Xavier:
		uniform = math.Sqrt(6 / float64(in+out))
	case XavierNormal:
		normal = math.Sqrt(2 / float64(in+out))
	case He:
		normal = math.Sqrt(2 / float64(in))
	case HeUniform:
		uniform = math.Sqrt(6 / float64(in))
	case Zeros:
		clear(t.Data)
		return nil
	default:
		return algo.BadParam("init", init, fmt.Sprintf("one of %v", inits))
	}
	for i := range t.Data {
		if uniform > 0 {
			t.Data[i] = uniform * (2*rng.Float64() - 1)
		} else {
			t.Data[i] = normal * rng.NormFloat64()
		}
	}
	return nil
}
