package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// TrainConfig configures a Trainer.
type TrainConfig struct {
	Batch int // minibatch size B (at most the training set's size)
	// L1 and L2 add the penalty λ₁ Σ|w| + (λ₂/2) Σ w² over the weights
	// (Weights: matrices and kernels, not biases) to the loss (seed 002
	// Remark 6.4's weight decay J + (α/2)‖θ‖² is L2 = α).
	L1, L2 float64
	Opt    opt.Config
}

// Trainer trains a model on a set by minibatch steps (seed 002 §6.1,
// Algorithms 5–6 with mini-batches, L2780): each Step takes the next B
// examples of a seeded random permutation of the training set (a new
// permutation every epoch, the batch running on into it, so every batch
// has B rows), records the model and the mean loss plus the penalty,
// backpropagates and updates. After the first step a Step allocates
// nothing.
type Trainer struct {
	model   Model
	loss    Loss
	set     *Set
	cfg     TrainConfig
	opt     *opt.Optimizer
	tp      *tensor.Tape
	batch   *Batch
	idx     []int
	perm    []int
	pos     int
	rng     *rand.Rand
	weights []*tensor.Tensor
	steps   int
	data    float64 // the last batch's mean loss
	penalty float64 // the penalty at the last step's weights
}

// MaxBatch bounds the minibatch.
const MaxBatch = 4096

// NewTrainer checks that the model fits the set (inputs, outputs, loss)
// and prepares the optimiser; rng draws the batches and the dropout masks.
func NewTrainer(m Model, train *Set, cfg TrainConfig, rng *rand.Rand) (*Trainer, error) {
	in, out := m.Shape()
	if train.D != in {
		return nil, algo.BadParam("features", train.D, fmt.Sprintf("%d (the model's inputs)", in))
	}
	loss, err := LossFor(train, out)
	if err != nil {
		return nil, err
	}
	if cfg.Batch < 1 || cfg.Batch > min(train.N, MaxBatch) {
		return nil, algo.BadParam("batch", cfg.Batch, fmt.Sprintf("in 1..%d (the training examples, at most %d)", train.N, MaxBatch))
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"l1", cfg.L1}, {"l2", cfg.L2}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			return nil, algo.BadParam(c.name, c.v, "a finite number ≥ 0")
		}
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	o, err := opt.New(m.Params(), cfg.Opt)
	if err != nil {
		return nil, err
	}
	b, err := NewBatch(cfg.Batch, in)
	if err != nil {
		return nil, err
	}
	t := &Trainer{model: m, loss: loss, set: train, cfg: cfg, opt: o, tp: tensor.NewTape(), batch: b,
		idx: make([]int, cfg.Batch), perm: make([]int, train.N), rng: rng, weights: Weights(m)}
	t.shuffle()
	return t, nil
}

// shuffle draws the next epoch's order (Fisher–Yates in place: no
// allocation).
func (t *Trainer) shuffle() {
	for i := range t.perm {
		t.perm[i] = i
	}
	t.rng.Shuffle(len(t.perm), func(i, j int) { t.perm[i], t.perm[j] = t.perm[j], t.perm[i] })
	t.pos = 0
}

// Step is one minibatch update.
func (t *Trainer) Step() error {
	for i := range t.idx {
		if t.pos == len(t.perm) {
			t.shuffle()
		}
		t.idx[i] = t.perm[t.pos]
		t.pos++
	}
	t.batch.Load(t.set, t.idx)
	tp := t.tp
	tp.Rewind()
	total, data := t.Objective(tp, t.batch, t.rng)
	if err := tp.Backward(total); err != nil {
		return err
	}
	t.data = data.Item()
	t.penalty = total.Item() - t.data
	t.steps++
	if !algo.Finite(total.Item()) {
		return algo.Diverged("loss %g at step %d", total.Item(), t.steps)
	}
	return t.opt.Step()
}

