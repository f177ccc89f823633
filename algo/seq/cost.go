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
// (d·n_voc + n_voc).
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
		n += d*V + V
	}
	return n
}
