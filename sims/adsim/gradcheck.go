package adsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/thelab/lab/algo/gradcheck"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// checkedModel is a model of the gradcheck sim.
type checkedModel string

const (
	modelMLP       checkedModel = "mlp"       // 4 → 8 → 3, ReLU, softmax cross-entropy
	modelCNN       checkedModel = "cnn"       // conv 3×3, ReLU, max-pool, dense, cross-entropy
	modelAttention checkedModel = "attention" // embedding, causal self-attention, LayerNorm, cross-entropy
	modelHinge     checkedModel = "hinge"     // a linear SVM's hinge loss, two points exactly on the margin
)

func (m checkedModel) String() string { return string(m) }

// gradcheck's parameters.
var (
	gcModel = param.Choice("model", []checkedModel{modelMLP, modelCNN, modelAttention, modelHinge}, modelMLP,
		"mlp: 4→8→3 with ReLU and softmax cross-entropy; cnn: conv 3×3, ReLU, 2×2 max-pool, dense; "+
			"attention: embedding, causal self-attention, LayerNorm, cross-entropy; "+
			"hinge: mean max(0, 1 − y·xᵀw) with two points on the margin (kinks)")
	gcStep = param.Float("h", 1e-5, "the central difference's step: truncation error ~h², rounding ~ε/h").Range(1e-10, 0.1)
)

// GradCheck compares the tensor engine's reverse-mode gradient of a whole
// model with central finite differences (gonum diff/fd), one parameter
// entry per step: a histogram of the relative errors, the agreeing digits
// per parameter tensor, and the entries whose difference stencil straddles
// a kink of ReLU, |·| or max-pool, where a finite difference is not a
// derivative and is flagged instead of counted.
var GradCheck = &sims.Spec{
	Name:   "gradcheck",
	Title:  "Gradient check: AD against central differences, entry by entry, kinks flagged",
	Source: "seed 000 chapter 1 (§1.3 reverse mode, §1.7 dual numbers) on chapter 2's models",
	Steps:  300,
	Speed:  2,
	Params: param.List(gcModel, gcStep),
	New:    newGradCheck,
	Size:   func(sims.Config) int64 { return gradCheckSize },

	Metrics: gradCheckMetrics,
}

// namedTensor is a parameter tensor with its name.
type namedTensor struct {
	name string
	t    *tensor.Tensor
}

type gradcheckSim struct {
	model   checkedModel
	h       float64
	params  []namedTensor
	c       *gradcheck.Checker
	entries []string // "W1[2,5]" per entry
	owner   []int    // the tensor of each entry
}

// gcBins is the histogram's bins over log10 of the relative error, from
// 10⁻¹⁶ to 10⁰.
const gcBins = 32

// newTensor is a parameter of the given shape drawn from init.
func newTensor(rng *rand.Rand, init tensor.Init, dims ...int) (*tensor.Tensor, error) {
	t, err := tensor.New(dims...)
	if err != nil {
		return nil, err
	}
	return t, t.Fill(init, rng)
}

