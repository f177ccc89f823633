package seqsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/text"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// The training parameters rnn and tinygpt share (tinygpt has a batch of
// its own, gptBatch, with a lower bound).
var (
	lmBatch = param.Int("batch", 16, "sequences per step").Range(1, 128)
	lmLR    = param.Float("lr", 0.01, "Adam's learning rate").Range(0, 1).OpenMin()
	lmEval  = param.Int("eval_every", 25, "steps between held-out evaluations and samples").Range(1, 10_000)
	lmTemp  = param.Float("temperature", 0.8, "sampling: p ∝ exp(z/τ); 0 is greedy decoding (beyond the notes, [A20])").Range(0, seq.MaxTemperature).Live()
	lmTopK  = param.Int("top_k", 0, "sampling: keep the k most probable characters (0: all)").Range(0, text.MaxVocab).Live()
	lmTopP  = param.Float("top_p", 1, "sampling: keep the fewest most probable characters whose total is at least p (1: all)").Range(0, 1).OpenMin().Live()
)

const (
	lmSample = 64   // characters sampled at each evaluation
	lmDelta  = 0.01 // the k-gram baseline's add-δ
	// lmHeld bounds the held-out characters evaluated, so that an
	// evaluation costs a few steps' time.
	lmHeld = 3000
)

// lmRunBytes is what an lmRun of the model a on batches of B windows of
// T characters holds: the corpus, the model with its optimiser and
// trainer, the held-out text and the tape that scores it, the generator of samples
// (from one character to lmSample more, in windows of T), and the loss
// trace with the Frame's reference lines. A run that never steps (trains
// false: tinygpt's explain view with no training) fills neither the
// trainer's tape nor the evaluation's.
func lmRunBytes(v param.Values, a seq.Arch, B, T, minHeld int, trains bool) int64 {
	held := min(max(seqChars.Get(v)/5, minHeld), lmHeld)
	b := corpusBytes(v, minHeld) + seq.ParamBytes(a, true) + seq.GeneratorBytes(a, T, 1, 1+lmSample) + sims.TraceBytes(2) +
		3*tensor.Alloc(sims.TraceCap)
	if !trains {
		return b + seq.HeldOutBytes(T, held)
	}
	return b + seq.TrainerBytes(a, B, T, 0) + seq.EvalBytes(a, B, T, held)
}

// lmRun trains a character model on a corpus and keeps what the loss chart
// shows: the batch loss per step, the held-out loss at each evaluation,
// and the lines no trained model should cross (the entropy rate) or should
// beat (uniform, the best k-gram model counted on the same text and
// scored on the same held-out positions).
type lmRun struct {
	c       *corpus
	m       seq.Model
	tr      *seq.Trainer
	held    *seq.HeldOut
	kgram   float64
	kgramK  int
	trace   *sims.Trace // batch loss (before its update), held-out loss (the last evaluation)
	heldNLL float64
	every   int
	evalAt  int // the step of the last evaluation (0: none yet)
	gen     *seq.Generator
	sampler *seq.Sampler
	rng     *rand.Rand
	sample  string
	ids     []int // the sample's tokens
	window  int
}

// newLMRun prepares training m on batches of B windows of T characters of
// c.
func newLMRun(cfg sims.Config, c *corpus, m seq.Model, B, T int) (*lmRun, error) {
	v := cfg.Values
	corp, err := seq.NewCorpus(c.train, T, c.vocab.Size())
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("ids", seqText))
	}
	tr, err := seq.NewTrainer(m, corp, B, opt.Config{Method: opt.Adam, LR: lmLR.Get(v)},
		rand.New(rand.NewPCG(cfg.Seed, 0x62_6174_6368))) // "batch"
	if err != nil {
		return nil, err
	}
	heldIDs := c.held[:min(len(c.held), lmHeld)]
	h, err := seq.NewHeldOut(heldIDs, T)
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("held_out", seqText))
	}
	smp, err := seq.NewSampler(lmTemp.Get(v), lmTopK.Get(v), lmTopP.Get(v))
	if err != nil {
		return nil, err
	}
	r := &lmRun{c: c, m: m, tr: tr, held: h, trace: sims.NewTrace(1, 2), heldNLL: nan, every: lmEval.Get(v),
		gen: seq.NewGenerator(m, T), sampler: smp, rng: rand.New(rand.NewPCG(cfg.Seed, 0x73_616d_706c)), window: T} // "sampl"
	r.kgram, r.kgramK = math.Inf(1), 0
	for k := 0; k <= text.MaxK && k < h.From(); k++ {
		km, err := text.NewKGram(k, c.vocab.Size())
		if err != nil {
			return nil, err
		}
		km.Add(c.train, 0, len(c.train))
		s, err := km.Eval(heldIDs[:h.End()], h.From(), lmDelta)
		if err != nil {
			return nil, err
		}
		if s.NLL < r.kgram {
			r.kgram, r.kgramK = s.NLL, k
		}
	}
	return r, nil
}

