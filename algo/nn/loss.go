package nn

import (
	"fmt"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// Loss names a training loss, all computed from the network's linear
// outputs (logits), never from probabilities (seed 002 F1: "softmax/sigmoid
// cross-entropy from logits").
type Loss string

// The losses, per example i with output z_i:
//
//	cross-entropy  log Σ_c e^{z_ic} − z_{i,y_i}      (C outputs, labels 0..C−1; seed 000 §2.1, L873)
//	logistic       log(1 + e^{−s_i z_i}), s_i = 2y_i − 1   (one output, labels 0/1; seed 001 §4)
//	squared        ½ (z_i − t_i)²                   (one output, real targets; seed 001 §9 L1001)
const (
	CrossEntropy Loss = "cross-entropy"
	Logistic     Loss = "logistic"
	Squared      Loss = "squared"
)

func (l Loss) String() string { return string(l) }

// LossFor is the loss that fits a set and a number of outputs: squared for
// regression, logistic for two classes and one output, cross-entropy for
// one output per class.
func LossFor(s *Set, outputs int) (Loss, error) {
	switch {
	case s.Classes == 0 && outputs == 1:
		return Squared, nil
	case s.Classes == 2 && outputs == 1:
		return Logistic, nil
	case s.Classes >= 2 && outputs == s.Classes:
		return CrossEntropy, nil
	}
	return "", algo.BadParam("outputs", outputs, fmt.Sprintf("1 for regression or two classes, or one per class (%d)", s.Classes))
}

// Mean records the mean loss of outputs out [N, ·] against the batch's
// targets.
func (l Loss) Mean(tp *tensor.Tape, out *tensor.Tensor, b *Batch) *tensor.Tensor {
	if l == CrossEntropy {
		return tp.CrossEntropy(out, b.Labels) // fused: one pass, gradient (p − onehot)/N
	}
	return tp.Mean(l.PerExample(tp, out, b))
}

// PerExample records the vector of the N examples' losses (shape [N] or
// [N, 1]): what per-example gradients and DP-SGD's clipping are taken of.
func (l Loss) PerExample(tp *tensor.Tape, out *tensor.Tensor, b *Batch) *tensor.Tensor {
	switch l {
	case CrossEntropy:
		return tp.Neg(tp.Pick(tp.LogSoftmax(out), b.Labels))
	case Logistic:
		return tp.Softplus(tp.Neg(tp.Mul(out, b.Y)))
	}
	return tp.Scale(tp.Square(tp.Sub(out, b.Y)), 0.5)
}
