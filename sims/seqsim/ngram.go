package seqsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"

	"github.com/thelab/lab/algo/text"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// NGram is the k-gram language model by counting (seed 002 §7.1,
// L3106–3134; catalogue G1; seed 000 §2.1): each step counts the next
// slice of the training text into the models of every k = 0 … K at once,
// and scores them on held-out text. With little text the long contexts
// are mostly unseen and lose to short ones; as the counts grow the best k
// moves up, towards the entropy rate — which no model beats. The notes
// have no smoothing, so an unseen transition gets probability 0 and
// held-out log-likelihood −∞: add-δ smoothing is offered as what it is,
// beyond the notes (G1).
var NGram = &sims.Spec{
	Name:     "ngram",
	Title:    "k-gram language model by counting: held-out loss and unseen contexts against k",
	Source:   "seed 002 §7.1 (G1, L3106–3134); seed 000 §2.1",
	Steps:    ngSlices,
	Speed:    2,
	Params:   param.List(seqText, seqChars, ngK, ngDelta),
	Data:     "a UTF-8 text file to model instead of the built-in language; its last tenth is held out" + samplesShown,
	DataFile: seqText.Name(),
	New:      newNGram,
	Size:     ngramSize,

	Metrics: ngramMetrics,
}

// ngSlices is the number of steps the training text is counted in.
const ngSlices = 40

// ngSample is the length of the sample drawn from the best model.
const ngSample = 72

var (
	ngK     = param.Int("k", text.MaxK, "the longest context K: models k = 0 … K are counted side by side").Range(1, text.MaxK)
	ngDelta = param.Float("delta", 0.01,
		"add-δ smoothing (beyond the notes, G1): p = (count + δ)/(n + δ|V|); an unseen context gets the uniform row").Range(0, 10).OpenMin()
)

// ngramSize is the corpus and the k-gram models: a model of context k
// holds a row for each distinct context of k characters in the training
// text (contexts).
func ngramSize(cfg sims.Config) int64 {
	v := cfg.Values
	K, V := ngK.Get(v), alphabet(v)
	b := 16<<10 + corpusBytes(v, 2*K+2)
	for k := range K + 1 {
		b += text.KGramBytes(contexts(v, k), V)
	}
	return b
}

// contexts bounds the distinct contexts of k characters in the training
// text of the text parameter: the built-in language has animalsContexts
// of them however long the text, a file at most one a position and |V|^k.
func contexts(v param.Values, k int) int {
	n := seqChars.Get(v)
	if seqText.Get(v) == builtIn {
		return min(n, animalsContexts[k])
	}
	return int(min(float64(n), math.Pow(text.MaxVocab, float64(k))))
}

// animalsContexts are the distinct contexts of k = 0 … text.MaxK
// characters of the built-in language: all it can write, enumerated from
// its grammar (TestAnimalsContexts), so no text of it holds more.
var animalsContexts = [text.MaxK + 1]int{1, 22, 63, 141, 269, 440, 640, 976, 1470}

type ngramSim struct {
	c                         *corpus
	models                    []*text.KGram
	delta                     float64
	step                      int
	counted                   int
	held, train, unseen, zero []float64 // per k, after the last step
	sample                    string
	rng                       *rand.Rand
	scratch                   []float64
}

func newNGram(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	K := ngK.Get(v)
	c, err := loadCorpus(cfg, 2*K+2)
	if err != nil {
		return nil, err
	}
	s := &ngramSim{c: c, delta: ngDelta.Get(v), rng: rand.New(rand.NewPCG(cfg.Seed, 0x6e_6772_616d)), // "ngram"
		held: nans(K + 1), train: nans(K + 1), unseen: nans(K + 1), zero: nans(K + 1), scratch: make([]float64, c.vocab.Size())}
	for k := range K + 1 {
		m, err := text.NewKGram(k, c.vocab.Size())
		if err != nil {
			return nil, err
		}
		s.models = append(s.models, m)
	}
	return s, nil
}

func nans(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = nan
	}
	return x
}

var nan = math.NaN()

// Step counts the next slice of the training text into every model and
// scores them: on held-out text with add-δ, on the text counted so far by
// maximum likelihood (δ = 0, never worse for a longer context).
func (s *ngramSim) Step() error {
	if s.step == ngSlices {
		return sims.ErrConverged
	}
	s.step++
	K := len(s.models) - 1
	to := len(s.c.train) * s.step / ngSlices
	for _, m := range s.models {
		if err := m.Add(s.c.train, s.counted, to); err != nil {
			return err
		}
	}
	s.counted = to
	for k, m := range s.models {
		h, err := m.Eval(s.c.held, K, s.delta)
		if err != nil {
			return err
		}
		// The fraction of zero probabilities is the unsmoothed model's.
		h0, err := m.Eval(s.c.held, K, 0)
		if err != nil {
			return err
		}
		s.held[k], s.unseen[k], s.zero[k] = h.NLL, h.Unseen, h0.Zero
		if to > K {
			tr, err := m.Eval(s.c.train[:to], K, 0)
			if err != nil {
				return err
			}
			s.train[k] = tr.NLL
		}
	}
	s.draw()
	if s.step == ngSlices {
		return sims.ErrConverged
	}
	return nil
}

