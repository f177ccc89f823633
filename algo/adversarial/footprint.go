package adversarial

import (
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// Footprints: what attacks and adversarial training hold, for estimating
// a model's memory before it is built (see tensor.Footprint).

// AttackBytes is what an Attack on rows examples of d features holds
// against the network a (outs outputs, loss): the batch with its
// gradient, x₀, the gradient and the labels, and the tape of InputGrad.
func AttackBytes(a nn.Arch, loss nn.Loss, rows, d, outs int) int64 {
	var f tensor.Footprint
	a.Record(&f, nn.Pass{Rows: rows, GradIn: true, Backward: true})
	loss.Record(&f, rows, outs)
	return nn.BatchBytes(rows, d) + 3*tensor.Alloc(rows*d) + tensor.Alloc(rows) + f.Bytes()
}

// TrainerBytes is what a Trainer of a holds on n training examples of d
// features at batch batch, attacked (attack: an ε > 0) or not: the
// optimiser's state (method m), the batches and the epoch's order, the
// tape of a step and the attack.
func TrainerBytes(a nn.Arch, loss nn.Loss, m opt.Method, n, batch, d, outs int, attack bool) int64 {
	var f tensor.Footprint
	a.Record(&f, nn.Pass{Rows: batch, Backward: true})
	loss.Record(&f, batch, outs)
	b := nn.StateBytes(a, m) + nn.BatchBytes(batch, d) + tensor.Alloc(n) + 2*tensor.Alloc(batch) + tensor.Alloc(batch*d) +
		f.Bytes()
	if attack {
		b += AttackBytes(a, loss, batch, d, outs)
	}
	return b
}

// RobustBytes is what Robust's last pass leaves held till the network's
// next one: its forward tape on a chunk of rows and the batch (an
// attack's, with its gradient, when attacked).
func RobustBytes(a nn.Arch, rows, d int, attacked bool) int64 {
	b := nn.BatchBytes(rows, d)
	if attacked {
		b += tensor.Alloc(rows * d)
	}
	return nn.ForwardTapeBytes(a, rows) + b
}
