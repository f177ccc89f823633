package seqsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// TinyGPT is a decoder-only transformer trained live (seed 000 §2.6–2.7,
// seed 002 G6, seed 001 [A19]–[A20]): token and position embeddings, N
// blocks of masked multi-head attention and a ReLU feed-forward layer
// with residuals and LayerNorm, a decoder tied to the embedding. On text
// it is scored against the uniform, the best k-gram and the entropy-rate
// lines and writes samples with temperature, top-k and top-p; on a copy,
// sort or reverse puzzle it is scored by exact match of greedy answers.
// The attention maps are those of the last sample's last pass; the
// parameter and FLOP counters follow the notes' cost model (§2.7). The
// explain view (explain.go) continues a prompt a character a step once
// trained, showing the law each character is drawn from and each head's
// attention from the last one, as Transformer Explainer does; the block
// view (block.go) opens up one forward pass as it trains: LayerNorm, the
// residual stream and the feed-forward layer (seed 000 §2.9, seed 002
// G4). The decoder is tied to the embedding or not (seed 000 §2.4).
var TinyGPT = &sims.Spec{
	Name:   "tinygpt",
	Title:  "A tiny GPT trained live: loss against the k-gram and entropy-rate lines, samples, attention maps, cost, its insides",
	Source: "seed 000 §2.3, §2.6–2.7 (eq 2.6, 2.11–2.20, L911–944, L1027–1143); seed 002 §7.2 (G4), §7.4 (G6); seed 001 [A19]–[A20]",
	Steps:  50, // a headless run wants --steps 600 or so; the catalogue test steps every sim this far (suite time)
	Speed:  10,
	Params: param.List(gptTask, gptView, gptPrompt, gptAfter, seqText, seqChars, gptLen, gptDigits, gptDim, gptHeads, gptLayers, gptFFN, gptContext,
		gptPositions, gptNorm, gptTied, gptBatch, lmLR, lmEval, lmTemp, lmTopK, lmTopP, gptDecode),
	Data:     "a UTF-8 text file to model (task=text) instead of the built-in language; its last tenth is held out" + samplesShown,
	DataFile: seqText.Name(),
	New:      newTinyGPT,
	Size:     gptSize,

	Metrics: tinygptMetrics,
}

// gptTaskKind is what tinygpt trains on: text or a puzzle.
type gptTaskKind string

func (k gptTaskKind) String() string { return string(k) }

const (
	taskText    gptTaskKind = "text"
	taskCopy    gptTaskKind = gptTaskKind(seq.Copy)
	taskSort    gptTaskKind = gptTaskKind(seq.Sort)
	taskReverse gptTaskKind = gptTaskKind(seq.Reverse)
)

var (
	gptTask = param.Choice("task", []gptTaskKind{taskText, taskCopy, taskSort, taskReverse}, taskText,
		"text: next-character prediction on the text parameter; copy, sort, reverse: L digits, a separator, the answer (scored by exact match)")
	gptLen       = param.Int("length", 8, "puzzles: L digits a question").Range(1, seq.MaxPuzzleLen/2)
	gptDigits    = param.Int("digits", 8, "puzzles: digits 0 … A−1").Range(2, seq.MaxDigits)
	gptDim       = param.Int("dim", 32, "d_emb, the width of the residual stream (h·d_k); at most 128"+gptBound).Range(2, gptMaxDim)
	gptHeads     = param.Int("heads", 4, "attention heads h (a divisor of dim)").Range(1, seq.MaxHeads)
	gptLayers    = param.Int("layers", 2, "transformer blocks N; at most 6"+gptBound).Range(1, gptMaxLayers)
	gptFFN       = param.Int("ffn", 128, "d_ff, the hidden width of the feed-forward layers").Range(1, seq.MaxFFN)
	gptContext   = param.Int("context", 32, "n_ctx, characters of context (text; a puzzle takes 2L); at most 64"+gptBound).Range(2, gptMaxContext)
	gptPositions = param.Choice("positions", []seq.Positions{seq.Learned, seq.Fixed, seq.NoneSeen}, seq.Learned,
		"learned position rows (GPT-2), the sinusoids of eq 2.13, or none (a causal model then counts only how many tokens came before)")
	gptBatch = param.Int("batch", 16, "sequences per step; at most 64"+gptBound).Range(1, gptMaxBatch)
	gptNorm  = param.Choice("norm", []seq.Norm{seq.Pre, seq.Post}, seq.Pre,
		"pre: x + f(LayerNorm(x)) with a final LayerNorm (GPT-2); post: LayerNorm(x + f(x)), the notes' block (eq 2.16)")
	gptTied = param.Bool("tied", true,
		"on: the decoder is the embedding transposed, D = Cᵀ (eq 2.6, L931: \"forcing D = Cᵀ works well\"), whose gradient adds both uses'; "+
			"off: D has its own n_voc·d weights (see params and params_no_emb)")
)

