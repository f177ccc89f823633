package seqsim

import (
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// TransformerCost steps a transformer's context length n_ctx up an octave
// a step and counts the FLOPs of a forward pass per token (seed 000 §2.7,
// eq 2.18–2.20, L1108–1143): attention 4N·d·n (the scores Q·Kᵀ and the
// weighted sum of V, 2·d·n multiply–adds a token in each layer) grows
// with n, the dense layers 4N(2d + d_ff)·d (the Q, K, V and output
// projections and the feed-forward layer) do not, and the two cross at n
// = 2d + d_ff. The count is seq.CostOf, checked against a walk of the
// model's matrix products (seq.GPTConfig.Products), whose table the pane
// shows. Where the notes' constants are loose: (2.18) counts one
// projection and one feed-forward matrix, (d_k + d_v + d_ff)·d_emb·n,
// where a layer multiplies by four d×d projections and two feed-forward
// matrices, 2(d_k + d_v + d_ff)·d_emb·n; and (2.20)'s O(N d n(n + d))
// puts the crossover near n ≈ d_emb (the catalogue's "crossing at n_ctx =
// d_emb") where the count puts it at 2d + d_ff: 6 d_emb at the d_ff = 4
// d_emb of L1094, 3 d_emb when d_ff = d_emb. Not in the catalogue's
// errata list: O(·) hides both factors. The logits, 2d·n_voc FLOPs a
// token, are drawn too: the notes leave them out ("n_voc does not appear
// in the complexity", L1143), and at the default size they cost about as
// much as all the layers' dense products. No timing of a forward pass is
// drawn: a measured time is not deterministic enough to test, and the
// lab's GPT takes at most seq.MaxContext tokens.
var TransformerCost = &sims.Spec{
	Name:   "transformer-cost",
	Title:  "Transformer cost: FLOPs per token of attention (∝ n_ctx·d) against dense layers (∝ d²) as the context doubles",
	Source: "seed 000 §2.7 (eq 2.18–2.20, L1108–1143); seed 001 §11 [A19] (L1167–1173: d_ff = 4d, N = 6, d = 512, h = 8)",
	Steps:  22,
	Speed:  1,
	// One octave a step: the curves are drawn by step 22; the pane then
	// shows them for a while and starts again.
	Replay:  sims.ReplayPause,
	Params:  param.List(tcLayers, tcDim, tcHeads, tcFFN, tcVocab, tcMax),
	New:     newTransformerCost,
	Size:    func(cfg sims.Config) int64 { return tcBytes },
	Metrics: costMetrics,
}

// tcBytes is the sim whatever its parameters: a few curves of at most
// 31 points and a table of seven rows.
const tcBytes = 24 << 10

var (
	tcDim    = param.Int("dim", 512, "d_emb, the model's width (d_k = d_v = d_emb/h per head)").Range(1, 1<<15)
	tcHeads  = param.Int("heads", 8, "h, heads per layer (a divisor of dim): they split the attention's products, not its cost").Range(1, 128)
	tcLayers = param.Int("layers", 6, "N, layers").Range(1, 128)
	tcFFN    = param.Int("ffn", 2048, "d_ff, the feed-forward layer's width").Range(1, 1<<17).
			DefaultFunc(func(v param.Values) int { return 4 * tcDim.Get(v) }, "4·dim (seed 000 L1094)")
	tcVocab = param.Int("vocab", 32000, "n_voc, for the logits' 2·d·n_voc FLOPs a token (the notes leave them out)").Range(1, 1<<20)
	tcMax   = param.Int("max_log2", 22, "the last context is 2^max_log2 tokens (one doubling a step from n = 1)").Range(1, 30)
)

type costSim struct {
	cfg  seq.GPTConfig
	k    int // n_ctx = 2^k
	last int
}

func newTransformerCost(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	c := seq.GPTConfig{Vocab: tcVocab.Get(v), Dim: tcDim.Get(v), Heads: tcHeads.Get(v), Layers: tcLayers.Get(v), FFN: tcFFN.Get(v)}
	if c.Dim%c.Heads != 0 {
		return nil, fmt.Errorf("parameter heads = %d: must divide dim = %d", c.Heads, c.Dim)
	}
	return &costSim{cfg: c, last: tcMax.Get(v)}, nil
}

func (s *costSim) Step() error {
	if s.k >= s.last {
		return sims.ErrConverged
	}
	s.k++
	if s.k == s.last {
		return fmt.Errorf("n_ctx = 2^%d: %w", s.k, sims.ErrConverged)
	}
	return nil
}

// perToken is the FLOPs of a forward pass per token at context n, term
// by term: 2 per multiply–add.
func (s *costSim) perToken(n float64) (attn, dense, logits float64) {
	N, d, f := float64(s.cfg.Layers), float64(s.cfg.Dim), float64(s.cfg.FFN)
	return 4 * N * d * n, 4 * N * (2*d + f) * d, 2 * d * float64(s.cfg.Vocab)
}

// layers is the layers' FLOPs of one sequence of n tokens (eq 2.19 with
// its constants).
func (s *costSim) layers(n float64) float64 {
	a, d, _ := s.perToken(n)
	return n * (a + d)
}

func (s *costSim) Frame() sims.Frame {
	n := math.Ldexp(1, s.k)
	attn, dense, logits := s.perToken(n)
	cross := s.cfg.Crossover()
	f := sims.Frame{Sim: TransformerCost.Name, Step: s.k}
	doubling := sims.Metric{Name: "×cost per doubling", Undefined: "no context of half this length yet"}
	if s.k > 0 {
		doubling = sims.Metric{Name: "×cost per doubling", Value: s.layers(n) / s.layers(n/2)}
	}
	f.Metrics = []sims.Metric{
		{Name: "n_ctx", Value: n},
		{Name: "attention FLOP/token", Value: attn},
		{Name: "dense FLOP/token", Value: dense},
		{Name: "logits FLOP/token", Value: logits},
		{Name: "attention share", Value: attn / (attn + dense)},
		{Name: "crossover n_ctx", Value: cross},
		doubling,
	}
	f.Charts = []sims.Chart{s.loglog(cross), s.table(int(n)), s.ratios()}
	where := "dense dominates below (wide models)"
	if n > cross {
		where = "attention dominates past it (long contexts)"
	}
	f.Text = []string{
		fmt.Sprintf("per token, attention 4N·d·n = dense 4N(2d+d_ff)d at n = 2d+d_ff = %g: %s", cross, where),
		"eq 2.20's O(·) says n ≈ d: a layer has 4 d×d and 2 FFN products, twice (2.18)'s dense term",
		fmt.Sprintf("logits, 2d·n_voc a token, are left out of (2.19): %.2g, near the layers' dense %.2g", logits, dense),
	}
	return f
}

// loglog is FLOPs per token against n_ctx on log-log axes: attention's
// line and the dense layers' level up to the current context, the
// crossover dotted and marked.
func (s *costSim) loglog(cross float64) sims.CanvasChart {
	a0, d0, _ := s.perToken(1)
	a1, _, _ := s.perToken(math.Ldexp(1, s.last))
	ymin, ymax := math.Floor(math.Log10(min(a0, d0))), math.Ceil(math.Log10(max(a1, d0)))
	xmax := float64(s.last) * math.Log10(2)
	paths := []sims.Path{{Class: 0}, {Class: 1}}
	for k := 0; k <= s.k; k++ {
		n := math.Ldexp(1, k)
		a, d, _ := s.perToken(n)
		x := math.Log10(n)
		for i, y := range []float64{a, d} {
			paths[i].X, paths[i].Y = append(paths[i].X, x), append(paths[i].Y, math.Log10(y))
		}
	}
	xc := math.Log10(cross)
	marks := []sims.Marker{{X: xc, Y: math.Log10(d0), Glyph: '◆', Class: 2}}
	for i := range paths {
		marks = append(marks, sims.Marker{X: paths[i].X[s.k], Y: paths[i].Y[s.k], Glyph: '●', Class: i})
	}
	return sims.CanvasChart{
		Title:   fmt.Sprintf("FLOPs per token against n_ctx, log-log: N = %d, d = %d, d_ff = %d", s.cfg.Layers, s.cfg.Dim, s.cfg.FFN),
		View:    sims.Rect{XMin: 0, XMax: xmax, YMin: ymin, YMax: ymax},
		Paths:   append(paths, sims.Path{X: []float64{xc, xc}, Y: []float64{ymin, ymax}, Class: 2, Dotted: true}),
		Markers: marks,
		Legend:  []string{"attention 4N·d·n", "dense 4N(2d+d_ff)d", fmt.Sprintf("crossover n = 2d+d_ff = %g", cross)},
		XLabel:  "log₁₀ n_ctx", YLabel: "log₁₀ FLOP/token",
	}
}

// table lists the products walked through one forward pass of n tokens.
func (s *costSim) table(n int) sims.TableChart {
	ps := s.cfg.Products(n)
	total := 0.0
	for _, p := range ps {
		total += p.MulAdds()
	}
	t := sims.TableChart{Title: fmt.Sprintf("the products of one pass at n_ctx = %s, walked", count(float64(n))),
		Corner: "product × times", Columns: []string{"share", "FLOPs", "each"}}
	for _, p := range ps {
		fl := 2 * p.MulAdds()
		t.Rows = append(t.Rows, sims.TableRow{Label: fmt.Sprintf("%s ×%d", p.Name, p.Count), Cells: []sims.Cell{
			sims.Num(p.MulAdds()/total, fmt.Sprintf("%.1f%%", 100*p.MulAdds()/total)),
			sims.Num(fl, fmt.Sprintf("%.3g", fl)),
			{Text: fmt.Sprintf("%s×%s·%s×%s", count(float64(p.M)), count(float64(p.K)), count(float64(p.K)), count(float64(p.N)))},
		}})
	}
	return t
}

// count writes a size compactly: 4096, 64K, 4M.
func count(x float64) string {
	switch {
	case x >= 1<<20 && math.Mod(x, 1<<20) == 0:
		return fmt.Sprintf("%gM", x/(1<<20))
	case x >= 1<<14 && math.Mod(x, 1<<10) == 0:
		return fmt.Sprintf("%gK", x/(1<<10))
	}
	return strings.TrimSuffix(fmt.Sprintf("%.0f", x), ".")
}

// ratios is the layers' cost of a sequence of n tokens over that of n/2,
// from 2 (n ≪ d) to 4 (n ≫ d).
func (s *costSim) ratios() sims.LineChart {
	var r []float64
	for k := 1; k <= s.k; k++ {
		n := math.Ldexp(1, k)
		r = append(r, s.layers(n)/s.layers(n/2))
	}
	m := max(len(r), 1)
	return sims.LineChart{Title: "cost of a sequence when n_ctx doubles: ×2 → ×4", X0: 1, X1: float64(m), XLabel: "log₂ n_ctx",
		Series: []sims.Series{
			{Name: "cost(n)/cost(n/2)", Y: r, Class: 0},
			{Name: "×2: dense", Y: constant(m, 2), Class: 1, Bound: true},
			{Name: "×4: attention", Y: constant(m, 4), Class: 2, Bound: true},
		}}
}

func (s *costSim) Result() map[string]any {
	n := math.Ldexp(1, s.k)
	attn, dense, logits := s.perToken(n)
	r := map[string]any{
		"n_ctx": n, "attention_flops_per_token": attn, "dense_flops_per_token": dense, "logits_flops_per_token": logits,
		"attention_share": attn / (attn + dense), "crossover_n": s.cfg.Crossover(),
	}
	if s.k > 0 {
		r["doubling_ratio"] = s.layers(n) / s.layers(n/2)
	} else {
		r["doubling_ratio"] = math.NaN()
		r["undefined"] = map[string]string{"doubling_ratio": "no context of half this length yet"}
	}
	var prods []map[string]any
	for _, p := range s.cfg.Products(int(n)) {
		prods = append(prods, map[string]any{"name": p.Name, "times": p.Count, "m": p.M, "k": p.K, "n": p.N, "flops": 2 * p.MulAdds()})
	}
	r["products"] = prods
	return r
}
