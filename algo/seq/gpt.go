package seq

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// Model is a next-token model on the tape: Forward maps a batch of B
// sequences of T token ids (row-major, ids[b·T + t]) to logits [B, T, V],
// the scores of token t+1 given tokens 0..t of each sequence.
type Model interface {
	Forward(tp *tensor.Tape, ids []int, B, T int) *tensor.Tensor
	Params() []*tensor.Tensor
	Vocab() int
	// Context is the longest T Forward takes (0: any).
	Context() int
}

// Positions names how a transformer knows where a token is.
type Positions string

// The positional encodings: learned rows added to the embeddings (GPT-2),
// the fixed sinusoids of eq 2.13 (seed 000 L1041), or none — without them
// attention is permutation-equivariant (seed 002 L3262) and a causal model
// sees only how many tokens came before.
const (
	Learned  Positions = "learned"
	Fixed    Positions = "sinusoidal"
	NoneSeen Positions = "none"
)

func (p Positions) String() string { return string(p) }

// Norm names where a transformer block normalises.
type Norm string

// Post is the notes' block, LayerNorm(x + Attention(x)) then LayerNorm(x +
// FFN(x)) (seed 000 eq 2.16, L1082; seed 002 Remark 7.5); Pre normalises
// each branch's input instead, x + Attention(LayerNorm(x)), with a final
// LayerNorm (GPT-2), which trains more easily as blocks are stacked.
const (
	Post Norm = "post"
	Pre  Norm = "pre"
)

func (n Norm) String() string { return string(n) }

// Bounds of a GPT's configuration.
const (
	MaxDim     = 256
	MaxHeads   = 16
	MaxLayers  = 8
	MaxContext = 256
	MaxFFN     = 1024
)

// GPTConfig is a decoder-only transformer's shape.
type GPTConfig struct {
	Vocab   int // n_voc
	Context int // n_ctx, the longest sequence
	Dim     int // d_emb (= h·d_k, the heads' dimensions together)
	Heads   int // h, dividing Dim
	Layers  int // N
	FFN     int // d_ff, the hidden width of the feed-forward layers
	Positions
	Norm
	// Untied gives the output layer its own matrix D [d, n_voc] (no bias,
	// as the tied decoder and GPT-2's); by default the decoder is the
	// embedding transposed, D = Cᵀ (seed 000 eq 2.6, L931: "forcing D =
	// Cᵀ works well in practice"), which saves exactly n_voc·d
	// parameters and sends the embedding the gradients of both its uses.
	Untied bool
}

// LNEps is the ε inside LayerNorm's square root (catalogue §2.9: not in
// the notes, needed for a constant row).
const LNEps = 1e-5

func (c GPTConfig) validate() error {
	for _, b := range []struct {
		name    string
		v, a, z int
	}{
		{"vocab", c.Vocab, 1, 1 << 16}, {"context", c.Context, 1, MaxContext}, {"dim", c.Dim, 1, MaxDim},
		{"heads", c.Heads, 1, MaxHeads}, {"layers", c.Layers, 1, MaxLayers}, {"ffn", c.FFN, 1, MaxFFN},
	} {
		if b.v < b.a || b.v > b.z {
			return algo.BadParam(b.name, b.v, fmt.Sprintf("in %d..%d", b.a, b.z))
		}
	}
	if c.Dim%c.Heads != 0 {
		return algo.BadParam("heads", c.Heads, fmt.Sprintf("a divisor of dim = %d", c.Dim))
	}
	switch c.Positions {
	case Learned, Fixed, NoneSeen:
	default:
		return algo.BadParam("positions", c.Positions, fmt.Sprintf("%s, %s or %s", Learned, Fixed, NoneSeen))
	}
	switch c.Norm {
	case Pre, Post:
	default:
		return algo.BadParam("norm", c.Norm, fmt.Sprintf("%s or %s", Pre, Post))
	}
	return nil
}

// block is one transformer layer's parameters.
type block struct {
	ln1g, ln1b, wqkv, bqkv, wo, bo *tensor.Tensor
	ln2g, ln2b, w1, b1, w2, b2     *tensor.Tensor
}

