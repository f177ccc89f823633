package seqsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Seq2Seq is an encoder–decoder toy trained live (seed 002 G6, §7.3–7.4,
// L3317–3321; seed 001 [A19], L1175): queries from the decoder, keys and
// values from the encoder, on a task whose right alignment is known —
// reverse a sequence of symbols (the anti-diagonal) or copy it (the
// diagonal). The hero is the cross-attention map of a fixed example,
// decoder positions against encoder positions, which converges onto the
// alignment as the loss falls and the greedy decoding becomes exact.
var Seq2Seq = &sims.Spec{
	Name:   "seq2seq",
	Title:  "Cross-attention in an encoder–decoder toy: reverse or copy, the attention map converging to the alignment",
	Source: "seed 002 §7.3–7.4 (G6, L3317–3321, L3381–3387); seed 001 §11 [A19] (L1147–1175), [A20]",
	Steps:  150,
	Speed:  2,
	// Measured on seeds 1–3: every held-out sequence decoded right and
	// 0.99 of the attention on the anti-diagonal by step 80 (the test
	// checks ≥ 95% and ≥ 0.9 here).
	Famous:  s2sFamous,
	Params:  param.List(s2sTask, s2sLength, s2sSymbols, s2sDim, s2sBatch, s2sLR),
	New:     newSeq2Seq,
	Size:    s2sSize,
	Metrics: seq2seqMetrics,
}

const (
	s2sFamous = 120
	s2sEvery  = 5 // steps between evaluations of the held-out set
)

var (
	s2sTask = param.Choice("task", []seq.Puzzle{seq.Reverse, seq.Copy}, seq.Reverse,
		"reverse: y_t = x_(L−1−t), the right attention is the anti-diagonal; copy: y_t = x_t, the diagonal")
	s2sLength  = param.Int("length", 8, "L, symbols per sequence (encoder and decoder positions)").Range(2, seq.MaxSeq2SeqLen)
	s2sSymbols = param.Int("symbols", 10, "A, the alphabet a, b, c, … of the sequences").Range(2, seq.MaxSeq2SeqSymbols)
	s2sDim     = param.Int("dim", 32, "d, the embeddings' and the attention's dimension (one head, d_k = d_v = d)").Range(2, seq.MaxSeq2SeqDim)
	s2sBatch   = param.Int("batch", 32, "sequences per training step").Range(1, 256)
	s2sLR      = param.Float("lr", 0.003, "Adam's learning rate").Range(0, 1).OpenMin()
)

// s2sSize is the model, its tapes and the held-out set (Seq2SeqConfig's
// Bytes), the trace of five columns and a Frame's pictures.
func s2sSize(cfg sims.Config) int64 {
	c := s2sConfig(cfg.Values)
	L := int64(c.Length)
	return tensor.Slack(c.Bytes() + sims.TraceBytes(5) + 8*(4*L*L+8*L) + 24<<10)
}

func s2sConfig(v param.Values) seq.Seq2SeqConfig {
	return seq.Seq2SeqConfig{Task: s2sTask.Get(v), Length: s2sLength.Get(v), Symbols: s2sSymbols.Get(v), Dim: s2sDim.Get(v),
		Batch: s2sBatch.Get(v), LR: s2sLR.Get(v)}
}

type s2sSim struct {
	m       *seq.Seq2Seq
	L       int
	ex, tgt []int // the example and its target
	in, out []int // its greedy decoding's decoder inputs and predictions
	w       []float64
	exMass  float64
	ev      seq.Seq2SeqEval
	evalAt  int
	trace   *sims.Trace // batch loss, sequence and token accuracy, held-out and example mass
}

func newSeq2Seq(cfg sims.Config) (sims.Sim, error) {
	c := s2sConfig(cfg.Values)
	m, err := seq.NewSeq2Seq(c, rand.New(rand.NewPCG(cfg.Seed, 0x73_3273))) // "s2s"
	if err != nil {
		return nil, err
	}
	L := c.Length
	s := &s2sSim{m: m, L: L, ex: make([]int, L), tgt: make([]int, L), in: make([]int, L), out: make([]int, L),
		trace: sims.NewTrace(0, 5)}
	// the example: distinct symbols where the alphabet allows, so that
	// each encoder position reads differently
	perm := rand.New(rand.NewPCG(cfg.Seed, 0x6578)).Perm(c.Symbols) // "ex"
	for t := range L {
		s.ex[t] = perm[t%c.Symbols]
	}
	m.Target(s.ex, s.tgt)
	if err := s.evaluate(); err != nil {
		return nil, err
	}
	return s, s.record()
}

// evaluate decodes the held-out set.
func (s *s2sSim) evaluate() error {
	ev, err := s.m.Evaluate()
	s.ev, s.evalAt = ev, s.m.Steps()
	return err
}

// record decodes the example and adds the step's row to the trace.
func (s *s2sSim) record() error {
	w, err := s.m.Decode(s.ex, s.in, s.out, 1)
	if err != nil {
		return err
	}
	s.w = clone(w.Data)
	s.exMass = seq.AlignmentMass(s.w, s.L, s.m.Aligned)
	loss := math.NaN()
	if s.m.Steps() > 0 {
		loss = s.m.Loss()
	}
	s.trace.Add(loss, s.ev.SeqAcc, s.ev.TokAcc, s.ev.Mass, s.exMass)
	return nil
}

func (s *s2sSim) Step() error {
	if err := s.m.Step(); err != nil {
		return err
	}
	if s.m.Steps()%s2sEvery == 0 {
		if err := s.evaluate(); err != nil {
			return err
		}
	}
	return s.record()
}

// letters spells symbols as a, b, c, ….
func letters(ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(rune('a' + id))
	}
	return out
}

