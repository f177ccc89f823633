package nn

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// InputGrad records m on the batch's inputs and the mean loss against its
// targets, and writes ∂loss/∂x (one value per input entry, len n·D) into
// dst: the gradient a saliency map draws and an FGSM or PGD step follows.
// It returns the loss. tp is the caller's (rewound here); the parameters'
// gradients are overwritten too.
func InputGrad(tp *tensor.Tape, m Model, loss Loss, b *Batch, dst []float64) (float64, error) {
	if b.X.Grad == nil {
		b.RequireGrad()
	}
	if len(dst) != b.X.Size() {
		return 0, algo.BadParam("dst", len(dst), fmt.Sprintf("%d values (the batch's inputs)", b.X.Size()))
	}
	tp.Rewind()
	l := loss.Mean(tp, m.Forward(tp, b.X, nil), b)
	if err := tp.Backward(l); err != nil {
		return 0, err
	}
	copy(dst, b.X.Grad)
	return l.Item(), nil
}

// PerExample computes per-example gradients ∇_θ ℓ_i of a model's loss on
// a batch (seed 001 [A39], DP-SGD): their norms and the clipped sum
// Σ_i min(1, C/‖∇ℓ_i‖) ∇ℓ_i. For a network of dense layers (an MLP) it
// needs two backward passes for the whole batch (tensor.PerExampleSqNorms:
// each weight's per-example gradient is rank one); for others (a CNN) it
// runs a batch of one per example on the same tape. Neither allocates after
// the first call.
type PerExample struct {
	m      Model
	loss   Loss
	tp     *tensor.Tape
	params []*tensor.Tensor
	vec    bool      // the vectorised path works for this model
	seed   []float64 // ones, then the clip factors
	one    *Batch
	acc    [][]float64 // the clipped sum, per parameter (batch of one)
}

// NewPerExample prepares per-example gradients of m under loss for
// batches of up to n rows.
func NewPerExample(m Model, loss Loss, n int) (*PerExample, error) {
	in, _ := m.Shape()
	one, err := NewBatch(1, in)
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, algo.BadParam("batch", n, "≥ 1")
	}
	p := &PerExample{m: m, loss: loss, tp: tensor.NewTape(), params: m.Params(), vec: true,
		seed: make([]float64, n), one: one}
	p.acc = make([][]float64, len(p.params))
	for i, t := range p.params {
		p.acc[i] = make([]float64, t.Size())
	}
	return p, nil
}

// Vectorised says whether the model's per-example gradients come from two
// backward passes for the whole batch (true) or a batch of one per example.
func (p *PerExample) Vectorised() bool { return p.vec }

// Norms writes ‖∇_θ ℓ_i‖ for every example of b into norms (len = rows).
func (p *PerExample) Norms(b *Batch, norms []float64) error {
	return p.run(b, norms, math.Inf(1))
}

// ClippedSum writes Σ_i c_i ∇_θ ℓ_i, c_i = min(1, clip/‖∇_θ ℓ_i‖), into
// the parameters' Grad (the sum, not the mean: DP-SGD adds its noise to
// it), and the unclipped norms into norms. clip = +Inf is the plain sum of
// the per-example gradients, B times the batch's mean gradient.
func (p *PerExample) ClippedSum(b *Batch, clip float64, norms []float64) error {
	if !(clip > 0) {
		return algo.BadParam("clip", clip, "> 0")
	}
	return p.run(b, norms, clip)
}

func (p *PerExample) run(b *Batch, norms []float64, clip float64) error {
	n := b.X.Dim(0)
	if len(norms) != n || n > len(p.seed) {
		return algo.BadParam("norms", len(norms), fmt.Sprintf("%d values (the batch's rows), at most %d", n, len(p.seed)))
	}
	if p.vec {
		err := p.vectorised(b, norms, clip)
		if err == nil {
			return nil // (errors.As below would put pe on the heap every step)
		}
		var pe *algo.ParamError
		if !errors.As(err, &pe) {
			return err
		}
		p.vec = false // a layer that is not dense: one example at a time from now on
	}
	return p.byOne(b, norms, clip)
}

// vectorised: BackwardFrom(ℓ, 1) gives every layer's δ_i, whose norms
// PerExampleSqNorms reads; BackwardFrom(ℓ, c) then gives Σ c_i ∇ℓ_i.
func (p *PerExample) vectorised(b *Batch, norms []float64, clip float64) error {
	n := len(norms)
	tp := p.tp
	tp.Rewind()
	losses := p.loss.PerExample(tp, p.m.Forward(tp, b.X, nil), b)
	seed := p.seed[:n]
	for i := range seed {
		seed[i] = 1
	}
	if err := tp.BackwardFrom(losses, seed); err != nil {
		return err
	}
	if err := tp.PerExampleSqNorms(norms, p.params); err != nil {
		return err
	}
	for i, s := range norms {
		norms[i] = math.Sqrt(s)
		seed[i] = clipFactor(norms[i], clip)
	}
	return tp.BackwardFrom(losses, seed)
}

// byOne runs each example alone and adds c_i ∇ℓ_i into the accumulators.
func (p *PerExample) byOne(b *Batch, norms []float64, clip float64) error {
	for _, a := range p.acc {
		clear(a)
	}
	d := p.one.d
	tp := p.tp
	for i := range norms {
		var label []int
		if b.Labels != nil {
			label = b.Labels[i : i+1]
		}
		p.one.LoadRows(b.X.Data[i*d:(i+1)*d], label)
		p.one.y[0] = b.Y.Data[i]
		tp.Rewind()
		l := p.loss.Mean(tp, p.m.Forward(tp, p.one.X, nil), p.one)
		if err := tp.Backward(l); err != nil {
			return err
		}
		sq := 0.0
		for _, t := range p.params {
			for _, g := range t.Grad {
				sq += g * g
			}
		}
		norms[i] = math.Sqrt(sq)
		c := clipFactor(norms[i], clip)
		for j, t := range p.params {
			for k, g := range t.Grad {
				p.acc[j][k] += c * g
			}
		}
	}
	for j, t := range p.params {
		copy(t.Grad, p.acc[j])
	}
	return nil
}

// clipFactor is min(1, C/‖g‖) (1 for a zero gradient).
func clipFactor(norm, clip float64) float64 {
	if norm <= clip {
		return 1
	}
	return clip / norm
}