// GPT is a decoder-only transformer (seed 000 §2.6, seed 002 G6, seed 001
// [A19]): token embeddings C x plus positions, N blocks of masked
// multi-head self-attention and a ReLU feed-forward layer W₂ReLU(W₁x +
// b₁) + b₂ (eq 2.17), each with a residual connection and LayerNorm, and a
// linear decoder to the logits of the next token (softmax in the loss).
// Attention is causal: a token sees itself and the past, so one forward
// pass scores every position of a sequence (eq 2.11's mask, in the Q·Kᵀ
// layout: erratum 8). The heads split d_emb: d_k = d_v = d_emb/h, and the
// scores are scaled by 1/√d_k as in Vaswani et al. ([A19] notes that seed
// 001 scales by √d even inside heads).
type GPT struct {
	cfg        GPTConfig
	tok, pos   *tensor.Tensor // [V, d]; learned positions [T, d] (nil otherwise)
	fixed      *tensor.Tensor // sinusoids [T, d], no gradient (nil otherwise)
	blocks     []block
	lnfg, lnfb *tensor.Tensor // final LayerNorm (pre-norm only)
	out        *tensor.Tensor // untied decoder [d, V]
	params     []*tensor.Tensor
	taps       []taps // [layer] the tensors of the last Forward (Inspect)
	final      lnTap  // the final LayerNorm's (pre-norm)

	heads   []*tensor.Tensor   // per-head outputs, for Concat
	weights [][]*tensor.Tensor // [layer][head] attention weights of the last Forward
}

// NewGPT builds a transformer with weights drawn from rng: matrices by
// Xavier's rule, the embedding and learned positions N(0, 0.1²) (Xavier's
// scale over a [V, d] table would make the tied decoder's logits large),
// biases 0, LayerNorm gains 1.
func NewGPT(cfg GPTConfig, rng *rand.Rand) (*GPT, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	g := &GPT{cfg: cfg}
	d, V := cfg.Dim, cfg.Vocab
	bld := &builder{rng: rng}
	mk := bld.param
	ones := func(n int) *tensor.Tensor {
		t := mk(tensor.Zeros, n)
		if t != nil {
			for i := range t.Data {
				t.Data[i] = 1
			}
		}
		return t
	}
	normal := func(sd float64, dims ...int) *tensor.Tensor {
		t := mk(tensor.Zeros, dims...)
		if t != nil {
			for i := range t.Data {
				t.Data[i] = sd * rng.NormFloat64()
			}
		}
		return t
	}
	g.tok = normal(0.1, V, d)
	switch cfg.Positions {
	case Learned:
		g.pos = normal(0.1, cfg.Context, d)
	case Fixed:
		pe, _ := Sinusoidal(cfg.Context, d)
		g.fixed, _ = tensor.FromData(pe, cfg.Context, d)
	}
	for range cfg.Layers {
		g.blocks = append(g.blocks, block{
			ln1g: ones(d), ln1b: mk(tensor.Zeros, d),
			wqkv: mk(tensor.Xavier, d, 3*d), bqkv: mk(tensor.Zeros, 3*d),
			wo: mk(tensor.Xavier, d, d), bo: mk(tensor.Zeros, d),
			ln2g: ones(d), ln2b: mk(tensor.Zeros, d),
			w1: mk(tensor.Xavier, d, cfg.FFN), b1: mk(tensor.Zeros, cfg.FFN),
			w2: mk(tensor.Xavier, cfg.FFN, d), b2: mk(tensor.Zeros, d),
		})
	}
	if cfg.Norm == Pre {
		g.lnfg, g.lnfb = ones(d), mk(tensor.Zeros, d)
	}
	if cfg.Untied {
		g.out = mk(tensor.Xavier, d, V)
	}
	if bld.err != nil {
		return nil, bld.err
	}
	g.params = bld.params
	g.heads = make([]*tensor.Tensor, cfg.Heads)
	g.weights = make([][]*tensor.Tensor, cfg.Layers)
	g.taps = make([]taps, cfg.Layers)
	for l := range g.weights {
		g.weights[l] = make([]*tensor.Tensor, cfg.Heads)
	}
	return g, nil
}

// Config is the model's shape.
func (g *GPT) Config() GPTConfig { return g.cfg }

// Params lists the parameter tensors (for an optimiser).
func (g *GPT) Params() []*tensor.Tensor { return g.params }

