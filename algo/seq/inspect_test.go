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
)

// inspected is a model of 3 layers with trained-looking LayerNorm gains
// and biases (drawn, not 1 and 0), inspected over 5 tokens.
func inspected(t *testing.T, norm Norm) (*GPT, *Inside, []int) {
	t.Helper()
	g, err := NewGPT(GPTConfig{Vocab: 7, Context: 6, Dim: 8, Heads: 2, Layers: 3, FFN: 12, Positions: Learned, Norm: norm},
		rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, b := range g.blocks {
		for _, p := range []*tensor.Tensor{b.ln1g, b.ln1b, b.ln2g, b.ln2b, b.bqkv, b.bo, b.b1, b.b2} {
			for i := range p.Data {
				p.Data[i] += 0.3 * rng.NormFloat64()
			}
		}
	}
	ids := []int{3, 0, 6, 6, 2}
	in, err := NewInside(g.Config(), len(ids))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Inspect(tensor.NewForwardTape(), ids, in); err != nil {
		t.Fatal(err)
	}
	return g, in, ids
}

// layerNorm is eq 2.15 written out: x̂ = (x − μ)/√(σ² + ε), γ ⊙ x̂ + β.
func layerNorm(x, gamma, beta []float64) (y, hat []float64) {
	d := len(x)
	mu, v := 0.0, 0.0
	for _, e := range x {
		mu += e
	}
	mu /= float64(d)
	for _, e := range x {
		v += (e - mu) * (e - mu)
	}
	v /= float64(d)
	y, hat = make([]float64, d), make([]float64, d)
	for j, e := range x {
		hat[j] = (e - mu) / math.Sqrt(v+LNEps)
		y[j] = gamma[j]*hat[j] + beta[j]
	}
	return y, hat
}

// affine is x·W + b for a row x and W [len(x), len(b)].
func affine(x, w, b []float64) []float64 {
	out := slices.Clone(b)
	for i, e := range x {
		for j := range out {
			out[j] += e * w[i*len(b)+j]
		}
	}
	return out
}

// TestInsideLayerNorm (seed 000 eq 2.15, seed 002 eq 7.2 and G4's
// oracle): each LayerNorm's output in the engine is γ ⊙ x̂ + β of its
// input's x̂ recomputed here (to 1e-12), and x̂ has mean 0 and variance
// σ²/(σ² + ε) — 1 but for the ε of catalogue §2.9 — to 1e-12 at every
// position; Inspect reports the same statistics.
func TestInsideLayerNorm(t *testing.T) {
	for _, norm := range []Norm{Pre, Post} {
		g, in, ids := inspected(t, norm)
		d, T := g.cfg.Dim, len(ids)
		type ln struct {
			tap         lnTap
			gamma, beta *tensor.Tensor
		}
		var lns []ln
		for l, b := range g.blocks {
			lns = append(lns, ln{g.taps[l].ln1, b.ln1g, b.ln1b}, ln{g.taps[l].ln2, b.ln2g, b.ln2b})
		}
		if norm == Pre {
			lns = append(lns, ln{g.final, g.lnfg, g.lnfb})
		}
		if len(lns) != in.LNs {
			t.Fatalf("%s: %d LayerNorms, Inside has %d", norm, len(lns), in.LNs)
		}
		for k, n := range lns {
			for tt := range T {
				x := n.tap.in.Data[tt*d : (tt+1)*d]
				y, hat := layerNorm(x, n.gamma.Data, n.beta.Data)
				for j := range y {
					algotest.Near(t, fmt.Sprintf("%s LN %d position %d: y[%d]", norm, k, tt, j), n.tap.out.Data[tt*d+j], y[j], 1e-12)
				}
				mu, v := meanVar(x)
				hm, hv := meanVar(hat)
				what := fmt.Sprintf("%s LN %d position %d", norm, k, tt)
				algotest.Near(t, what+": mean of x̂", hm, 0, 1e-12)
				algotest.Near(t, what+": variance of x̂", hv, v/(v+LNEps), 1e-12)
				i := k*T + tt
				algotest.Near(t, what+": Inside μ", in.MeanIn[i], mu, 1e-12)
				algotest.Near(t, what+": Inside σ²", in.VarIn[i], v, 1e-12*(1+v))
				algotest.Near(t, what+": Inside mean of x̂", in.MeanHat[i], 0, 1e-12)
				algotest.Near(t, what+": Inside variance of x̂", in.VarHat[i], v/(v+LNEps), 1e-12)
				if v < 1e-3 {
					t.Errorf("%s: σ² = %g, too small for the check to mean anything", what, v)
				}
			}
		}
	}
}

// TestInsideResidual: every block's output is rebuilt here from its
// input and its parameters alone, with attention written out (causal
// softmax(q·kᵀ/√d_k) per head, eq 2.10–2.12) and the ReLU feed-forward
// layer (eq 2.17): pre-norm h_ℓ₊₁ = h_ℓ + attn(LN₁(h_ℓ)) + ffn(LN₂(h_ℓ +
// attn)); post-norm h_ℓ₊₁ = LN₂(m + ffn(m)), m = LN₁(h_ℓ + attn(h_ℓ))
// (eq 2.16) — to 1e-12; and Inside's norms and ratios are those of the
// parts.
func TestInsideResidual(t *testing.T) {
	for _, norm := range []Norm{Pre, Post} {
		g, in, ids := inspected(t, norm)
		c := g.cfg
		d, T, H := c.Dim, len(ids), c.Heads
		dh := d / H
		for l, b := range g.blocks {
			tl := g.taps[l]
			row := func(x *tensor.Tensor, t int) []float64 { return x.Data[t*d : (t+1)*d] }
			// attention's input rows, then q, k, v of every position
			qkv := make([][]float64, T)
			for tt := range T {
				x := row(tl.in, tt)
				if norm == Pre {
					x, _ = layerNorm(x, b.ln1g.Data, b.ln1b.Data)
				}
				qkv[tt] = affine(x, b.wqkv.Data, b.bqkv.Data)
			}
			for tt := range T {
				cat := make([]float64, d)
				for h := range H {
					s := make([]float64, tt+1)
					top := math.Inf(-1)
					for j := range s {
						for u := range dh {
							s[j] += qkv[tt][h*dh+u] * qkv[j][d+h*dh+u]
						}
						s[j] /= math.Sqrt(float64(dh))
						top = max(top, s[j])
					}
					tot := 0.0
					for j := range s {
						s[j] = math.Exp(s[j] - top)
						tot += s[j]
					}
					for j := range s {
						for u := range dh {
							cat[h*dh+u] += s[j] / tot * qkv[j][2*d+h*dh+u]
						}
					}
				}
				attn := affine(cat, b.wo.Data, b.bo.Data)
				h0 := row(tl.in, tt)
				mid := make([]float64, d)
				for j := range mid {
					mid[j] = h0[j] + attn[j]
				}
				if norm == Post {
					mid, _ = layerNorm(mid, b.ln1g.Data, b.ln1b.Data)
				}
				x := mid
				if norm == Pre {
					x, _ = layerNorm(mid, b.ln2g.Data, b.ln2b.Data)
				}
				hid := affine(x, b.w1.Data, b.b1.Data)
				for j, v := range hid {
					hid[j] = max(v, 0)
				}
				ffn := affine(hid, b.w2.Data, b.b2.Data)
				out := make([]float64, d)
				for j := range out {
					out[j] = mid[j] + ffn[j]
				}
				if norm == Post {
					out, _ = layerNorm(out, b.ln2g.Data, b.ln2b.Data)
				}
				what := fmt.Sprintf("%s block %d position %d", norm, l, tt)
				for j := range out {
					algotest.Near(t, fmt.Sprintf("%s: h_ℓ₊₁[%d]", what, j), row(tl.out, tt)[j], out[j], 1e-12)
				}
				algotest.Near(t, what+": ‖h_ℓ₊₁‖", in.Stream[(2*l+2)*T+tt], norm2(out), 1e-12)
				algotest.Near(t, what+": ‖attn‖/‖h_ℓ‖", in.AttnAdds[l*T+tt], norm2(attn)/norm2(h0), 1e-12)
				algotest.Near(t, what+": ‖ffn‖/‖mid‖", in.FFNAdds[l*T+tt], norm2(ffn)/norm2(mid), 1e-12)
				on := 0
				for _, v := range hid {
					if v > 0 {
						on++
					}
				}
				algotest.Near(t, what+": active", in.Active[l*T+tt], float64(on)/float64(c.FFN), 0)
				if l == 0 {
					algotest.Near(t, what+": ‖h₀‖", in.Stream[tt], norm2(h0), 1e-12)
				}
			}
			if l+1 < len(g.blocks) && g.taps[l+1].in != tl.out {
				t.Errorf("%s: block %d's input is not block %d's output", norm, l+1, l)
			}
		}
	}
	g, _, _ := inspected(t, Pre)
	bad, _ := NewInside(g.Config(), 4)
	algotest.WantParam(t, g.Inspect(tensor.NewForwardTape(), []int{1, 2, 3}, bad), "inside")
	_, err := NewInside(g.Config(), 7)
	algotest.WantParam(t, err, "T")
}

func norm2(r []float64) float64 { return norm(r) }

// TestParamCounts (seed 000 §2.4): the parameters NewGPT makes are, in
// closed form, n_voc·d (the table C) + n_ctx·d (learned positions) + N
// (4d² + 2d·d_ff + d_ff + 9d) + 2d (pre-norm's final LayerNorm) + d·n_voc
// (an untied decoder D); tying (D = Cᵀ) saves exactly n_voc·d, and the
// count without embeddings does not depend on it.
func TestParamCounts(t *testing.T) {
	for _, c := range []GPTConfig{
		{Vocab: 29, Context: 32, Dim: 32, Heads: 4, Layers: 2, FFN: 128, Positions: Learned, Norm: Pre},
		{Vocab: 9, Context: 16, Dim: 12, Heads: 3, Layers: 3, FFN: 7, Positions: Fixed, Norm: Post},
		{Vocab: 50, Context: 8, Dim: 6, Heads: 1, Layers: 1, FFN: 24, Positions: NoneSeen, Norm: Pre},
	} {
		V, T, d, N, F := c.Vocab, c.Context, c.Dim, c.Layers, c.FFN
		want := V*d + N*(4*d*d+2*d*F+F+9*d)
		if c.Positions == Learned {
			want += T * d
		}
		if c.Norm == Pre {
			want += 2 * d
		}
		var counts [2]int
		for i, untied := range []bool{false, true} {
			c.Untied = untied
			g, err := NewGPT(c, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			w := want
			if untied {
				w += d * V
			}
			counts[i] = g.NumParams()
			if counts[i] != w || c.NumParams() != w {
				t.Errorf("%+v: %d parameters (formula %d), want %d", c, counts[i], c.NumParams(), w)
			}
			emb := V * d * (1 + b2i(untied))
			if c.Positions == Learned {
				emb += T * d
			}
			if c.EmbeddingParams() != emb || w-emb != want-(V*d+b2i(c.Positions == Learned)*T*d) {
				t.Errorf("%+v: %d embedding parameters, want %d", c, c.EmbeddingParams(), emb)
			}
		}
		if counts[1]-counts[0] != c.Vocab*c.Dim {
			t.Errorf("%+v: untying adds %d parameters, want V·d = %d", c, counts[1]-counts[0], c.Vocab*c.Dim)
		}
		if sizes := c.ParamSizes(); sum(sizes) != counts[1] {
			t.Errorf("%+v: ParamSizes total %d, want %d", c, sum(sizes), counts[1])
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// TestTiedGradient (seed 000 eq 2.6, L931): with D = Cᵀ the gradient of
// the loss with respect to C is the sum of its two uses' — through the
// embedding lookup and through the decoder. An untied twin whose D is set
// to Cᵀ computes the same logits (to rounding) and gives the two parts
// separately: the tied gradient equals ∂C + ∂Dᵀ to 1e-12, both parts are
// far from 0, and the tied gradient matches central differences (max
// relative error 1e-5, gradcheck, as TestGPTGradients).
func TestTiedGradient(t *testing.T) {
	cfg := GPTConfig{Vocab: 5, Context: 4, Dim: 4, Heads: 2, Layers: 1, FFN: 6, Positions: Learned, Norm: Pre}
	tied, err := NewGPT(cfg, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Untied = true
	twin, err := NewGPT(cfg, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range tied.Params() {
		copy(twin.Params()[i].Data, p.Data)
	}
	V, d := cfg.Vocab, cfg.Dim
	for v := range V {
		for j := range d {
			twin.out.Data[j*V+v] = tied.tok.Data[v*d+j]
		}
	}
	ids, next := []int{1, 4, 4, 2, 0, 3, 2, 2}, []int{4, 4, 2, 0, 3, 2, 2, 1}
	grad := func(g *GPT) float64 {
		tp := tensor.NewTape()
		loss := tp.CrossEntropy(g.Forward(tp, ids, 2, 4), next)
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
		return loss.Data[0]
	}
	for _, g := range []*GPT{tied, twin} {
		for _, p := range g.Params() {
			clear(p.Grad)
		}
	}
	lt, lu := grad(tied), grad(twin)
	algotest.Near(t, "loss of the untied twin", lu, lt, 1e-12)
	lookup, dec := 0.0, 0.0
	for v := range V {
		for j := range d {
			a, b := twin.tok.Grad[v*d+j], twin.out.Grad[j*V+v]
			algotest.Near(t, fmt.Sprintf("∂C[%d,%d]", v, j), tied.tok.Grad[v*d+j], a+b, 1e-12)
			lookup, dec = lookup+a*a, dec+b*b
		}
	}
	if math.Sqrt(lookup) < 1e-3 || math.Sqrt(dec) < 1e-3 {
		t.Errorf("the parts of ∂C: lookup ‖%.3g‖, decoder ‖%.3g‖", math.Sqrt(lookup), math.Sqrt(dec))
	}
	r, err := gradcheck.Model(func(tp *tensor.Tape) *tensor.Tensor {
		return tp.CrossEntropy(tied.Forward(tp, ids, 2, 4), next)
	}, []*tensor.Tensor{tied.tok}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxRel > 1e-5 {
		t.Errorf("∂C: max relative error %.3g against central differences", r.MaxRel)
	}
}

// TestGreedyDecoding (seed 001 [A20]): greedy decoding (τ = 0) appends
// the argmax of each step's logits, recomputed here from a pass over the
// text so far; it equals sampling at τ = 1 with top-k = 1, whatever the
// random stream; and it is deterministic: two streams give one text.
// Extend stops after the n tokens asked for (the length guard).
func TestGreedyDecoding(t *testing.T) {
	g := tinyGPT(t, Learned, Pre, false)
	greedy, _ := NewSampler(0, 0, 1)
	top1, _ := NewSampler(1, 1, 1)
	prompt := []int{2}
	var texts [][]int
	for i, s := range []*Sampler{greedy, greedy, top1, top1} {
		gen := NewGenerator(g, 0)
		out, err := gen.Extend(slices.Clone(prompt), 9, s, rand.New(rand.NewPCG(uint64(i), 77)))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 10 {
			t.Fatalf("%d tokens, want 10", len(out))
		}
		texts = append(texts, out)
	}
	for i := 1; i < len(texts); i++ {
		if !slices.Equal(texts[i], texts[0]) {
			t.Errorf("decode %d: %v, greedy %v", i, texts[i], texts[0])
		}
	}
	tp := tensor.NewForwardTape()
	for n := 1; n < len(texts[0]); n++ {
		w := texts[0][max(0, n-4):n]
		tp.Rewind()
		z := g.Forward(tp, w, 1, len(w)).Data[(len(w)-1)*5:]
		best := 0
		for i, v := range z {
			if v > z[best] {
				best = i
			}
		}
		if texts[0][n] != best {
			t.Errorf("token %d: %d, argmax %d of %v", n, texts[0][n], best, z)
		}
	}
}