// data is an input tensor of standard normal entries.
func data(rng *rand.Rand, dims ...int) (*tensor.Tensor, error) {
	n := 1
	for _, d := range dims {
		n *= d
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return tensor.FromData(x, dims...)
}

// buildModel returns the model's loss builder and its parameters.
func buildModel(m checkedModel, rng *rand.Rand) (func(tp *tensor.Tape) *tensor.Tensor, []namedTensor, error) {
	var err error
	p := func(name string, init tensor.Init, dims ...int) namedTensor {
		var t *tensor.Tensor
		if err == nil {
			t, err = newTensor(rng, init, dims...)
		}
		return namedTensor{name, t}
	}
	in := func(dims ...int) *tensor.Tensor {
		var t *tensor.Tensor
		if err == nil {
			t, err = data(rng, dims...)
		}
		return t
	}
	var build func(tp *tensor.Tape) *tensor.Tensor
	var ps []namedTensor
	switch m {
	case modelCNN:
		img := in(2, 1, 6, 6)
		cw, cb, dw, db := p("K", tensor.He, 3, 1, 3, 3), p("bK", tensor.XavierNormal, 3), p("W", tensor.Xavier, 27, 2), p("b", tensor.XavierNormal, 2)
		ps = []namedTensor{cw, cb, dw, db}
		build = func(tp *tensor.Tape) *tensor.Tensor {
			h := tp.MaxPool2D(tp.Relu(tp.Conv2D(img, cw.t, cb.t, 1, 1)), 2, 2) // [2, 3, 3, 3]
			return tp.CrossEntropy(tp.Linear(tp.Reshape(h, 2, 27), dw.t, db.t), []int{1, 0})
		}
	case modelAttention:
		const V, T, D = 6, 5, 4
		emb, wq, wk, wv := p("E", tensor.XavierNormal, V, D), p("Wq", tensor.Xavier, D, D), p("Wk", tensor.Xavier, D, D), p("Wv", tensor.Xavier, D, D)
		g, b, out := p("γ", tensor.XavierNormal, D), p("β", tensor.XavierNormal, D), p("Wo", tensor.Xavier, D, V)
		ps = []namedTensor{emb, wq, wk, wv, g, b, out}
		tokens, next := []int{0, 3, 3, 1, 5}, []int{3, 3, 1, 5, 2}
		build = func(tp *tensor.Tape) *tensor.Tensor {
			h := tp.Embedding(emb.t, tokens)
			a, _ := tp.Attention(tp.MatMul(h, wq.t), tp.MatMul(h, wk.t), tp.MatMul(h, wv.t), true)
			return tp.CrossEntropy(tp.MatMul(tp.LayerNorm(tp.Add(h, a), g.t, b.t, 1e-5), out.t), next)
		}
	case modelHinge:
		const n, d = 12, 6
		w := p("w", tensor.XavierNormal, d, 1)
		X := in(n, d)
		ys := make([]float64, n)
		for i := range ys {
			ys[i] = float64(1 - 2*(i%2))
		}
		if err == nil { // points 0 and 1 exactly on the margin: y·xᵀw = 1
			clear(X.Data[:2*d])
			X.Data[0] = 1 / w.t.Data[0]
			X.Data[d+1] = -1 / w.t.Data[1]
		}
		y, yerr := tensor.FromData(ys, n, 1)
		if err == nil {
			err = yerr
		}
		ps = []namedTensor{w}
		build = func(tp *tensor.Tape) *tensor.Tensor {
			margin := tp.Mul(tp.MatMul(X, w.t), y)
			return tp.Mean(tp.Relu(tp.AddConst(tp.Neg(margin), 1)))
		}
	default:
		x := in(8, 4)
		w1, b1, w2, b2 := p("W1", tensor.He, 4, 8), p("b1", tensor.XavierNormal, 8), p("W2", tensor.Xavier, 8, 3), p("b2", tensor.XavierNormal, 3)
		ps = []namedTensor{w1, b1, w2, b2}
		labels := []int{0, 1, 2, 0, 1, 2, 0, 1}
		build = func(tp *tensor.Tape) *tensor.Tensor {
			return tp.CrossEntropy(tp.Linear(tp.Relu(tp.Linear(x, w1.t, b1.t)), w2.t, b2.t), labels)
		}
	}
	return build, ps, err
}

// gradCheckSize is what gradcheck holds: its models are fixed and small
// (the CNN's, the largest, about 40 KB with the Frame's tables).
const gradCheckSize = 48 << 10

func newGradCheck(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &gradcheckSim{model: gcModel.Get(v), h: gcStep.Get(v)}
	build, ps, err := buildModel(s.model, rand.New(rand.NewPCG(cfg.Seed, 0x6763))) // "gc"
	if err != nil {
		return nil, err
	}
	s.params = ps
	ts := make([]*tensor.Tensor, len(ps))
	for k, p := range ps {
		ts[k] = p.t
		for i := range p.t.Data {
			s.entries = append(s.entries, p.name+index(p.t.Shape(), i))
			s.owner = append(s.owner, k)
		}
	}
	if s.c, err = gradcheck.NewModelChecker(build, ts, &gradcheck.Settings{Step: s.h}); err != nil {
		return nil, err
	}
	return s, nil
}

// index writes flat index i of a tensor of that shape as [i,j,…].
func index(shape []int, i int) string {
	idx := make([]string, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		idx[a] = fmt.Sprint(i % shape[a])
		i /= shape[a]
	}
	return "[" + strings.Join(idx, ",") + "]"
}

func (s *gradcheckSim) Step() error { return s.c.Step() }

// logRel is log10 of entry i's relative error, floored at 10⁻¹⁶.
func logRel(r *gradcheck.Result, i int) float64 {
	return math.Log10(math.Max(r.Rel[i], 1e-16))
}

func (s *gradcheckSim) Frame() sims.Frame {
	r := s.c.Result()
	n := s.c.Checked()
	density := make([]float64, gcBins)
	counted := 0
	for i := range n {
		if r.Kink[i] {
			continue
		}
		b := int((logRel(r, i) + 16) / 16 * gcBins)
		density[min(max(b, 0), gcBins-1)]++
		counted++
	}
	for b := range density {
		if counted > 0 {
			density[b] /= float64(counted) * 16 / gcBins
		}
	}
	hist := sims.HistChart{Title: "relative error, log10", Lo: -16, Hi: 0, Density: density,
		XLabel: "log10 rel err", Label: "entries"}

	// Agreeing digits per tensor: −log10 of its largest relative error.
	bars := sims.BarChart{Title: "agreeing digits, per tensor", Max: 16}
	for k, p := range s.params {
		worst, seen, kinks := 0.0, false, 0
		for i := range n {
			if s.owner[i] != k {
				continue
			}
			if r.Kink[i] {
				kinks++
				continue
			}
			worst, seen = math.Max(worst, r.Rel[i]), true
		}
		if !seen {
			continue
		}
		label := p.name
		if kinks > 0 {
			label += fmt.Sprintf(" (%d kinks)", kinks)
		}
		bars.Bars = append(bars.Bars, sims.Bar{Label: label, Value: -math.Log10(math.Max(worst, 1e-16)), Class: k % sims.MaxClasses})
	}

	table := sims.TableChart{Title: "last entry, kinks, worst", Corner: "entry", Columns: []string{"", "rel err", "AD", "FD"}}
	row := func(i int, focus bool) sims.TableRow {
		note := sims.Cell{}
		if r.Kink[i] {
			note = sims.Cell{Text: "kink", Tone: sims.ToneInk, Class: classNow}
		}
		rel := sciCell(r.Rel[i], 2)
		if focus {
			rel.Tone, rel.Class = sims.ToneFocus, classNow
		}
		return sims.TableRow{Label: s.entries[i], Cells: []sims.Cell{note, rel, numCell(r.AD[i]), numCell(r.FD[i])}}
	}
	if n > 0 {
		table.Rows = append(table.Rows, row(n-1, true))
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if r.Kink[a] != r.Kink[b] { // kinks first, then the worst errors
			if r.Kink[a] {
				return -1
			}
			return 1
		}
		switch {
		case r.Rel[a] > r.Rel[b]:
			return -1
		case r.Rel[a] < r.Rel[b]:
			return 1
		}
		return 0
	})
	for _, i := range order[:min(5, len(order))] {
		if i != n-1 {
			table.Rows = append(table.Rows, row(i, false))
		}
	}
	return sims.Frame{
		Sim:  GradCheck.Name,
		Step: n,
		Metrics: []sims.Metric{
			{Name: "checked", Value: float64(n)},
			{Name: "of", Value: float64(s.c.Len())},
			{Name: "max_rel", Value: r.MaxRel},
			{Name: "kinks", Value: float64(r.Kinks)},
		},
		Charts: []sims.Chart{hist, bars, table},
		Text:   s.notes(r, n),
	}
}

func (s *gradcheckSim) notes(r *gradcheck.Result, n int) []string {
	lines := []string{fmt.Sprintf("%s: %d entries, one per step: f(x ± h e_i), h = %g", s.model, s.c.Len(), s.h)}
	if n > 0 && r.Worst >= 0 {
		lines = append(lines, fmt.Sprintf("worst so far %s at %s; error ≈ h²·f‴/6 + ε·|f|/h", sci(r.MaxRel, 2), s.entries[r.Worst]))
	}
	if r.Kinks > 0 {
		lines = append(lines, fmt.Sprintf("%d entr%s flagged: x ± h e_i crosses a kink, FD is no derivative", r.Kinks,
			map[bool]string{true: "y", false: "ies"}[r.Kinks == 1]))
	}
	return lines
}

func (s *gradcheckSim) Result() map[string]any {
	r := s.c.Result()
	res := map[string]any{"model": s.model.String(), "checked": s.c.Checked(), "entries": s.c.Len(),
		"max_rel": r.MaxRel, "max_abs": r.MaxAbs, "kinks": r.Kinks}
	if r.Worst >= 0 {
		res["worst"] = s.entries[r.Worst]
	}
	return res
}