// The sim's bounds on the model (the engine takes up to seq.MaxDim,
// seq.MaxLayers and seq.MaxContext): the first step, which fills the
// training tape and evaluates (the held-out text and a sample of
// lmSample characters, each a forward pass), must stay under a second.
// With the other parameters at their defaults, it took 1.3 s at dim 256,
// 1.0 s at 8 layers, 1.2 s at context 96 and 128 and 1.2 s at batch 128
// (the later steps 0.05–0.1 s); 0.85 s at dim 128, 0.7 s at 6 layers,
// 0.5 s at context 64, 0.8 s at batch 64.
const (
	gptMaxDim     = 128
	gptMaxLayers  = 6
	gptMaxContext = 64
	gptMaxBatch   = 64
	gptBound      = ": the first step, which fills the training tape and evaluates, stays under a second"
)

const (
	// gptPuzzles is the fresh puzzles an exact-match evaluation scores,
	// unless they would cost more than gptEvalFLOPs; then as many as it
	// affords, and at least gptMinPuzzles (puzzlesFor).
	gptPuzzles    = 200
	gptMinPuzzles = 20
	// gptEvalFLOPs bounds an evaluation's greedy decoding: 200 puzzles of
	// the default model (L = 8, 1.06 GFLOP) took 0.5 s as the first step
	// (its tape's memory touched for the first time), 0.1 s later on. At
	// L = 16 with 6 layers, dim 128 or ffn 1024, 200 puzzles took the
	// first step to 1.3–2.1 s.
	gptEvalFLOPs = 1.1e9
	// gptLiveFLOPs is the most a step may cost for the pane to stay live:
	// at the 2–4 GFLOP/s the tape reaches on one core, a quarter second.
	gptLiveFLOPs = 5e8
)

// gptSize is the model trained on the text (lmRunBytes) or on the
// puzzles: then its trainer, the tape of the exact-match evaluation of
// its puzzlesFor puzzles, the greedy generator and the loss trace; and the
// last sample's attention maps.
func gptSize(cfg sims.Config) int64 {
	v := cfg.Values
	c := seq.GPTConfig{Vocab: alphabet(v), Context: gptContext.Get(v), Dim: gptDim.Get(v), Heads: gptHeads.Get(v),
		Layers: gptLayers.Get(v), FFN: gptFFN.Get(v), Positions: gptPositions.Get(v), Norm: gptNorm.Get(v), Untied: !gptTied.Get(v)}
	var b int64
	T := min(lmSample, c.Context) // the generator's last window
	if gptTask.Get(v) == taskText {
		explain := gptView.Get(v) == gptExplain
		b = lmRunBytes(v, c, gptBatch.Get(v), c.Context, c.Context+1, !explain || gptAfter.Get(v) > 0)
		if explain {
			b += explainBytes(c.Vocab, c.Context, c.Heads)
		}
		if gptView.Get(v) == gptBlock {
			b += blockBytes(c, c.Context)
		}
	} else {
		L := gptLen.Get(v)
		c.Vocab, c.Context, T = gptDigits.Get(v)+1, 2*L, 2*L
		b = seq.ParamBytes(c, true) + seq.TrainerBytes(c, gptBatch.Get(v), 2*L, L) + seq.ExactMatchBytes(c, puzzlesFor(c, L), L) +
			seq.GeneratorBytes(c, 2*L, L+1, 2*L+1) + sims.TraceBytes(2) + tensor.Alloc(sims.TraceCap)
	}
	return tensor.Slack(32<<10 + b + tensor.Alloc(T*(c.Heads*(T+1)-1)) + int64(T)*16)
}

type gptSim struct {
	g    *seq.GPT
	cfg  seq.GPTConfig
	B    int
	cost seq.Cost
	// text
	lm *lmRun
	// puzzles
	p       *seq.PuzzleTask
	tr      *seq.Trainer
	trace   *sims.Trace // batch loss (before its update), exact match (the last evaluation)
	every   int
	em      float64
	emAt    int // the step of the last evaluation (0: none yet)
	gen     *seq.Generator
	greedy  *seq.Sampler
	rng     *rand.Rand
	example string
	// the last layer's attention in the last sample's last pass: heads
	// side by side, T×T each, and the tokens of that pass
	maps      []float64
	mapsT     int
	mapLabels []string
	// the explain view (nil in the others)
	ex *explainer
	// the block view (nil in the others)
	blk *blockView
}

