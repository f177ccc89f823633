package seqsim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Attention is scaled dot-product self-attention on a sentence (seed 002
// G3–G6, §7.2–7.3; seed 000 §2.5; seed 001 [A19]) in three views: the
// weights of each head with the queried row, the causal mask and the √d_k
// toggle against the row entropy as d_k grows; the sinusoidal positional
// encodings and their dot product against the offset, the same from every
// position; and attention as a kernel smoother next to kernel (GP)
// regression (G5).
var Attention = &sims.Spec{
	Name:   "attention",
	Title:  "Self-attention: weights per head, causal mask, √d_k and entropy, positions, the kernel view",
	Source: "seed 002 §7.2–7.3 (G3–G6, L3224–3365); seed 000 §2.5 (eq 2.11–2.13); seed 001 [A19]",
	Steps:  24,
	Speed:  2,
	Params: param.List(atView, atSentence, atHeads, atDK, atCausal, atScaled, atPositions, atEll, atNoise),
	New:    newAttention,
	Size:   func(sims.Config) int64 { return attentionBytes },

	Metrics: attentionMetrics,
}

// attentionBytes is an attention sim whatever its parameters: at most 16
// words and 3 heads of weights, the entropy curves, the positions' heat
// map or the kernel view's curves, and the Frame's pictures of them.
const attentionBytes = 64 << 10

// attnView names what the attention pane shows.
type attnView string

func (v attnView) String() string { return string(v) }

const (
	viewHeads     attnView = "heads"
	viewPositions attnView = "positions"
	viewKernel    attnView = "kernel"
)

const (
	atMaxWords   = 16
	atEntropyDim = 128 // the entropy curve runs d = 4, 8, …, atEntropyDim
	atDraws      = 40  // draws per d of the entropy curve
	atPEPos      = 48  // positions of the PE heat map
	atPEMaxDim   = 64  // dimensions of the PE heat map, at most
	atOffsets    = 32  // offsets k of the dot-product curve
	atKernelN    = 8   // data points of the kernel view
	atSweep      = 48  // query positions of the kernel view's sweep
	atGrid       = 121 // points of its prediction curves
)

var (
	atView = param.Choice("view", []attnView{viewHeads, viewPositions, viewKernel}, viewHeads,
		"heads: the weights of each head, the queried row and the row entropy against d_k; "+
			"positions: the sinusoidal encodings and ⟨PE_t, PE_t+k⟩; kernel: attention as a kernel smoother against GP regression (G5)")
	atSentence = param.Text("sentence", "the dog chased the cat",
		fmt.Sprintf("2 to %d words; each word's embedding is drawn from the seed and the word, so a word repeated or moved keeps it", atMaxWords))
	atHeads     = param.Int("heads", 2, "attention heads, each with its own W_Q, W_K, W_V").Range(1, 3)
	atDK        = param.Int("dk", 16, "d_k, the dimension of each head's queries and keys (d_model = heads·d_k)").Range(1, seq.MaxAttnDim)
	atCausal    = param.Bool("causal", false, "the causal mask: query i sees keys j ≤ i only (weights above the diagonal exactly 0)")
	atScaled    = param.Bool("scaled", true, "divide the scores by √d_k (off: the rows saturate to one-hot as d_k grows)")
	atPositions = param.Choice("positions", []seq.Positions{seq.Fixed, seq.NoneSeen}, seq.Fixed,
		"sinusoidal: PE_t added to each embedding (eq 2.13); none: attention is permutation-equivariant")
	atEll   = param.Float("ell", 0.12, "kernel view: the length-scale ℓ of the score −(x − x_j)²/(2ℓ²) and of the SE kernel").Range(0.01, 2)
	atNoise = param.Float("noise", 1e-4, "kernel view: the noise variance σ² of kernel regression (0: interpolation)").Range(0, 1)
)

type attnSim struct {
	view   attnView
	step   int
	words  []string // as typed, for the embeddings
	shown  []string // as shown (sims.Visible)
	causal bool
	scaled bool

	// heads
	weights [][]float64 // per head, T×T
	entropy [2][]float64
	dk      int
	pos     seq.Positions
	// positions
	pe    []float64
	peDim int
	// kernel
	sm       *seq.Smoother
	kx, ky   []float64
	gridX    []float64
	gpCurve  []float64
	attCurve []float64
}

func newAttention(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &attnSim{view: atView.Get(v), words: strings.Fields(atSentence.Get(v)), causal: atCausal.Get(v), scaled: atScaled.Get(v),
		dk: atDK.Get(v), pos: atPositions.Get(v)}
	if n := len(s.words); n < 2 || n > atMaxWords {
		return nil, fmt.Errorf("parameter sentence = %q: %d words; must be 2 to %d", atSentence.Get(v), n, atMaxWords)
	}
	for _, w := range s.words {
		s.shown = append(s.shown, sims.Visible(w, sims.PlainSpaces))
	}
	switch s.view {
	case viewHeads:
		return s, s.attend(cfg.Seed, atHeads.Get(v))
	case viewPositions:
		s.peDim = min(atHeads.Get(v)*s.dk, atPEMaxDim)
		if s.peDim%2 == 1 {
			s.peDim++
		}
		s.pe, _ = seq.Sinusoidal(atPEPos, s.peDim)
		return s, nil
	}
	return s, s.smoother(cfg.Seed, v)
}

// embed is the sentence's token embeddings, N(0,1) entries drawn from the
// seed and the word, plus the sinusoidal positions unless none.
func (s *attnSim) embed(seed uint64, dm int) *tensor.Tensor {
	T := len(s.words)
	x := make([]float64, T*dm)
	for t, w := range s.words {
		h := fnv.New64a()
		h.Write([]byte(w))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		for j := range dm {
			x[t*dm+j] = rng.NormFloat64()
		}
	}
	if s.pos == seq.Fixed {
		pe, _ := seq.Sinusoidal(T, dm)
		for i := range x {
			x[i] += pe[i]
		}
	}
	xt, _ := tensor.FromData(x, T, dm)
	return xt
}

// attend computes the heads' weights and the entropy curves.
func (s *attnSim) attend(seed uint64, heads int) error {
	dm := heads * s.dk
	a, err := seq.NewSelfAttention(dm, s.dk, heads, rand.New(rand.NewPCG(seed, 0x61_7474_6e))) // "attn"
	if err != nil {
		return err
	}
	tp := tensor.NewTape()
	_, w := a.Apply(tp, s.embed(seed, dm), s.scaled, s.causal)
	if err := tp.Err(); err != nil {
		return err
	}
	for _, wh := range w {
		s.weights = append(s.weights, clone(wh.Data))
	}
	dims := make([]int, atEntropyDim/4)
	for i := range dims {
		dims[i] = 4 * (i + 1)
	}
	for i, scaled := range []bool{true, false} {
		if s.entropy[i], err = seq.EntropyByDim(len(s.words), dims, atDraws, scaled, rand.New(rand.NewPCG(seed, 0x656e74))); err != nil { // "ent"
			return err
		}
	}
	return nil
}

// smoother draws the kernel view's data, y = sin 2πx + noise at evenly
// spaced x in [0, 1], and both prediction curves.
func (s *attnSim) smoother(seed uint64, v param.Values) error {
	rng := rand.New(rand.NewPCG(seed, 0x6b_6572_6e)) // "kern"
	for j := range atKernelN {
		x := float64(j) / (atKernelN - 1)
		s.kx, s.ky = append(s.kx, x), append(s.ky, math.Sin(2*math.Pi*x)+0.1*rng.NormFloat64())
	}
	var err error
	if s.sm, err = seq.NewSmoother(s.kx, s.ky, atEll.Get(v), atNoise.Get(v)); err != nil {
		return sims.Blame(err, v, sims.As("ell", atEll), sims.As("noise", atNoise))
	}
	w := make([]float64, atKernelN)
	for i := range atGrid {
		x := kernelLo + (kernelHi-kernelLo)*float64(i)/(atGrid-1)
		s.gridX = append(s.gridX, x)
		s.gpCurve = append(s.gpCurve, s.sm.GP(x, w))
		s.attCurve = append(s.attCurve, s.sm.Attention(x, w))
	}
	return nil
}

// The kernel view's x range.
const kernelLo, kernelHi = -0.2, 1.2

// Step moves the highlighted query (heads), the start position t
// (positions) or the query x (kernel) on, round and round.
func (s *attnSim) Step() error {
	s.step++
	return nil
}

func (s *attnSim) Frame() sims.Frame {
	f := sims.Frame{Sim: Attention.Name, Step: s.step}
	switch s.view {
	case viewHeads:
		s.headsFrame(&f)
	case viewPositions:
		s.positionsFrame(&f)
	default:
		s.kernelFrame(&f)
	}
	return f
}

func (s *attnSim) headsFrame(f *sims.Frame) {
	T := len(s.words)
	q := s.step % T
	w0 := s.weights[0]
	f.Metrics = []sims.Metric{
		{Name: "query", Value: float64(q)},
		// entropies at the scale of log T, their most: a one-hot row's
		// 2.7e-26 reads ≈ 0
		{Name: "its row entropy", Value: seq.Entropy(w0[q*T : (q+1)*T]), Scale: math.Log(float64(T))},
		{Name: "mean row entropy", Value: seq.RowEntropy(w0, T), Scale: math.Log(float64(T))},
		{Name: "log T", Value: math.Log(float64(T))},
	}
	for h, w := range s.weights {
		z := make([]float64, T*T)
		for i := range T {
			copy(z[(T-1-i)*T:(T-i)*T], w[i*T:(i+1)*T]) // query 0 on top
		}
		f.Charts = append(f.Charts, sims.CanvasChart{Title: fmt.Sprintf("head %d weights (row = query)", h+1),
			View:    sims.Rect{XMin: 0, XMax: float64(T), YMin: 0, YMax: float64(T)},
			Heat:    &sims.Grid{NX: T, NY: T, Z: z, Scale: sims.Sequential, Lo: 0, Hi: 1},
			Markers: []sims.Marker{{X: 0.5, Y: float64(T-q) - 0.5, Glyph: '▶', Class: 1}},
			XLabel:  "key j", YLabel: "query i",
			XIndex: &sims.Index{First: 0, Last: T - 1, At: 0.5, Step: 1, Labels: s.shown},
			YIndex: &sims.Index{First: 0, Last: T - 1, At: float64(T) - 0.5, Step: -1, Labels: s.shown}})
	}
	bars := sims.BarChart{Title: fmt.Sprintf("head 1: query %d (%s) attends to", q, s.shown[q]), Max: 1}
	for j, w := range s.shown {
		bars.Bars = append(bars.Bars, sims.Bar{Label: fmt.Sprintf("%d %s", j, w), Value: w0[q*T+j]})
	}
	ent := sims.LineChart{Title: "row entropy against d_k", X0: 4, X1: atEntropyDim, XLabel: "d_k",
		Series: []sims.Series{
			{Name: "scaled 1/√d_k", Y: s.entropy[0], Class: 0},
			{Name: "unscaled", Y: s.entropy[1], Class: 1},
			{Name: "log T", Y: constant(len(s.entropy[0]), math.Log(float64(T))), Class: 2, Bound: true},
		}}
	f.Charts = append(f.Charts, bars, ent)
	var toks strings.Builder
	for j, w := range s.shown {
		fmt.Fprintf(&toks, "%d:%s ", j, w)
	}
	scale := "scores Q·Kᵀ/√d_k"
	if !s.scaled {
		scale = "scores Q·Kᵀ unscaled: raise dk and the rows go one-hot"
	}
	mask := "no mask"
	if s.causal {
		mask = "causal: weights above the diagonal are exactly 0"
	}
	f.Text = []string{strings.TrimSpace(toks.String()) + fmt.Sprintf("   d_k = %d; %s", s.dk, scale), mask + "; every row sums to 1"}
	if s.pos == seq.NoneSeen {
		f.Text = append(f.Text, "no positions: permute the words and the rows permute with them")
	}
}

func (s *attnSim) positionsFrame(f *sims.Frame) {
	t := s.step % atPEPos
	d := s.peDim
	z := make([]float64, atPEPos*d)
	for p := range atPEPos {
		copy(z[(atPEPos-1-p)*d:(atPEPos-p)*d], s.pe[p*d:(p+1)*d]) // position 0 on top
	}
	dot := func(a, b int) float64 {
		pa, _ := seq.Sinusoidal(a+1, d)
		pb, _ := seq.Sinusoidal(b+1, d)
		x := 0.0
		for j := range d {
			x += pa[a*d+j] * pb[b*d+j]
		}
		return x
	}
	from0, fromT, closed := make([]float64, atOffsets), make([]float64, atOffsets), make([]float64, atOffsets)
	gap, size := 0.0, 0.0
	for k := range atOffsets {
		from0[k], fromT[k], closed[k] = dot(0, k), dot(t, t+k), seq.PEDot(k, d)
		gap = max(gap, math.Abs(fromT[k]-from0[k]), math.Abs(closed[k]-from0[k]))
		size = max(size, math.Abs(from0[k]))
	}
	// a difference of dot products of size ≤ d/2: rounding at that size
	// reads ≈ 0 (issue 26.8)
	f.Metrics = []sims.Metric{{Name: "t", Value: float64(t)}, {Name: "d", Value: float64(d)},
		{Name: "max |⟨PE_t,PE_t+k⟩ − ⟨PE_0,PE_k⟩|", Value: gap, Scale: size}}
	f.Charts = []sims.Chart{
		sims.CanvasChart{Title: "PE[t, i]: sin and cos of t/10000^(2i/d)", View: sims.Rect{XMin: 0, XMax: float64(d), YMin: 0, YMax: atPEPos},
			Heat:    &sims.Grid{NX: d, NY: atPEPos, Z: z, Scale: sims.Diverging, Lo: -1, Hi: 1},
			Markers: []sims.Marker{{X: 0.5, Y: float64(atPEPos-t) - 0.5, Glyph: '▶', Class: 1}},
			XLabel:  "dimension i", YLabel: "position t"},
		sims.LineChart{Title: "⟨PE_t, PE_t+k⟩ against the offset k", X0: 0, X1: atOffsets - 1, XLabel: "k",
			Series: []sims.Series{
				{Name: "from t = 0", Y: from0, Class: 0},
				{Name: fmt.Sprintf("from t = %d", t), Y: fromT, Class: 1},
				{Name: "Σ cos(k/10000^(2i/d))", Y: closed, Class: 2, Bound: true},
			}},
	}
	f.Text = []string{"each pair of dimensions turns at its own frequency: sin a sin b + cos a cos b = cos(a − b),",
		"so the dot product depends on the offset k only — the curves from every t coincide ([A19])"}
}

func (s *attnSim) kernelFrame(f *sims.Frame) {
	i := s.step % atSweep
	x := kernelLo + (kernelHi-kernelLo)*(float64(i)+0.5)/atSweep
	wg, wa := make([]float64, atKernelN), make([]float64, atKernelN)
	fg, fa := s.sm.GP(x, wg), s.sm.Attention(x, wa)
	sum, lo := 0.0, math.Inf(1)
	for _, w := range wg {
		sum += w
		lo = min(lo, w)
	}
	f.Metrics = []sims.Metric{{Name: "query x", Value: x}, {Name: "kernel Σw", Value: sum}, {Name: "kernel min w", Value: lo},
		{Name: "f̂ kernel", Value: fg}, {Name: "f̂ attention", Value: fa}}
	pts := sims.PointSet{Name: "data", X: s.kx, Y: s.ky, Class: 2}
	fit := sims.CanvasChart{Title: "kernel regression and attention",
		View:   sims.Rect{XMin: kernelLo, XMax: kernelHi, YMin: -1.8, YMax: 1.8},
		Points: []sims.PointSet{pts},
		Paths: []sims.Path{{X: s.gridX, Y: s.gpCurve, Class: 0}, {X: s.gridX, Y: s.attCurve, Class: 1},
			{X: []float64{x, x}, Y: []float64{-1.8, 1.8}, Class: 3, Dotted: true}},
		Markers: []sims.Marker{{X: x, Y: fg, Glyph: '◆', Class: 0}, {X: x, Y: fa, Glyph: '◆', Class: 1}},
		Legend:  []string{"kernel (GP mean)", "attention", "data", "query x"}}
	lo = min(lo, 0)
	weights := sims.CanvasChart{Title: fmt.Sprintf("weights on each data point at x = %.2f", x),
		View:   sims.Rect{XMin: kernelLo, XMax: kernelHi, YMin: min(lo, -0.2) - 0.05, YMax: 1.05},
		Paths:  []sims.Path{{X: []float64{kernelLo, kernelHi}, Y: []float64{0, 0}, Class: 3, Dotted: true}},
		Legend: []string{"kernel (signed)", "attention (convex)"}}
	const off = 0.02
	for i, w := range [][]float64{wg, wa} {
		p, m := stems(s.kx, w, off*float64(2*i-1), i)
		weights.Paths, weights.Markers = append(weights.Paths, p...), append(weights.Markers, m...)
	}
	f.Charts = []sims.Chart{fit, weights}
	f.Text = []string{"attention, score −(x−x_j)²/2ℓ²: the SE kernel normalised, weights convex",
		"kernel regression: w = k(x,X)(K+σ²I)⁻¹, signed, not summing to 1 (G5)"}
}

func (s *attnSim) Result() map[string]any {
	f := s.Frame()
	r := map[string]any{"view": string(s.view)}
	for _, m := range f.Metrics {
		r[m.Name] = m.Value
	}
	if s.view == viewHeads {
		r["weights"] = s.weights
		r["entropy_scaled"], r["entropy_unscaled"] = s.entropy[0], s.entropy[1]
	}
	return r
}
