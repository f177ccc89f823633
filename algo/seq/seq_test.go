package seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/gradcheck"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/text"
)

// TestPECatalogue: the catalogue's values for d = 16 (seed 000 §2.9
// verified, seed 001 [A19] derived): PE[0] = (0, 1, 0, 1, …), ‖PE_t‖² =
// d/2, and ⟨PE_t, PE_{t+k}⟩ independent of t: 7.4851662435 at k = 1 and
// 6.1370399614 at k = 5 for t = 0, 3, 11; 5.543101 at k = 3 for t = 0,
// 5, 40.
func TestPECatalogue(t *testing.T) {
	const d = 16
	pe, err := Sinusoidal(60, d)
	if err != nil {
		t.Fatal(err)
	}
	row := func(t int) []float64 { return pe[t*d : (t+1)*d] }
	dot := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	for j, v := range row(0) {
		algotest.Near(t, fmt.Sprintf("PE[0][%d]", j), v, float64(j%2), 0)
	}
	for p := range 60 {
		algotest.Near(t, fmt.Sprintf("‖PE_%d‖²", p), dot(row(p), row(p)), d/2, 1e-12)
	}
	for _, c := range []struct {
		k    int
		ts   []int
		want float64
		tol  float64
	}{
		{1, []int{0, 3, 11}, 7.4851662435, 1e-9},
		{5, []int{0, 3, 11}, 6.1370399614, 1e-9},
		{3, []int{0, 5, 40}, 5.543101, 1e-6},
	} {
		for _, p := range c.ts {
			algotest.Near(t, fmt.Sprintf("⟨PE_%d, PE_%d⟩", p, p+c.k), dot(row(p), row(p+c.k)), c.want, c.tol)
		}
		algotest.Near(t, fmt.Sprintf("PEDot(%d)", c.k), PEDot(c.k, d), c.want, c.tol)
	}
	_, err = Sinusoidal(0, 4)
	algotest.WantParam(t, err, "size")
}