func newTinyGPT(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &gptSim{B: gptBatch.Get(v)}
	task := gptTask.Get(v)
	T := gptContext.Get(v)
	var c *corpus
	vocab := 0
	if task == taskText {
		var err error
		if c, err = loadCorpus(cfg, T+1); err != nil {
			return nil, err
		}
		vocab = c.vocab.Size()
	} else {
		var err error
		if s.p, err = seq.NewPuzzle(seq.Puzzle(task), gptLen.Get(v), gptDigits.Get(v)); err != nil {
			return nil, sims.Blame(err, v, sims.As("length", gptLen), sims.As("digits", gptDigits))
		}
		T, _ = s.p.Seq()
		vocab = s.p.Vocab()
	}
	s.cfg = seq.GPTConfig{Vocab: vocab, Context: T, Dim: gptDim.Get(v), Heads: gptHeads.Get(v), Layers: gptLayers.Get(v),
		FFN: gptFFN.Get(v), Positions: gptPositions.Get(v), Norm: gptNorm.Get(v), Untied: !gptTied.Get(v)}
	g, err := seq.NewGPT(s.cfg, rand.New(rand.NewPCG(cfg.Seed, 0x67_7074))) // "gpt"
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("dim", gptDim), sims.As("heads", gptHeads))
	}
	s.g, s.cost = g, seq.CostOf(s.cfg, T)
	if c != nil {
		if s.lm, err = newLMRun(cfg, c, g, s.B, T); err != nil {
			return nil, err
		}
		switch gptView.Get(v) {
		case gptExplain:
			s.ex, err = newExplainer(cfg, c, g, s.lm.gen, s.lm.sampler)
		case gptBlock:
			s.blk, err = newBlockView(c, g)
		}
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	switch view := gptView.Get(v); view {
	case gptExplain:
		return nil, fmt.Errorf("parameter %s = %s: the explain view continues a text prompt, so it needs %s = %s (not %s)",
			gptView.Name(), gptExplain, gptTask.Name(), taskText, task)
	case gptBlock:
		return nil, fmt.Errorf("parameter %s = %s: the block view reads a window of held-out text, so it needs %s = %s (not %s)",
			gptView.Name(), gptBlock, gptTask.Name(), taskText, task)
	}
	if s.tr, err = seq.NewTrainer(g, s.p, s.B, opt.Config{Method: opt.Adam, LR: lmLR.Get(v)},
		rand.New(rand.NewPCG(cfg.Seed, 0x62_6174_6368))); err != nil {
		return nil, err
	}
	s.trace, s.em, s.every = sims.NewTrace(1, 2), nan, lmEval.Get(v)
	s.gen, s.rng = seq.NewGenerator(g, T), rand.New(rand.NewPCG(cfg.Seed, 0x70_757a))
	s.greedy, _ = seq.NewSampler(0, 0, 1)
	return s, nil
}

// Step trains one step; at each evaluation it copies the attention maps
// of the sample just drawn. In the explain view it reads the prompt
// after each training step, and once training is over draws a character
// a step instead.
// Tune adopts a new temperature, top-k or top-p (sims.Tuner) without
// training again: the explainer's bars show the new law at once, its
// next character drawn from it. The puzzles decode greedily: they have
// nothing to tune.
func (s *gptSim) Tune(v sims.Values) error {
	if s.lm == nil {
		return nil
	}
	if err := s.lm.tune(v); err != nil {
		return err
	}
	if s.ex != nil {
		s.ex.retune(gptDecode.Get(v) == decodeGreedy)
	}
	return nil
}

func (s *gptSim) Step() error {
	if s.ex != nil && !s.ex.training(s.lm.tr.Steps()) {
		return s.ex.advance()
	}
	if s.lm != nil {
		if err := s.lm.step(); err != nil {
			return err
		}
		if n := s.lm.tr.Steps(); n == 1 || n%s.lm.every == 0 {
			s.copyMaps(passLabels(s.lm.ids, s.cfg.Context, func(id int) string {
				return sims.Visible(string(s.lm.c.vocab.Rune(id)), sims.MarkSpaces)
			}))
		}
		if s.ex != nil {
			return s.ex.read()
		}
		return nil
	}
	if err := s.tr.Step(); err != nil {
		return err
	}
	if n := s.tr.Steps(); n == 1 || n%s.every == 0 {
		if err := s.evalPuzzle(); err != nil {
			return err
		}
	}
	s.trace.Add(s.tr.Loss(), s.em)
	return nil
}

