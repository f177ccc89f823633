// Package nn builds neural networks on the tape of algo/tensor: dense
// layers and multilayer perceptrons (seed 000 §2.1 eq 2.1, seed 001 §9
// [A15], seed 002 §6.1 eq 6.1 in its row layout h = σ(h W + b)), a small
// convolutional network (seed 001 §10 [A18]), the losses, data sets split
// into train and test, and a trainer that draws seeded minibatches — the
// pieces that the playground, the digits classifier and the later
// generative and trustworthy-ML work share.
//
// A Model records its forward pass on a tensor.Tape for a batch of rows
// (one example per row, features or pixels flat) and lists its parameters,
// so that any caller can:
//
//   - train it: Trainer (Rewind, Forward, Loss.Mean, Backward, opt.Step;
//     allocation-free after the first step);
//   - take gradients with respect to its inputs (saliency maps,
//     adversarial attacks): make the input tensor RequireGrad, Forward,
//     Backward, read x.Grad (InputGrad does exactly that);
//   - take per-example gradients (DP-SGD): PerExample.
//
// Other layers (attention, a transformer block) live beside these as
// further Models or Layers on the same tape: Layer is the one contract.
package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/algo/tensor"
)

// Layer is one differentiable piece of a network: it records its output
// for the input x on tp, and lists its trainable tensors. rng drives any
// randomness of training (dropout masks); nil means evaluation mode.
type Layer interface {
	Forward(tp *tensor.Tape, x *tensor.Tensor, rng *rand.Rand) *tensor.Tensor
	Params() []*tensor.Tensor
}

// Model is a Layer from flat rows to outputs: Forward takes x [N, In]
// and returns [N, Out].
type Model interface {
	Layer
	// Shape is the number of input features and of outputs.
	Shape() (in, out int)
	// FLOPs is the floating-point operations of the forward pass for one
	// example (a multiply-add counts two); a training step costs about
	// three times that per example (forward, and the two products of the
	// backward pass).
	FLOPs() float64
}

// Activation names the nonlinearity σ of the hidden layers (seed 001 §9,
// L951–L954).
type Activation string

// The activations. ReLU′(0) is taken as 0 (the convention [A15] asks to
// state). Linear is the identity: with it every network collapses to one
// affine map (Remark 9.2), which is what the playground shows.
const (
	ReLU    Activation = "relu"
	Tanh    Activation = "tanh"
	Sigmoid Activation = "sigmoid"
	Linear  Activation = "linear"
)

// Activations lists them.
var Activations = []Activation{ReLU, Tanh, Sigmoid, Linear}

func (a Activation) String() string { return string(a) }

func (a Activation) valid() bool {
	switch a {
	case ReLU, Tanh, Sigmoid, Linear:
		return true
	}
	return false
}

// Apply records σ(x) on tp (Linear returns x itself).
func (a Activation) Apply(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	switch a {
	case ReLU:
		return tp.Relu(x)
	case Tanh:
		return tp.Tanh(x)
	case Sigmoid:
		return tp.Sigmoid(x)
	}
	return x
}

// At is σ(t) for one number.
func (a Activation) At(t float64) float64 {
	switch a {
	case ReLU:
		return max(t, 0)
	case Tanh:
		return stable.Tanh(t)
	case Sigmoid:
		return stable.Sigmoid(t)
	}
	return t
}

// init is the default initialiser for weights feeding σ: He for ReLU
// (Var = 2/n_in keeps the activations' scale), Xavier otherwise.
func (a Activation) init() tensor.Init {
	if a == ReLU {
		return tensor.He
	}
	return tensor.Xavier
}

// Dense is the layer x·W + b for x [..., in]: W [in, out], b [out] (seed
// 002 eq 6.1, row layout; the notes' column layout Wx + b is its
// transpose).
type Dense struct {
	W, B *tensor.Tensor
}

// NewDense returns a dense layer with W drawn from init and b = 0.
func NewDense(in, out int, init tensor.Init, rng *rand.Rand) (*Dense, error) {
	if in < 1 || out < 1 {
		return nil, algo.BadParam("units", fmt.Sprintf("%d→%d", in, out), "≥ 1 on both sides")
	}
	w, err := tensor.New(in, out)
	if err != nil {
		return nil, err
	}
	b, err := tensor.New(out)
	if err != nil {
		return nil, err
	}
	if err := w.Fill(init, rng); err != nil {
		return nil, err
	}
	return &Dense{W: w, B: b}, nil
}

// Forward records x·W + b.
func (d *Dense) Forward(tp *tensor.Tape, x *tensor.Tensor, _ *rand.Rand) *tensor.Tensor {
	return tp.Linear(x, d.W, d.B)
}

// Params is W and b.
func (d *Dense) Params() []*tensor.Tensor { return []*tensor.Tensor{d.W, d.B} }

// In and Out are the layer's widths.
func (d *Dense) In() int  { return d.W.Dim(0) }
func (d *Dense) Out() int { return d.W.Dim(1) }

// Weights are the parameters that a weight penalty (L1, L2) applies to:
// every tensor with more than one axis (weight matrices and kernels), not
// the biases.
func Weights(m Layer) []*tensor.Tensor {
	var w []*tensor.Tensor
	for _, p := range m.Params() {
		if p.Rank() > 1 {
			w = append(w, p)
		}
	}
	return w
}

// CountParams is the number of scalar parameters of m.
func CountParams(m Layer) int {
	n := 0
	for _, p := range m.Params() {
		n += p.Size()
	}
	return n
}

// CopyParams copies the parameter values of src into dst (same
// architecture): two networks started from one initialisation.
func CopyParams(dst, src Layer) error {
	a, b := dst.Params(), src.Params()
	if len(a) != len(b) {
		return algo.BadParam("models", fmt.Sprintf("%d and %d parameter tensors", len(a), len(b)), "the same architecture")
	}
	for i := range a {
		if a[i].Size() != b[i].Size() {
			return algo.BadParam("models", fmt.Sprintf("tensor %d has %d and %d entries", i, a[i].Size(), b[i].Size()), "the same architecture")
		}
		copy(a[i].Data, b[i].Data)
	}
	return nil
}