func (s *s2sSim) Frame() sims.Frame {
	L, steps := s.L, s.m.Steps()
	cfg := s.m.Config()
	f := sims.Frame{Sim: Seq2Seq.Name, Step: steps}
	f.Metrics = []sims.Metric{
		batchLoss(steps, s.m.Loss()),
		{Name: "sequence accuracy", Value: s.ev.SeqAcc},
		{Name: "token accuracy", Value: s.ev.TokAcc},
		{Name: "mass on π", Value: s.ev.Mass},
		{Name: "example mass", Value: s.exMass},
	}
	z := make([]float64, L*L)
	for i := range L {
		copy(z[(L-1-i)*L:(L-i)*L], s.w[i*L:(i+1)*L]) // decoder position 0 on top
	}
	marks := make([]sims.Marker, L)
	for t := range L {
		marks[t] = sims.Marker{X: float64(s.m.Aligned(t)) + 0.5, Y: float64(L-t) - 0.5, Glyph: '○', Class: 1}
	}
	src, out := letters(s.ex), letters(s.out)
	right := 0
	for t := range L {
		if s.out[t] == s.tgt[t] {
			right++
		}
	}
	heat := sims.CanvasChart{
		Title: fmt.Sprintf("cross-attention, ○ right: %s → %s, %d/%d", strings.Join(src, ""), strings.Join(out, ""), right, L),
		View:  sims.Rect{XMin: 0, XMax: float64(L), YMin: 0, YMax: float64(L)},
		Heat:  &sims.Grid{NX: L, NY: L, Z: z, Scale: sims.Sequential, Lo: 0, Hi: 1},
		// the right alignment, over the weights
		Markers: marks,
		XLabel:  "encoder position j (key, value)", YLabel: "decoder t (query)",
		XIndex: &sims.Index{First: 0, Last: L - 1, At: 0.5, Step: 1, Labels: src},
		// rows unnamed: a line each would not fit a quarter pane (the
		// decoded symbols are in the title)
		YIndex: &sims.Index{First: 0, Last: L - 1, At: float64(L) - 0.5, Step: -1},
	}
	x0, x1 := s.trace.Span()
	n := len(s.trace.Column(0))
	loss := sims.LineChart{Title: "teacher-forced cross-entropy, nats per symbol", LogY: true, X0: x0, X1: x1, XLabel: "step",
		Series: []sims.Series{
			{Name: "batch", Y: s.trace.Column(0), Class: 0},
			{Name: "uniform log A", Y: constant(n, math.Log(float64(cfg.Symbols))), Class: 2, Bound: true},
		}}
	acc := sims.LineChart{Title: "held-out greedy decoding: accuracy", X0: x0, X1: x1, XLabel: "step", Fraction: true,
		Series: []sims.Series{
			{Name: "sequences", Y: s.trace.Column(1), Class: 0},
			{Name: "symbols", Y: s.trace.Column(2), Class: 1},
			{Name: "chance 1/A", Y: constant(n, 1/float64(cfg.Symbols)), Class: 2, Bound: true},
		}}
	mass := sims.LineChart{Title: "attention mass on the right position π(t)", X0: x0, X1: x1, XLabel: "step", Fraction: true,
		Series: []sims.Series{
			{Name: "held-out", Y: s.trace.Column(3), Class: 0},
			{Name: "example", Y: s.trace.Column(4), Class: 1},
			{Name: "uniform 1/L", Y: constant(n, 1/float64(L)), Class: 2, Bound: true},
		}}
	f.Charts = []sims.Chart{heat, loss, acc, mass}
	rule := "y_t = x_(L−1−t), the right attention is the anti-diagonal (○)"
	if cfg.Task == seq.Copy {
		rule = "y_t = x_t, the right attention is the diagonal (○)"
	}
	f.Text = []string{
		fmt.Sprintf("%s: %s", cfg.Task, rule),
		"Q from the decoder, K, V from the encoder: softmax(QKᵀ/√d)V; teacher forcing",
		fmt.Sprintf("held-out: %d sequences decoded greedily, as of step %d (every %d steps)", seq.Seq2SeqHeld, s.evalAt, s2sEvery),
	}
	return f
}

func (s *s2sSim) Result() map[string]any {
	r := map[string]any{
		"task":              string(s.m.Config().Task),
		"params":            s.m.NumParams(),
		"sequence_accuracy": s.ev.SeqAcc,
		"token_accuracy":    s.ev.TokAcc,
		"alignment_mass":    s.ev.Mass,
		"example_mass":      s.exMass,
		"evaluated_at":      s.evalAt,
		"example":           strings.Join(letters(s.ex), ""),
		"decoded":           strings.Join(letters(s.out), ""),
		"attention":         s.w,
	}
	if s.m.Steps() > 0 {
		r["batch_loss"] = s.m.Loss()
	} else {
		r["batch_loss"] = math.NaN()
		r["undefined"] = map[string]string{"batch_loss": "no batch trained yet"}
	}
	return r
}