// tinyGPT is a small transformer for the exact checks.
func tinyGPT(t *testing.T, pos Positions, norm Norm, untied bool) *GPT {
	t.Helper()
	g, err := NewGPT(GPTConfig{Vocab: 5, Context: 4, Dim: 4, Heads: 2, Layers: 2, FFN: 6, Positions: pos, Norm: norm, Untied: untied},
		rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGPTGradients: the transformer's gradient with respect to every
// parameter equals central differences (max relative error 1e-5, the
// error of a central difference through two LayerNorms; entries
// whose stencil crosses a ReLU kink are flagged and skipped), in every
// variant.
func TestGPTGradients(t *testing.T) {
	ids, next := []int{1, 4, 4, 2, 0, 3, 2, 2}, []int{4, 4, 2, 0, 3, 2, 2, 1}
	for _, c := range []struct {
		pos    Positions
		norm   Norm
		untied bool
	}{{Learned, Pre, false}, {Fixed, Post, true}, {NoneSeen, Pre, true}, {Learned, Post, false}} {
		g := tinyGPT(t, c.pos, c.norm, c.untied)
		r, err := gradcheck.Model(func(tp *tensor.Tape) *tensor.Tensor {
			return tp.CrossEntropy(g.Forward(tp, ids, 2, 4), next)
		}, g.Params(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.MaxRel > 1e-5 {
			t.Errorf("%+v: max relative error %.3g at entry %d (AD %.10g, FD %.10g)", c, r.MaxRel, r.Worst, r.AD[r.Worst], r.FD[r.Worst])
		}
		if got, want := g.NumParams(), g.Config().NumParams(); got != want || len(r.AD) != got {
			t.Errorf("%+v: %d parameters, the formula says %d", c, got, want)
		}
	}
}

// TestGPTCausal: every head's weights are a probability per query with the
// keys after it exactly 0, and the logits at position t do not change when
// the tokens after t do (masked attention, seed 002 G6).
func TestGPTCausal(t *testing.T) {
	g := tinyGPT(t, Learned, Pre, false)
	tp := tensor.NewTape()
	a := slices.Clone(g.Forward(tp, []int{1, 2, 3, 4}, 1, 4).Data)
	for l := range 2 {
		for h := range 2 {
			w := g.Weights(l, h).Data
			for i := range 4 {
				sum := 0.0
				for j := range 4 {
					sum += w[i*4+j]
					if j > i && w[i*4+j] != 0 {
						t.Errorf("layer %d head %d: weight (%d, %d) = %g", l, h, i, j, w[i*4+j])
					}
				}
				algotest.Near(t, "row sum", sum, 1, 1e-15)
			}
		}
	}
	tp.Rewind()
	b := g.Forward(tp, []int{1, 2, 0, 0}, 1, 4).Data
	if !slices.Equal(a[:2*5], b[:2*5]) || slices.Equal(a[2*5:], b[2*5:]) {
		t.Error("the logits of positions 0–1 changed with the tokens after them, or the later ones did not")
	}
	tp.Rewind()
	g.Forward(tp, []int{1, 2, 3}, 1, 4)
	if tp.Err() == nil {
		t.Error("3 tokens as 1×4 accepted")
	}
	tp.Rewind()
	g.Forward(tp, []int{1, 2, 3, 4, 0}, 1, 5)
	if tp.Err() == nil {
		t.Error("5 tokens with n_ctx = 4 accepted")
	}
}

func TestGPTValidation(t *testing.T) {
	ok := GPTConfig{Vocab: 5, Context: 4, Dim: 4, Heads: 2, Layers: 1, FFN: 4, Positions: Learned, Norm: Pre}
	rng := rand.New(rand.NewPCG(1, 1))
	for name, mod := range map[string]func(*GPTConfig){
		"heads":     func(c *GPTConfig) { c.Heads = 3 },
		"dim":       func(c *GPTConfig) { c.Dim = MaxDim + 1 },
		"layers":    func(c *GPTConfig) { c.Layers = 0 },
		"context":   func(c *GPTConfig) { c.Context = 0 },
		"positions": func(c *GPTConfig) { c.Positions = "rotary" },
		"norm":      func(c *GPTConfig) { c.Norm = "batch" },
	} {
		c := ok
		mod(&c)
		_, err := NewGPT(c, rng)
		algotest.WantParam(t, err, name)
	}
	_, err := NewGPT(ok, nil)
	algotest.WantParam(t, err, "rng")
}

// TestRNNGradients: backpropagation through time equals central
// differences.
func TestRNNGradients(t *testing.T) {
	r, err := NewRNN(5, 4, 0.9, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	ids, next := []int{1, 4, 4, 2, 0, 3, 2, 2, 1, 0}, []int{4, 4, 2, 0, 3, 2, 2, 1, 0, 4}
	res, err := gradcheck.Model(func(tp *tensor.Tape) *tensor.Tensor {
		return tp.CrossEntropy(r.Forward(tp, ids, 2, 5), next)
	}, r.Params(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxRel > 1e-6 || res.Kinks > 0 {
		t.Errorf("max relative error %.3g at %d, %d kinks", res.MaxRel, res.Worst, res.Kinks)
	}
	if r.NumParams() != 5*4+16+4+4*5+5 {
		t.Errorf("%d parameters", r.NumParams())
	}
	// Inputs reproduce the states of Forward: h_t = tanh(h_{t−1}W + u_t).
	tp := tensor.NewTape()
	r.Forward(tp, ids[:5], 1, 5)
	u, err := r.Inputs(ids[:5])
	if err != nil {
		t.Fatal(err)
	}
	h := make([]float64, 4)
	for step := range 5 {
		next := make([]float64, 4)
		for j := range next {
			s := u[step][j]
			for i := range h {
				s += h[i] * r.W()[i*4+j]
			}
			next[j] = math.Tanh(s)
		}
		h = next
		algotest.Near(t, fmt.Sprintf("h_%d", step+1), h[0], r.States().Data[step*4], 1e-14)
	}
	if _, err := r.Inputs([]int{5}); err == nil {
		t.Error("token 5 of 5 accepted")
	}
	r.Forward(tp, ids, 3, 5)
	if tp.Err() == nil {
		t.Error("10 tokens as 3×5 accepted")
	}
	for name, f := range map[string]func() error{
		"hidden": func() error { _, err := NewRNN(5, 0, 1, rand.New(rand.NewPCG(1, 1))); return err },
		"rho":    func() error { _, err := NewRNN(5, 4, -1, rand.New(rand.NewPCG(1, 1))); return err },
		"vocab":  func() error { _, err := NewRNN(0, 4, 1, rand.New(rand.NewPCG(1, 1))); return err },
	} {
		algotest.WantParam(t, f(), name)
	}
}

// TestJacobianNorms (catalogue §2.5): with W = ρQ, Q orthogonal, the
// linear recursion's ‖∂h_T/∂h_0‖ is ρ^T exactly: 0.9⁵⁰ = 0.00515 and 1.1⁵⁰ =
// 117.4; with tanh it is never above the linear norm.
func TestJacobianNorms(t *testing.T) {
	const n, T = 8, 50
	rng := rand.New(rand.NewPCG(5, 6))
	pre := make([][]float64, T)
	for i := range pre {
		pre[i] = make([]float64, n)
		for j := range pre[i] {
			pre[i][j] = rng.NormFloat64()
		}
	}
	for _, c := range []struct{ rho, at50, half float64 }{{0.9, 0.00515, 5e-6}, {1, 1, 0}, {1.1, 117.4, 0.05}} {
		w := ScaledOrthogonal(n, c.rho, rng)
		lin, err := JacobianNorms(w, n, pre, false)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range lin {
			want := math.Pow(c.rho, float64(k+1))
			algotest.Near(t, fmt.Sprintf("ρ = %g, T = %d", c.rho, k+1), v/want, 1, 1e-9)
		}
		algotest.Near(t, fmt.Sprintf("ρ = %g at T = 50 (catalogue)", c.rho), lin[T-1], c.at50, c.half+1e-12)
		th, err := JacobianNorms(w, n, pre, true)
		if err != nil {
			t.Fatal(err)
		}
		for k := range th {
			if th[k] > lin[k]*(1+1e-12) {
				t.Errorf("ρ = %g, T = %d: tanh norm %g above the linear %g", c.rho, k+1, th[k], lin[k])
			}
		}
	}
	_, err := JacobianNorms(make([]float64, 3), 2, pre, false)
	algotest.WantParam(t, err, "w")
}

// TestSampler: τ = 0 and top-k = 1 decode greedily (ties to the smaller
// id); top-k and top-p keep the right tokens and renormalise the softmax;
// draws follow the law within 4 standard errors.
func TestSampler(t *testing.T) {
	z := []float64{1, 3, 2, 3, -1}
	p := make([]float64, len(z))
	greedy, _ := NewSampler(0, 0, 1)
	if k := greedy.Probs(z, p); k != 1 || !slices.Equal(p, []float64{0, 1, 0, 0, 0}) {
		t.Errorf("τ = 0: %v", p)
	}
	soft := func(idx ...int) []float64 {
		out := make([]float64, len(z))
		tot := 0.0
		for _, i := range idx {
			tot += math.Exp(z[i])
		}
		for _, i := range idx {
			out[i] = math.Exp(z[i]) / tot
		}
		return out
	}
	for _, c := range []struct {
		k    int
		p    float64
		keep []int
	}{
		{0, 1, []int{0, 1, 2, 3, 4}}, {1, 1, []int{1}}, {3, 1, []int{1, 2, 3}},
		{0, 0.5, []int{1, 3}}, {0, 0.8, []int{1, 2, 3}}, {2, 0.9, []int{1, 3}}, {0, 0.3, []int{1}},
	} {
		s, err := NewSampler(1, c.k, c.p)
		if err != nil {
			t.Fatal(err)
		}
		if k := s.Probs(z, p); k != len(c.keep) {
			t.Errorf("k = %d, p = %g: kept %d tokens, want %v", c.k, c.p, k, c.keep)
		}
		want := soft(c.keep...)
		for i := range p {
			algotest.Near(t, fmt.Sprintf("k = %d, p = %g, token %d", c.k, c.p, i), p[i], want[i], 1e-12)
		}
	}
	s, _ := NewSampler(0.7, 0, 0.95)
	s.Probs(z, p)
	rng := rand.New(rand.NewPCG(7, 8))
	const N = 40000
	count := make([]float64, len(z))
	for range N {
		count[s.Sample(z, rng)]++
	}
	for i, c := range count {
		se := math.Sqrt(p[i] * (1 - p[i]) / N)
		if d := math.Abs(c/N - p[i]); d > 4*se+1e-12 {
			t.Errorf("token %d: frequency %.4f, probability %.4f (%.1f standard errors)", i, c/N, p[i], d/se)
		}
	}
	for name, f := range map[string]func() error{
		"temperature": func() error { _, err := NewSampler(-1, 0, 1); return err },
		"top_k":       func() error { _, err := NewSampler(1, -1, 1); return err },
		"top_p":       func() error { _, err := NewSampler(1, 0, 0); return err },
	} {
		algotest.WantParam(t, f(), name)
	}
}

// TestCostModel (catalogue §2.10): doubling n multiplies the forward cost
// by → 4 when n ≫ d_emb and by → 2 when n ≪ d_emb; the attention and dense
// terms cross at Crossover; the parameter formula counts the built model.
func TestCostModel(t *testing.T) {
	cfg := GPTConfig{Vocab: 22, Context: 32, Dim: 32, Heads: 4, Layers: 2, FFN: 128, Positions: Learned, Norm: Pre}
	ratio := func(n int) float64 {
		a, b := CostOf(cfg, n), CostOf(cfg, 2*n)
		return (b.Attention + b.Dense) / (a.Attention + a.Dense)
	}
	algotest.Near(t, "n ≫ d", ratio(1<<20), 4, 1e-3)
	algotest.Near(t, "n ≪ d", ratio(1), 2, 2e-2)
	c := CostOf(cfg, int(cfg.Crossover()))
	algotest.Near(t, "attention = dense at the crossover", c.Attention/c.Dense, 1, 1e-12)
	algotest.Near(t, "crossover with d_ff = 4d", cfg.Crossover(), 6*32, 0)
	g, err := NewGPT(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if g.NumParams() != cfg.NumParams() || g.NumParams() != 27200 {
		t.Errorf("%d parameters, formula %d, want 27 200", g.NumParams(), cfg.NumParams())
	}
}

// TestTrainerAllocs: once a step has run, a training step of the GPT or
// the RNN allocates nothing.
func TestTrainerAllocs(t *testing.T) {
	l, _ := text.NewLanguage(text.Animals())
	v, _ := text.VocabOf(l.Alphabet())
	ids, _ := v.Encode(l.Generate(rand.New(rand.NewPCG(1, 1)), 2000))
	c, _ := NewCorpus(ids, 16, v.Size())
	g, _ := NewGPT(GPTConfig{Vocab: v.Size(), Context: 16, Dim: 16, Heads: 2, Layers: 2, FFN: 32, Positions: Learned, Norm: Pre},
		rand.New(rand.NewPCG(1, 1)))
	r, _ := NewRNN(v.Size(), 16, 1, rand.New(rand.NewPCG(1, 1)))
	for _, m := range []Model{g, r} {
		tr, err := NewTrainer(m, c, 4, opt.Config{Method: opt.Adam, LR: 1e-3}, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Step(); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { tr.Step() }); a != 0 {
			t.Errorf("%T: %v allocations per step", m, a)
		}
	}
}

// TestHeldOutCoverage: the held-out windows score every token from From()
// to End() − 1 exactly once, each with at least T/2 tokens of context.
func TestHeldOutCoverage(t *testing.T) {
	ids := make([]int, 103)
	for i := range ids {
		ids[i] = i
	}
	h, err := NewHeldOut(ids, 10)
	if err != nil {
		t.Fatal(err)
	}
	k := h.t - h.from
	var scored []int
	for w := range h.n {
		in, tg := h.in[w*h.t:(w+1)*h.t], h.tg[w*k:(w+1)*k]
		for j, target := range tg {
			if in[h.from+j]+1 != target || h.from+j < 5 {
				t.Fatalf("window %d: target %d after %d", w, target, in[h.from+j])
			}
			scored = append(scored, target)
		}
	}
	for i, s := range scored {
		if s != h.From()+i {
			t.Fatalf("scored %v…, from %d", scored[:i+1], h.From())
		}
	}
	if h.End() != h.From()+len(scored) || h.End() > len(ids) {
		t.Errorf("end %d, %d scored from %d of %d", h.End(), len(scored), h.From(), len(ids))
	}
	_, err = NewHeldOut(ids[:10], 10)
	algotest.WantParam(t, err, "held_out")
}

// TestCopyPuzzle: a two-layer transformer of 7 000 parameters learns to
// copy 8 digits of 8 — 99% of 200 fresh puzzles exactly right by greedy
// decoding — within 50 steps of 16 puzzles on this seed (every one of 400
// right from step 50 to 70; 0.90 at step 40). 200 puzzles, as tinygpt
// scores: a model that errs on 5% passes (2 errors or fewer) with
// probability 0.0023, and the greedy decodes cost twice the training.
func TestCopyPuzzle(t *testing.T) {
	p, err := NewPuzzle(Copy, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGPT(GPTConfig{Vocab: p.Vocab(), Context: 16, Dim: 16, Heads: 2, Layers: 2, FFN: 64, Positions: Learned, Norm: Pre},
		rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(g, p, 16, opt.Config{Method: opt.Adam, LR: 1e-2}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	const steps = 50
	for range steps {
		if err := tr.Step(); err != nil {
			t.Fatal(err)
		}
	}
	em, err := tr.ExactMatch(p, 200, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	if em < 0.99 {
		t.Errorf("exact match %.3f after %d steps, want ≥ 0.99", em, steps)
	}
	for name, f := range map[string]func() error{
		"task":   func() error { _, err := NewPuzzle("add", 3, 3); return err },
		"length": func() error { _, err := NewPuzzle(Copy, 0, 3); return err },
		"digits": func() error { _, err := NewPuzzle(Sort, 3, 1); return err },
	} {
		algotest.WantParam(t, f(), name)
	}
	x, y := []int{3, 1, 2}, make([]int, 3)
	for kind, want := range map[Puzzle][]int{Copy: {3, 1, 2}, Sort: {1, 2, 3}, Reverse: {2, 1, 3}} {
		q, _ := NewPuzzle(kind, 3, 4)
		if q.Answer(x, y); !slices.Equal(y, want) {
			t.Errorf("%s of %v = %v", kind, x, y)
		}
	}
}

// TestGPTBeatsKGram: trained on 3 000 characters of the built-in language,
// a transformer of 7 456 parameters beats on held-out text every k-gram
// model (k = 0 … 8, add-0.01 smoothing) counted on the same characters,
// scored on the same positions, within 300 steps on this seed (0.538
// nats against the best k-gram's 0.556); no model beats the entropy rate. On
// 20 000 characters it took 500 steps (0.414 against 0.437), 16.5 s of
// CPU under -race against 11.7. Without the position rows, the attention
// branch, or with values read from the keys' slice, it fails (1.11,
// 1.28, 0.71 nats).
func TestGPTBeatsKGram(t *testing.T) {
	l, _ := text.NewLanguage(text.Animals())
	v, _ := text.VocabOf(l.Alphabet())
	ids, _ := v.Encode(l.Generate(rand.New(rand.NewPCG(3, 4)), 3_000))
	hids, _ := v.Encode(l.Generate(rand.New(rand.NewPCG(5, 6)), 4_000))
	const T = 32
	h, err := NewHeldOut(hids, T)
	if err != nil {
		t.Fatal(err)
	}
	best := math.Inf(1)
	for k := 0; k <= text.MaxK; k++ {
		m, _ := text.NewKGram(k, v.Size())
		m.Add(ids, 0, len(ids))
		s, err := m.Eval(hids[:h.End()], h.From(), 0.01)
		if err != nil {
			t.Fatal(err)
		}
		best = min(best, s.NLL)
	}
	c, _ := NewCorpus(ids, T, v.Size())
	g, _ := NewGPT(GPTConfig{Vocab: v.Size(), Context: T, Dim: 16, Heads: 2, Layers: 2, FFN: 64, Positions: Learned, Norm: Pre},
		rand.New(rand.NewPCG(1, 1)))
	tr, err := NewTrainer(g, c, 16, opt.Config{Method: opt.Adam, LR: 2e-2}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for range 300 {
		if err := tr.Step(); err != nil {
			t.Fatal(err)
		}
	}
	loss, err := tr.Eval(h)
	if err != nil {
		t.Fatal(err)
	}
	if loss >= best || loss < l.EntropyRate() {
		t.Errorf("held-out loss %.4f; best k-gram %.4f; entropy rate %.4f", loss, best, l.EntropyRate())
	}
}
