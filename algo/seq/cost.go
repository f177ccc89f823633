package seq

// Cost is the notes' cost model of a decoder-only transformer (seed 000
// §2.7, L1108–1143) with this package's constants: multiply–adds of one
// forward pass over a sequence of n tokens, for N layers with d_k = d_v =
// d_emb summed over the heads:
//
//	Attention  N (d_k + d_v) n²                 the scores Q·Kᵀ and the weighted sum of V
//	Dense      N 2(d_k + d_v + d_ff) d_emb n     Q, K, V and output projections (3d_k·d_emb + d_v·d_emb)
//	                                            and the feed-forward layer (2 d_ff·d_emb)
//	Decoder    d_emb n_voc n                     the logits (left out by the notes: "n_voc does
//	                                            not appear in the complexity", L1143)
//
// which is eq 2.18–2.19 with its constants: the N d_emb n² term dominates
// for long sequences and the N d_emb² n term for wide models (L1140–1141);
// doubling n multiplies the sum by → 4 when n ≫ d_emb and by → 2 when n ≪
// d_emb. The two terms cross at n = 2(d_k + d_v + d_ff) d_emb / (d_k + d_v)
// (3 d_emb when every dimension is d_emb, the notes' simplification eq
// 2.20; 6 d_emb with d_ff = 4 d_emb).
type Cost struct {
	Attention, Dense, Decoder float64
}

// Forward is the multiply–adds of one forward pass.
func (c Cost) Forward() float64 { return c.Attention + c.Dense + c.Decoder }

// TrainFLOPs is the floating-point operations of one training step on B
// sequences: 2 per multiply–add, and the backward pass twice the forward
// (two products per product: one for the input's gradient, one for the
// weights'), so 6 per multiply–add per sequence.
func (c Cost) TrainFLOPs(B int) float64 { return 6 * float64(B) * c.Forward() }

// CostOf is the cost of a model of configuration cfg on n tokens.
func CostOf(cfg GPTConfig, n int) Cost {
	N, d, f, nn := float64(cfg.Layers), float64(cfg.Dim), float64(cfg.FFN), float64(n)
	return Cost{
		Attention: N * 2 * d * nn * nn,
		Dense:     N * 2 * (2*d + f) * d * nn,
		Decoder:   d * float64(cfg.Vocab) * nn,
	}
}

// Crossover is the n at which the attention and dense terms are equal.
func (cfg GPTConfig) Crossover() float64 {
	d, f := float64(cfg.Dim), float64(cfg.FFN)
	return 2 * (2*d + f) * d / (2 * d)
}

// NumParams counts the parameters of a model of configuration cfg without
// building it: the embedding n_voc·d, learned positions n_ctx·d, per layer
// two LayerNorms (4d), the Q, K, V projection with biases (3d² + 3d), the
// output projection (d² + d) and the feed-forward layer (2 d·d_ff + d_ff +
// d); a final LayerNorm (2d) before a pre-norm decoder; an untied decoder
// (d·n_voc: tying saves exactly that).
func (cfg GPTConfig) NumParams() int {
	d, V := cfg.Dim, cfg.Vocab
	n := V * d
	if cfg.Positions == Learned {
		n += cfg.Context * d
	}
	n += cfg.Layers * (4*d + 3*d*d + 3*d + d*d + d + 2*d*cfg.FFN + cfg.FFN + d)
	if cfg.Norm == Pre {
		n += 2 * d
	}
	if cfg.Untied {
		n += d * V
	}
	return n
}

// EmbeddingParams counts the parameters that map tokens and positions to
// vectors and back (seed 000 §2.4): the token table n_voc·d, learned
// positions n_ctx·d and an untied decoder d·n_voc. The rest, NumParams
// less these, is what Kaplan et al. (2020) count as a transformer's size
// ("non-embedding parameters"): the blocks and LayerNorms, which tying
// leaves unchanged.
func (cfg GPTConfig) EmbeddingParams() int {
	n := cfg.Vocab * cfg.Dim
	if cfg.Positions == Learned {
		n += cfg.Context * cfg.Dim
	}
	if cfg.Untied {
		n += cfg.Dim * cfg.Vocab
	}
	return n
}

// CostPart names a term of the cost model.
type CostPart int

// The terms of Cost.
const (
	PartAttention CostPart = iota // the scores Q·Kᵀ and the weighted sum of V
	PartDense                     // the projections and the feed-forward layer
	PartDecoder                   // the logits
)

// MatProduct is one matrix product of a forward pass, done Count times
// (once per layer, or per layer and head): an M×K matrix by a K×N one,
// M·K·N multiply–adds each.
type MatProduct struct {
	Name    string
	Part    CostPart
	Count   int
	M, K, N int
}

// MulAdds is the product's multiply–adds, all Count of them.
func (p MatProduct) MulAdds() float64 {
	return float64(p.Count) * float64(p.M) * float64(p.K) * float64(p.N)
}

// Products walks the matrix products of GPT.Forward on one sequence of n
// tokens, in its order: in each of the N layers the fused Q, K, V
// projection X·W_QKV [n, d]·[d, 3d], in each head h the scores Q·Kᵀ
// [n, d_k]·[d_k, n] and the weighted sum A·V [n, n]·[n, d_v] (d_k = d_v =
// d/h; the causal mask sets scores after the product, so all n² are
// computed), the output projection [n, d]·[d, d] and the feed-forward
// layer [n, d]·[d, d_ff] then [n, d_ff]·[d_ff, d]; then the decoder [n,
// d]·[d, n_voc]. Their multiply–adds add up to CostOf's terms, which is
// how the closed form is checked.
func (cfg GPTConfig) Products(n int) []MatProduct {
	N, d, f, h := cfg.Layers, cfg.Dim, cfg.FFN, max(cfg.Heads, 1)
	dh := d / h
	return []MatProduct{
		{Name: "QKV proj", Part: PartDense, Count: N, M: n, K: d, N: 3 * d},
		{Name: "scores QKᵀ", Part: PartAttention, Count: N * h, M: n, K: dh, N: n},
		{Name: "weights·V", Part: PartAttention, Count: N * h, M: n, K: n, N: dh},
		{Name: "out proj", Part: PartDense, Count: N, M: n, K: d, N: d},
		{Name: "FFN W₁", Part: PartDense, Count: N, M: n, K: d, N: f},
		{Name: "FFN W₂", Part: PartDense, Count: N, M: n, K: f, N: d},
		{Name: "logits", Part: PartDecoder, Count: 1, M: n, K: d, N: cfg.Vocab},
	}
}