// Vocab is n_voc.
func (g *GPT) Vocab() int { return g.cfg.Vocab }

// Context is n_ctx.
func (g *GPT) Context() int { return g.cfg.Context }

// NumParams counts the parameters.
func (g *GPT) NumParams() int { return countParams(g.params) }

func countParams(ps []*tensor.Tensor) int {
	n := 0
	for _, p := range ps {
		n += p.Size()
	}
	return n
}

// Forward returns the logits [B, T, V] of B sequences of T ≤ n_ctx tokens
// (other shapes fail the tape: its Backward or Err reports it). The
// attention weights of every layer and head, [B, T, T] tape tensors,
// stay readable through Weights until the tape is rewound, as do each
// block's inner tensors, which Inspect reads.
func (g *GPT) Forward(tp *tensor.Tape, ids []int, B, T int) *tensor.Tensor {
	c := g.cfg
	d := c.Dim
	if B < 1 || T < 1 || T > c.Context || len(ids) != B*T {
		return tp.Fail("GPT", algo.BadParam("ids", fmt.Sprintf("%d tokens as %d×%d", len(ids), B, T), fmt.Sprintf("B·T tokens, 1 ≤ T ≤ n_ctx = %d", c.Context)))
	}
	x := tp.Reshape(tp.Embedding(g.tok, ids), B, T, d)
	switch {
	case g.pos != nil:
		x = tp.Add(x, g.window(tp, g.pos, T))
	case g.fixed != nil:
		x = tp.Add(x, g.window(tp, g.fixed, T))
	}
	dh := d / c.Heads
	for l := range g.blocks {
		bl, tl := &g.blocks[l], &g.taps[l]
		tl.in = x
		h := x
		if c.Norm == Pre {
			h = tp.LayerNorm(x, bl.ln1g, bl.ln1b, LNEps)
			tl.ln1 = lnTap{x, h}
		}
		qkv := tp.Linear(h, bl.wqkv, bl.bqkv) // [B, T, 3d]
		for i := range c.Heads {
			q := tp.Slice(qkv, -1, i*dh, (i+1)*dh)
			k := tp.Slice(qkv, -1, d+i*dh, d+(i+1)*dh)
			v := tp.Slice(qkv, -1, 2*d+i*dh, 2*d+(i+1)*dh)
			g.heads[i], g.weights[l][i] = tp.Attention(q, k, v, true)
		}
		a := g.heads[0]
		if c.Heads > 1 {
			a = tp.Concat(-1, g.heads...)
		}
		tl.attn = tp.Linear(a, bl.wo, bl.bo)
		x = tp.Add(x, tl.attn)
		if c.Norm == Post {
			sum := x
			x = tp.LayerNorm(x, bl.ln1g, bl.ln1b, LNEps)
			tl.ln1 = lnTap{sum, x}
			h = x
		} else {
			h = tp.LayerNorm(x, bl.ln2g, bl.ln2b, LNEps)
			tl.ln2 = lnTap{x, h}
		}
		tl.mid = x
		tl.hidden = tp.Relu(tp.Linear(h, bl.w1, bl.b1))
		tl.ffn = tp.Linear(tl.hidden, bl.w2, bl.b2)
		x = tp.Add(x, tl.ffn)
		if c.Norm == Post {
			sum := x
			x = tp.LayerNorm(x, bl.ln2g, bl.ln2b, LNEps)
			tl.ln2 = lnTap{sum, x}
		}
		tl.out = x
	}
	if c.Norm == Pre {
		y := tp.LayerNorm(x, g.lnfg, g.lnfb, LNEps)
		g.final, x = lnTap{x, y}, y
	}
	if g.out != nil {
		return tp.MatMul(x, g.out)
	}
	return tp.MatMulT(x, g.tok)
}

// window is the first T rows of a [n_ctx, d] table.
func (g *GPT) window(tp *tensor.Tape, t *tensor.Tensor, T int) *tensor.Tensor {
	if T == g.cfg.Context {
		return t
	}
	return tp.Slice(t, 0, 0, T)
}

// Weights is the attention weights [B, T, T] of head h of layer l from the
// last Forward (valid until its tape is rewound).
func (g *GPT) Weights(l, h int) *tensor.Tensor { return g.weights[l][h] }