// tune sets the sampler's temperature, top-k and top-p to v's (the live
// parameters): the training goes on, and the next sample is drawn with
// them.
func (r *lmRun) tune(v sims.Values) error {
	smp, err := seq.NewSampler(lmTemp.Get(v), lmTopK.Get(v), lmTopP.Get(v))
	if err != nil {
		return err
	}
	r.sampler.Temperature, r.sampler.TopK, r.sampler.TopP = smp.Temperature, smp.TopK, smp.TopP
	return nil
}

// step trains one step, and evaluates and samples every r.every steps.
func (r *lmRun) step() error {
	if err := r.tr.Step(); err != nil {
		return err
	}
	if n := r.tr.Steps(); n == 1 || n%r.every == 0 {
		if err := r.evaluate(); err != nil {
			return err
		}
	}
	r.trace.Add(r.tr.Loss(), r.heldNLL)
	return nil
}

// evaluate scores the held-out text and draws a sample from its start.
func (r *lmRun) evaluate() error {
	var err error
	if r.heldNLL, err = r.tr.Eval(r.held); err != nil {
		return err
	}
	r.evalAt = r.tr.Steps()
	prompt := append(make([]int, 0, 1+lmSample), r.c.held[0])
	out, err := r.gen.Extend(prompt, lmSample, r.sampler, r.rng)
	if err != nil {
		return err
	}
	r.sample, r.ids = shown(r.c.vocab, out), out
	return nil
}

// metrics are the run's figures.
func (r *lmRun) metrics() []sims.Metric {
	ms := []sims.Metric{
		batchLoss(r.tr.Steps(), r.tr.Loss()),
		sims.MetricOr(mHeldOut.Name, r.heldNLL, notEvaluated),
		{Name: "best k-gram", Value: r.kgram},
	}
	if rate := r.c.rate(); !math.IsNaN(rate) {
		ms = append(ms, sims.Metric{Name: "entropy rate", Value: rate})
	}
	return ms
}

// lossChart is the training and held-out loss with the reference lines.
func (r *lmRun) lossChart() sims.LineChart {
	x0, x1 := r.trace.Span()
	batch := r.trace.Column(0)
	n := len(batch)
	c := sims.LineChart{Title: "nats per character against steps", X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{
			{Name: "batch", Y: batch, Class: 0},
			{Name: "held-out", Y: r.trace.Column(1), Class: 1},
			{Name: "uniform", Y: constant(n, math.Log(float64(r.c.vocab.Size()))), Class: 2, Bound: true},
			{Name: fmt.Sprintf("%d-gram", r.kgramK), Y: constant(n, r.kgram), Class: 3, Bound: true},
		}}
	if rate := r.c.rate(); !math.IsNaN(rate) {
		c.Series = append(c.Series, sims.Series{Name: "entropy", Y: constant(n, rate), Class: 4, Bound: true})
	}
	return c
}

// notEvaluated is why a held-out figure has no value: it is computed
// every eval steps, and not yet.
const notEvaluated = "not evaluated yet: the held-out set is scored every eval steps"

// asOf says which step the figures of the last evaluation (at step at) are
// of, beside a batch loss of the current step: evaluations run at step 1
// and every `every` steps (a paused pane does not settle them: an
// evaluation draws from the sampling stream, which would then depend on
// when the pane was paused). what names the figures.
func asOf(what string, at, every int) string {
	if at == 0 {
		return what + ": not evaluated yet (at step 1, then every " + fmt.Sprint(every) + " steps)"
	}
	return fmt.Sprintf("%s as of step %d (evaluated every %d steps)", what, at, every)
}

// batchLoss is the metric of the last batch's loss, taken before the
// step's update (the trainer's convention), undefined before the first
// step.
func batchLoss(steps int, loss float64) sims.Metric {
	if steps == 0 {
		return sims.Metric{Name: mBatchLoss.Name, Undefined: "no batch trained yet"}
	}
	return sims.Metric{Name: mBatchLoss.Name, Value: loss} // not finite: diverged (the runner's check), not 0
}

// result is the run's outcome for --json.
func (r *lmRun) result() map[string]any {
	out := map[string]any{"steps": r.tr.Steps(), "batch_loss": r.tr.Loss(), "held_out": r.heldNLL,
		"kgram": r.kgram, "kgram_k": r.kgramK, "sample": r.sample}
	if math.IsNaN(r.heldNLL) {
		out["undefined"] = map[string]string{"held_out": notEvaluated}
	}
	if r.c.lang != nil {
		out["entropy_rate"] = r.c.rate()
	}
	return out
}
