package seq

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// MaxBatch bounds a trainer's batch.
const MaxBatch = 512

// Trainer fits a Model to a Task by minibatch steps on the mean
// cross-entropy of the scored positions, −(1/n) Σ log p̂(x_{t+1} | x_{≤t})
// (seed 000 §2.1, L867–873; seed 002 L3152). A Step — a batch drawn,
// Rewind, forward, Backward, the optimiser's update — allocates nothing
// after the first.
type Trainer struct {
	m     Model
	task  Task
	b     int
	tp    *tensor.Tape
	eval  *tensor.Tape
	opt   *opt.Optimizer
	rng   *rand.Rand
	in    []int
	tg    []int
	loss  float64
	steps int
}

// NewTrainer prepares B sequences a step, an optimiser by cfg and the
// batches' randomness from rng.
func NewTrainer(m Model, task Task, B int, cfg opt.Config, rng *rand.Rand) (*Trainer, error) {
	if B < 1 || B > MaxBatch {
		return nil, algo.BadParam("batch", B, fmt.Sprintf("in 1..%d", MaxBatch))
	}
	if m.Vocab() != task.Vocab() {
		return nil, algo.BadParam("vocab", m.Vocab(), fmt.Sprintf("the task's %d tokens", task.Vocab()))
	}
	T, from := task.Seq()
	if c := m.Context(); c > 0 && T > c {
		return nil, algo.BadParam("context", c, fmt.Sprintf("at least the task's %d tokens", T))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	o, err := opt.New(m.Params(), cfg)
	if err != nil {
		return nil, err
	}
	return &Trainer{m: m, task: task, b: B, tp: tensor.NewTape(), eval: tensor.NewForwardTape(), opt: o, rng: rng,
		in: make([]int, B*T), tg: make([]int, B*(T-from))}, nil
}

// scored is the logits of the scored positions of a forward pass [B, T, V].
func scored(tp *tensor.Tape, logits *tensor.Tensor, T, from int) *tensor.Tensor {
	if from == 0 {
		return logits
	}
	return tp.Slice(logits, 1, from, T)
}

// Step draws a batch and takes one optimiser step. It returns the tape's
// error or the optimiser's (algo.ErrDiverged when a parameter is no longer
// finite).
func (tr *Trainer) Step() error {
	T, from := tr.task.Seq()
	tr.task.Batch(tr.rng, tr.b, tr.in, tr.tg)
	tr.tp.Rewind()
	loss := tr.tp.CrossEntropy(scored(tr.tp, tr.m.Forward(tr.tp, tr.in, tr.b, T), T, from), tr.tg)
	if err := tr.tp.Backward(loss); err != nil {
		return err
	}
	tr.loss = loss.Item()
	tr.steps++
	return tr.opt.Step()
}

// Loss is the mean cross-entropy of the last batch, in nats per scored
// token, at the parameters before the last Step's update (the loss of the
// gradient's forward pass: the parameters it describes are one update
// behind the model's).
func (tr *Trainer) Loss() float64 { return tr.loss }

// Steps is the number of steps taken.
func (tr *Trainer) Steps() int { return tr.steps }

// Optimizer is the trainer's optimiser (its rate and gradient norm).
func (tr *Trainer) Optimizer() *opt.Optimizer { return tr.opt }

// Batch is B.
func (tr *Trainer) Batch() int { return tr.b }

// HeldOut is a held-out text cut into windows of T tokens with a stride of
// T − from, scoring positions from..T−1 of each: every scored token has at
// least from tokens of context, and each is scored once. Tokens before
// From() are not scored (a k-gram model compared on the same text scores
// the same positions).
type HeldOut struct {
	in, tg     []int
	t, from, n int
}

// NewHeldOut cuts ids (at least T + 1 tokens) into windows, scoring from
// position from = T/2 of each.
func NewHeldOut(ids []int, T int) (*HeldOut, error) {
	if T < 1 || len(ids) < T+1 {
		return nil, algo.BadParam("held_out", fmt.Sprintf("%d tokens", len(ids)), fmt.Sprintf("at least %d (context + 1)", T+1))
	}
	from := T / 2
	stride := T - from
	h := &HeldOut{t: T, from: from}
	for s := 0; s+T < len(ids); s += stride {
		h.in = append(h.in, ids[s:s+T]...)
		h.tg = append(h.tg, ids[s+1+from:s+T+1]...)
		h.n++
	}
	return h, nil
}

// heldWindows is the windows of a HeldOut of n ≥ T+1 tokens: they start
// every T − ⌊T/2⌋ tokens while one more token follows them.
func heldWindows(n, T int) int { return (n-T-1)/(T-T/2) + 1 }

// From is the position in the held-out text of the first scored token.
func (h *HeldOut) From() int { return h.from + 1 }

// End is one past the position of the last scored token.
func (h *HeldOut) End() int { return h.From() + len(h.tg) }

// Eval is the model's mean cross-entropy on the held-out windows in nats
// per token, B windows a pass, on the trainer's evaluation tape.
func (tr *Trainer) Eval(h *HeldOut) (float64, error) {
	T, k := h.t, h.t-h.from
	sum := 0.0
	for w := 0; w < h.n; w += tr.b {
		B := min(tr.b, h.n-w)
		tr.eval.Rewind()
		logits := tr.m.Forward(tr.eval, h.in[w*T:(w+B)*T], B, T)
		loss := tr.eval.CrossEntropy(scored(tr.eval, logits, T, h.from), h.tg[w*k:(w+B)*k])
		if err := tr.eval.Err(); err != nil {
			return 0, err
		}
		sum += loss.Item() * float64(B)
	}
	return sum / float64(h.n), nil
}

// ExactMatch is the fraction of n fresh puzzles (drawn from rng) whose
// whole answer the model gets right by greedy decoding, one token at a
// time, each forward pass reading the question and the answer so far.
func (tr *Trainer) ExactMatch(p *PuzzleTask, n int, rng *rand.Rand) (float64, error) {
	if n < 1 {
		return 0, algo.BadParam("n", n, "≥ 1")
	}
	L, V := p.Len(), p.Vocab()
	seqs := make([]int, n*2*L) // question, separator, answer so far
	ans := make([]int, n*L)
	for b := range n {
		s := seqs[b*2*L : (b+1)*2*L]
		p.Draw(rng, s[:L])
		s[L] = p.Sep()
	}
	in := make([]int, 0, n*2*L)
	for j := range L {
		T := L + 1 + j
		in = in[:0]
		for b := range n {
			in = append(in, seqs[b*2*L:b*2*L+T]...)
		}
		tr.eval.Rewind()
		logits := tr.m.Forward(tr.eval, in, n, T)
		if err := tr.eval.Err(); err != nil {
			return 0, err
		}
		for b := range n {
			row := logits.Data[(b*T+T-1)*V : (b*T+T)*V]
			best := 0
			for c, v := range row {
				if v > row[best] {
					best = c
				}
			}
			ans[b*L+j] = best
			if T < 2*L {
				seqs[b*2*L+T] = best
			}
		}
	}
	right := 0
	want := make([]int, L)
	for b := range n {
		p.Answer(seqs[b*2*L:b*2*L+L], want)
		if slices.Equal(ans[b*L:(b+1)*L], want) {
			right++
		}
	}
	return float64(right) / float64(n), nil
}