// Objective records on tp what a step minimises for the batch b: the
// model, the mean loss (data) and the loss plus the penalty λ₁ Σ|w| +
// (λ₂/2) Σ w² (total). rng drives dropout (nil: none). A gradient check
// differentiates exactly this.
func (t *Trainer) Objective(tp *tensor.Tape, b *Batch, rng *rand.Rand) (total, data *tensor.Tensor) {
	data = t.loss.Mean(tp, t.model.Forward(tp, b.X, rng), b)
	loss := data
	for _, w := range t.weights {
		if t.cfg.L1 > 0 {
			loss = tp.Add(loss, tp.Scale(tp.Sum(tp.Abs(w)), t.cfg.L1))
		}
		if t.cfg.L2 > 0 {
			loss = tp.Add(loss, tp.Scale(tp.Sum(tp.Square(w)), t.cfg.L2/2))
		}
	}
	return loss, data
}

// Loss is the loss the trainer minimises.
func (t *Trainer) Loss() Loss { return t.loss }

// BatchLoss is the last minibatch's mean loss, without the penalty, at the
// parameters before the last Step's update (the loss of the gradient's
// forward pass; a figure of the model as it is now needs an Evaluator).
func (t *Trainer) BatchLoss() float64 { return t.data }

// Penalty is the weight penalty at the last step (before its update).
func (t *Trainer) Penalty() float64 { return t.penalty }

// Steps is the number of updates taken.
func (t *Trainer) Steps() int { return t.steps }

// Epochs is the number of passes over the training set so far.
func (t *Trainer) Epochs() float64 { return float64(t.steps*t.cfg.Batch) / float64(t.set.N) }

// Optimizer is the trainer's optimiser (its rate and gradient norm).
func (t *Trainer) Optimizer() *opt.Optimizer { return t.opt }

// Tape is the training tape; after a Step it holds that step's tensors
// (a dropout mask, say) until the next.
func (t *Trainer) Tape() *tensor.Tape { return t.tp }

// Batch is the last minibatch.
func (t *Trainer) Batch() *Batch { return t.batch }

// Eval is a model's performance on a set.
type Eval struct {
	Loss     float64 // mean loss (no penalty)
	Accuracy float64 // fraction classified right (classification only)
}

// Evaluator runs a model over a whole set in chunks on its own forward
// tape, allocating nothing after its first run on a set of the same size.
type Evaluator struct {
	tp    *tensor.Tape
	batch *Batch
	idx   []int
}

// NewEvaluator returns an evaluator for inputs of d features, taking chunk
// rows at a time.
func NewEvaluator(d, chunk int) (*Evaluator, error) {
	b, err := NewBatch(chunk, d)
	if err != nil {
		return nil, err
	}
	return &Evaluator{tp: tensor.NewForwardTape(), batch: b, idx: make([]int, chunk)}, nil
}

// Run returns m's mean loss and accuracy on s. pred, when it has s.N
// entries, receives each example's predicted class (classification).
func (e *Evaluator) Run(m Model, s *Set, pred []int) (Eval, error) {
	_, outs := m.Shape()
	loss, err := LossFor(s, outs)
	if err != nil {
		return Eval{}, err
	}
	sum, right := 0.0, 0
	for lo := 0; lo < s.N; lo += e.batch.Cap() {
		n := min(e.batch.Cap(), s.N-lo)
		for i := range n {
			e.idx[i] = lo + i
		}
		e.batch.Load(s, e.idx[:n])
		e.tp.Rewind()
		out := m.Forward(e.tp, e.batch.X, nil)
		l := loss.Mean(e.tp, out, e.batch)
		if err := e.tp.Err(); err != nil {
			return Eval{}, err
		}
		sum += l.Item() * float64(n)
		if s.Labels == nil {
			continue
		}
		for i := range n {
			c := Predict(out.Data[i*outs : (i+1)*outs])
			if c == s.Labels[lo+i] {
				right++
			}
			if len(pred) == s.N {
				pred[lo+i] = c
			}
		}
	}
	return Eval{Loss: sum / float64(s.N), Accuracy: float64(right) / float64(s.N)}, nil
}

// Predict is the class of one example's outputs: the sign of a single
// logit (class 1 when positive), else the largest output.
func Predict(out []float64) int {
	if len(out) == 1 {
		if out[0] > 0 {
			return 1
		}
		return 0
	}
	best := 0
	for c, v := range out {
		if v > out[best] {
			best = c
		}
	}
	return best
}