// puzzlesFor is the puzzles of L digits an exact-match evaluation of a
// model of configuration c (its context 2L) scores: gptPuzzles, or as
// many as gptEvalFLOPs pays for, at least gptMinPuzzles. Answering a
// puzzle greedily runs L forward passes over its question, the separator
// and the answer so far, L + 1 + j tokens at the j-th (2 FLOPs a
// multiply–add of seq.CostOf).
func puzzlesFor(c seq.GPTConfig, L int) int {
	var per float64
	for j := range L {
		per += 2 * seq.CostOf(c, L+1+j).Forward()
	}
	return max(gptMinPuzzles, min(gptPuzzles, int(gptEvalFLOPs/per)))
}

// evalPuzzle measures the exact match on fresh puzzles and answers one
// more greedily, whose last pass gives the attention maps.
func (s *gptSim) evalPuzzle() error {
	var err error
	if s.em, err = s.tr.ExactMatch(s.p, puzzlesFor(s.cfg, s.p.Len()), s.rng); err != nil {
		return err
	}
	s.emAt = s.tr.Steps()
	L := s.p.Len()
	q := make([]int, L+1, 2*L+1)
	s.p.Draw(s.rng, q[:L])
	q[L] = s.p.Sep()
	out, err := s.gen.Extend(q, L, s.greedy, s.rng)
	if err != nil {
		return err
	}
	want := make([]int, L)
	s.p.Answer(out[:L], want)
	s.copyMaps(passLabels(out, 2*L, func(id int) string { return digits([]int{id}, s.p.Sep()) }))
	verdict := "right"
	for i, w := range want {
		if out[L+1+i] != w {
			verdict = "wrong: " + digits(want, -1)
			break
		}
	}
	s.example = fmt.Sprintf("%s → %s (%s)", digits(out[:L], -1), digits(out[L+1:], -1), verdict)
	return nil
}

// digits writes puzzle tokens as characters, the separator as "|".
func digits(ids []int, sep int) string {
	var b strings.Builder
	for _, id := range ids {
		if id == sep {
			b.WriteByte('|')
		} else {
			b.WriteString(string(rune("0123456789abcdef"[id])))
		}
	}
	return b.String()
}

// copyMaps keeps the last layer's attention maps of the generator's last
// pass, over the tokens window, with their labels.
func (s *gptSim) copyMaps(window []string) {
	s.maps, s.mapsT = headMaps(s.g, nil) // fresh: the Frames share it
	s.mapLabels = window
}

// headMaps copies the last layer's attention weights of batch row 0 from
// the model's last pass, [T, T] for each head, side by side with a blank
// column between, query 0 on top: T·(H·(T+1)−1) values, into dst when it
// has the room.
func headMaps(g *seq.GPT, dst []float64) (maps []float64, T int) {
	l, H := g.Config().Layers-1, g.Config().Heads
	T = g.Weights(l, 0).Dim(-1)
	W := H*(T+1) - 1
	if cap(dst) >= T*W {
		maps = dst[:T*W]
		clear(maps)
	} else {
		maps = make([]float64, T*W)
	}
	for h := range H {
		d := g.Weights(l, h).Data
		for i := range T {
			for j := range T {
				maps[(T-1-i)*W+h*(T+1)+j] = d[i*T+j]
			}
		}
	}
	return maps, T
}

// mapsChart draws headMaps' weights of H heads over T tokens, the first
// map's rows and columns labelled by token (when labels has T), and a ▶
// on the last query when last is set (the explain view's).
func mapsChart(title string, maps []float64, H, T int, labels []string, last bool) sims.CanvasChart {
	W := H*(T+1) - 1
	c := sims.CanvasChart{Title: title,
		View:   sims.Rect{XMin: 0, XMax: float64(W), YMin: 0, YMax: float64(T)},
		Heat:   &sims.Grid{NX: W, NY: T, Z: maps, Scale: sims.Sequential, Lo: 0, Hi: 1},
		XLabel: "key j, head by head", YLabel: "query i",
		XIndex: &sims.Index{First: 0, Last: T - 1, At: 0.5, Step: 1, Labels: labels},
		YIndex: &sims.Index{First: 0, Last: T - 1, At: float64(T) - 0.5, Step: -1, Labels: labels}}
	if last {
		c.Markers = []sims.Marker{{X: 0.5, Y: 0.5, Glyph: '▶', Class: 1}}
	}
	return c
}

// passLabels is the labels of the generator's last pass in a sequence
// it extended: the n_ctx tokens (at most) before the last one drawn.
func passLabels(out []int, ctx int, label func(int) string) []string {
	n := len(out) - 1
	w := out[max(0, n-ctx):n]
	labels := make([]string, len(w))
	for i, id := range w {
		labels[i] = label(id)
	}
	return labels
}