// best is the k of the lowest held-out loss.
func (s *ngramSim) best() int {
	b := 0
	for k, x := range s.held {
		if x < s.held[b] {
			b = k
		}
	}
	return b
}

// draw samples ngSample characters from the best model's counts (δ = 0:
// every context it reaches was seen in training, so the sample never
// wanders off into uniform rows), starting from the first characters of
// the held-out text.
func (s *ngramSim) draw() {
	m := s.models[s.best()]
	seq := make([]int, m.K(), m.K()+ngSample)
	copy(seq, s.c.held)
	for range ngSample {
		id, _ := m.Sample(seq, len(seq), 0, s.scratch, s.rng)
		seq = append(seq, id)
	}
	s.sample = shown(s.c.vocab, seq[m.K():])
}

func (s *ngramSim) Frame() sims.Frame {
	K := len(s.models) - 1
	f := sims.Frame{Sim: NGram.Name, Step: s.step}
	V := float64(s.c.vocab.Size())
	f.Metrics = []sims.Metric{{Name: "chars counted", Value: float64(s.counted)}}
	if s.step == 0 {
		f.Text = []string{fmt.Sprintf("%s: %d training and %d held-out characters, |V| = %d; step to count", sims.Visible(s.c.name, sims.PlainSpaces), len(s.c.train), len(s.c.held), int(V))}
		return f
	}
	b := s.best()
	f.Metrics = append(f.Metrics,
		sims.Metric{Name: "best k", Value: float64(b)},
		sims.Metric{Name: "held-out nats/char", Value: s.held[b]},
		sims.Metric{Name: "perplexity", Value: math.Exp(s.held[b])},
		sims.Metric{Name: "contexts seen", Value: float64(s.models[b].Contexts())})
	if r := s.c.rate(); !math.IsNaN(r) {
		f.Metrics = append(f.Metrics, sims.Metric{Name: "entropy rate", Value: r})
	}
	loss := sims.LineChart{Title: "nats per char against context length k", X0: 0, X1: float64(K), XLabel: "k",
		Series: []sims.Series{
			{Name: "held-out", Y: clone(s.held), Class: 0},
			{Name: "training", Y: clone(s.train), Class: 1},
			{Name: "uniform", Y: constant(K+1, math.Log(V)), Class: 2, Bound: true},
		}}
	if r := s.c.rate(); !math.IsNaN(r) {
		loss.Series = append(loss.Series, sims.Series{Name: "entropy rate", Y: constant(K+1, r), Class: 3, Bound: true})
	}
	unseen := sims.LineChart{Title: "held-out chars: unseen in training", X0: 0, X1: float64(K), XLabel: "k",
		Series: []sims.Series{
			{Name: "context", Y: clone(s.unseen), Class: 4},
			{Name: "transition", Y: clone(s.zero), Class: 5},
		}}
	f.Charts = []sims.Chart{loss, unseen}
	f.Text = []string{
		fmt.Sprintf("k = %d says: %s", b, s.sample),
		fmt.Sprintf("table |V|^(k+1) = %.3g entries, %d contexts seen", s.models[b].TableSize(), s.models[b].Contexts()),
		fmt.Sprintf("held-out: add-δ, δ = %g (beyond the notes: without it an unseen transition makes the loss +∞, G1); training: the counts' maximum likelihood", s.delta),
	}
	return f
}

func (s *ngramSim) Result() map[string]any {
	b := s.best()
	r := map[string]any{"chars_counted": s.counted, "best_k": b, "held_out_nll": s.held[b],
		"held_out_by_k": clone(s.held), "train_by_k": clone(s.train), "unseen_context_by_k": clone(s.unseen), "sample": s.sample}
	why := map[string]string{}
	for key, xs := range map[string][]float64{"held_out_by_k": s.held, "train_by_k": s.train, "unseen_context_by_k": s.unseen} {
		if slices.ContainsFunc(xs, func(x float64) bool { return !algo.Finite(x) }) {
			why[key] = "null for a k not evaluated yet (the training text is counted in slices)"
		}
	}
	if !algo.Finite(s.held[b]) {
		why["held_out_nll"] = "not evaluated yet (the training text is counted in slices)"
	}
	if len(why) > 0 {
		r["undefined"] = why
	}
	if s.c.lang != nil {
		r["entropy_rate"] = s.c.rate()
	}
	return r
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }

func constant(n int, y float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = y
	}
	return x
}
