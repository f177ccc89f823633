package adversarial

import (
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// MaxInner bounds the attack steps inside one training step.
const MaxInner = 100

// Trainer is adversarial training (L1555–L1559, [A33]):
//
//	min_w Ê[ max_{‖Δx‖ ≤ ε} ℓ(x + Δx; w) ]
//
// each step draws a minibatch, runs `inner` attack steps on it (the inner
// max, approximately), and takes one optimiser step on the loss at the
// attacked inputs (the outer min). With no attack (atk nil) it is plain
// minibatch training, the ε = 0 baseline.
type Trainer struct {
	m          nn.Model
	loss       nn.Loss
	set        *nn.Set
	atk        *Attack
	inner      int
	opt        *opt.Optimizer
	tp         *tensor.Tape
	b          *nn.Batch
	rng        *rand.Rand
	perm, idx  []int
	pos, steps int
	xb         []float64
	lb         []int
	clean, adv float64
}

// NewTrainer prepares adversarial training of m on set with minibatches of
// batch rows; cfg.Eps = 0 means no attack. The inner attack is one of the
// ε-bounded Methods (FGSM, PGD, sign-PGD): DeepFool and CW stop when they
// fool, which an inner loop of fixed length does not ask.
func NewTrainer(m nn.Model, set *nn.Set, batch, inner int, cfg Config, oc opt.Config, rng *rand.Rand) (*Trainer, error) {
	if cfg.Eps > 0 && !cfg.Method.bounded() {
		return nil, algo.BadParam("method", cfg.Method, "an ε-bounded attack (fgsm, pgd, sign-pgd) for training")
	}
	if batch < 1 || batch > set.N || batch > nn.MaxBatch {
		return nil, algo.BadParam("batch", batch, "in [1, the training set's size]")
	}
	if inner < 1 || inner > MaxInner {
		return nil, algo.BadParam("inner", inner, "in [1, 100]")
	}
	_, outs := m.Shape()
	loss, err := nn.LossFor(set, outs)
	if err != nil {
		return nil, err
	}
	o, err := opt.New(m.Params(), oc)
	if err != nil {
		return nil, err
	}
	b, err := nn.NewBatch(batch, set.D)
	if err != nil {
		return nil, err
	}
	t := &Trainer{m: m, loss: loss, set: set, inner: inner, opt: o, tp: tensor.NewTape(), b: b, rng: rng,
		perm: make([]int, set.N), idx: make([]int, batch), xb: make([]float64, batch*set.D), lb: make([]int, batch)}
	for i := range t.perm {
		t.perm[i] = i
	}
	t.pos = set.N
	if cfg.Eps > 0 {
		if t.atk, err = New(m, loss, t.xb, t.lb, nil, cfg); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Step is one min-max step.
func (t *Trainer) Step() error {
	d := t.set.D
	for i := range t.idx {
		if t.pos == len(t.perm) {
			t.rng.Shuffle(len(t.perm), func(a, b int) { t.perm[a], t.perm[b] = t.perm[b], t.perm[a] })
			t.pos = 0
		}
		t.idx[i] = t.perm[t.pos]
		t.pos++
		copy(t.xb[i*d:(i+1)*d], t.set.Row(t.idx[i]))
		t.lb[i] = t.set.Labels[t.idx[i]]
	}
	x := t.xb
	if t.atk != nil {
		t.atk.Reset(t.xb, t.lb)
		for range t.inner {
			if err := t.atk.Step(); err != nil {
				return err
			}
		}
		x = t.atk.X()
	}
	// The clean loss at this w (forward only), then the attacked loss,
	// whose gradient the optimiser follows.
	t.b.LoadRows(t.xb, t.lb)
	t.tp.Rewind()
	t.clean = t.loss.Mean(t.tp, t.m.Forward(t.tp, t.b.X, nil), t.b).Item()
	t.b.LoadRows(x, t.lb)
	t.tp.Rewind()
	l := t.loss.Mean(t.tp, t.m.Forward(t.tp, t.b.X, nil), t.b)
	if err := t.tp.Backward(l); err != nil {
		return err
	}
	t.adv = l.Item()
	t.steps++
	if !algo.Finite(t.adv) {
		return algo.Diverged("loss %g at step %d", t.adv, t.steps)
	}
	return t.opt.Step()
}

// Losses are the last batch's clean loss and its loss at the attacked
// inputs, both at the w before the update: robust ≥ clean when the
// attack does its job.
func (t *Trainer) Losses() (clean, robust float64) { return t.clean, t.adv }

// Steps is the number of updates.
func (t *Trainer) Steps() int { return t.steps }

// Epochs is the passes over the training set.
func (t *Trainer) Epochs() float64 { return float64(t.steps*len(t.idx)) / float64(t.set.N) }

// Robust evaluates m on the rows of s under an attack of cfg run for k
// steps (cfg.Eps = 0: the clean accuracy), chunk rows at a time; it
// returns the accuracy at the attacked inputs. The attack is one of the
// ε-bounded Methods: robust accuracy is a function of ε.
func Robust(m nn.Model, s *nn.Set, cfg Config, k, chunk int) (float64, error) {
	if cfg.Eps > 0 && !cfg.Method.bounded() {
		return 0, algo.BadParam("method", cfg.Method, "an ε-bounded attack (fgsm, pgd, sign-pgd) for robust accuracy")
	}
	_, outs := m.Shape()
	loss, err := nn.LossFor(s, outs)
	if err != nil {
		return 0, err
	}
	right := 0
	tp := tensor.NewForwardTape()
	var atk *Attack
	for lo := 0; lo < s.N; lo += chunk {
		n := min(chunk, s.N-lo)
		x := s.X[lo*s.D : (lo+n)*s.D]
		labels := s.Labels[lo : lo+n]
		var b *nn.Batch
		if cfg.Eps > 0 {
			if atk == nil || atk.n != n {
				if atk, err = New(m, loss, x, labels, nil, cfg); err != nil {
					return 0, err
				}
			} else {
				atk.Reset(x, labels)
			}
			for range k {
				if err := atk.Step(); err != nil {
					return 0, err
				}
			}
			b = atk.Batch()
		} else {
			if b, err = nn.NewBatch(n, s.D); err != nil {
				return 0, err
			}
			b.LoadRows(x, labels)
		}
		tp.Rewind()
		out := m.Forward(tp, b.X, nil)
		for i := range n {
			if nn.Predict(out.Data[i*outs:(i+1)*outs]) == labels[i] {
				right++
			}
		}
	}
	return float64(right) / float64(s.N), nil
}