func (s *gptSim) Frame() sims.Frame {
	f := sims.Frame{Sim: TinyGPT.Name}
	var loss sims.LineChart
	if s.lm != nil {
		f.Step, f.Metrics, loss = s.lm.tr.Steps(), s.lm.metrics(), s.lm.lossChart()
	} else {
		f.Step = s.tr.Steps()
		f.Metrics = []sims.Metric{batchLoss(f.Step, s.tr.Loss()), sims.MetricOr(mExactMatch.Name, s.em, notEvaluated)}
		x0, x1 := s.trace.Span()
		batch := s.trace.Column(0)
		loss = sims.LineChart{Title: fmt.Sprintf("loss and exact match (%d puzzles)", puzzlesFor(s.cfg, s.p.Len())), X0: x0, X1: x1, XLabel: "step",
			Series: []sims.Series{
				{Name: "batch loss", Y: batch, Class: 0},
				{Name: "exact match", Y: s.trace.Column(1), Class: 1},
				{Name: "uniform", Y: constant(len(batch), math.Log(float64(s.p.Vocab()))), Class: 2, Bound: true},
			}}
	}
	flops := s.cost.TrainFLOPs(s.B)
	f.Metrics = append(f.Metrics, sims.Metric{Name: "params", Value: float64(s.g.NumParams())},
		sims.Metric{Name: "params_no_emb", Value: float64(s.g.NumParams() - s.cfg.EmbeddingParams())},
		sims.Metric{Name: "MFLOP/step", Value: flops / 1e6})
	if b := s.blk; b != nil {
		b.refresh(s.lm.tr.Steps())
		f.Metrics = append(f.Metrics, b.metrics()...)
		f.Charts = []sims.Chart{b.stream(), b.layerNorm(), b.adds(), b.active()}
		f.Text = b.notes()
		if flops > gptLiveFLOPs {
			f.Text = append(f.Text, fmt.Sprintf("%.2g FLOP a step: too slow for a live pane; run it headless (lab run tinygpt --json)", flops))
		}
		return f
	}
	if e := s.ex; e != nil {
		f.Step = s.lm.tr.Steps() + e.steps
		f.Charts = []sims.Chart{e.bars(), loss, e.lastRow(s.cfg.Layers, s.cfg.Heads)}
		f.Text = e.notes(s.lm.tr.Steps(), s.cfg.Heads)
		if flops > gptLiveFLOPs {
			f.Text = append(f.Text, fmt.Sprintf("%.2g FLOP a training step: too slow for a live pane; lower train_steps or run it headless", flops))
		}
		return f
	}
	f.Charts = []sims.Chart{loss}
	if s.maps != nil {
		H := s.cfg.Heads
		f.Charts = append(f.Charts, mapsChart(fmt.Sprintf("last sample: layer %d, heads 1–%d", s.cfg.Layers, H), s.maps, H, s.mapsT, s.mapLabels, false))
	}
	if s.lm != nil {
		f.Text = []string{"sample: " + s.lm.sample, asOf("held-out, sample and maps", s.lm.evalAt, s.lm.every)}
	} else {
		if s.example != "" {
			f.Text = []string{"greedy: " + s.example}
		}
		f.Text = append(f.Text, asOf("exact match, greedy example and maps", s.emAt, s.every))
	}
	f.Text = append(f.Text, fmt.Sprintf("§2.7, n = %d: attn %.3g + dense %.3g + decoder %.3g MACs a pass; ×6B a step",
		s.cfg.Context, s.cost.Attention, s.cost.Dense, s.cost.Decoder))
	if flops > gptLiveFLOPs {
		f.Text = append(f.Text, fmt.Sprintf("%.2g FLOP a step: too slow for a live pane; run it headless (lab run tinygpt --json)", flops))
	}
	return f
}

func (s *gptSim) Result() map[string]any {
	var r map[string]any
	if s.lm != nil {
		r = s.lm.result()
	} else {
		r = map[string]any{"steps": s.tr.Steps(), "batch_loss": s.tr.Loss(), "exact_match": s.em, "example": s.example,
			"puzzles": puzzlesFor(s.cfg, s.p.Len())}
		if math.IsNaN(s.em) {
			r["undefined"] = map[string]string{"exact_match": notEvaluated}
		}
	}
	if s.ex != nil {
		s.ex.result(r)
	}
	r["params"] = s.g.NumParams()
	r["params_no_emb"] = s.g.NumParams() - s.cfg.EmbeddingParams()
	r["train_flops_per_step"] = s.cost.TrainFLOPs(s.B)
	return r
}
