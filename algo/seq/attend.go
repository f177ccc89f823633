package seq

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/algo/tensor"
	"gonum.org/v1/gonum/mat"
)

// Bounds of a SelfAttention.
const (
	MaxAttnHeads = 4
	MaxAttnDim   = 256
)

// SelfAttention is multi-head self-attention with its own projections per
// head (seed 002 G3, G6, L3226–3232, L3357–3365; seed 000 §2.5): for
// tokens X [T, d_model], head h has Q = X W_Q^h, K = X W_K^h, V = X W_V^h
// (each [d_model, d_k]) and output softmax(s·Q Kᵀ) V with s = 1/√d_k
// (L3232) or, to show why it is there, s = 1. Row i of the weights is
// query i's convex combination of the values (L3238).
type SelfAttention struct {
	dmodel, dk int
	wq, wk, wv []*tensor.Tensor
}

// NewSelfAttention draws the projections of heads heads (1..MaxAttnHeads)
// from d_model to d_k (1..MaxAttnDim) dimensions with entries
// N(0, 1/d_model), so that a projected coordinate of a token with N(0,1)
// entries has variance about 1 and a query–key product variance d_k.
func NewSelfAttention(dmodel, dk, heads int, rng *rand.Rand) (*SelfAttention, error) {
	switch {
	case dmodel < 1 || dmodel > MaxAttnHeads*MaxAttnDim:
		return nil, algo.BadParam("d_model", dmodel, fmt.Sprintf("in 1..%d", MaxAttnHeads*MaxAttnDim))
	case dk < 1 || dk > MaxAttnDim:
		return nil, algo.BadParam("d_k", dk, fmt.Sprintf("in 1..%d", MaxAttnDim))
	case heads < 1 || heads > MaxAttnHeads:
		return nil, algo.BadParam("heads", heads, fmt.Sprintf("in 1..%d", MaxAttnHeads))
	case rng == nil:
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	a := &SelfAttention{dmodel: dmodel, dk: dk}
	sd := 1 / math.Sqrt(float64(dmodel))
	draw := func() *tensor.Tensor {
		w := make([]float64, dmodel*dk)
		for i := range w {
			w[i] = sd * rng.NormFloat64()
		}
		t, _ := tensor.FromData(w, dmodel, dk)
		return t
	}
	for range heads {
		a.wq, a.wk, a.wv = append(a.wq, draw()), append(a.wk, draw()), append(a.wv, draw())
	}
	return a, nil
}

// Heads is the number of heads.
func (a *SelfAttention) Heads() int { return len(a.wq) }

// Apply attends x [T, d_model] on tp, each head's scores scaled by 1/√d_k
// when scaled and by 1 otherwise, causally when causal, and returns each
// head's output [T, d_k] and weights [T, T] (tape tensors, valid until tp
// is rewound).
func (a *SelfAttention) Apply(tp *tensor.Tape, x *tensor.Tensor, scaled, causal bool) (out, weights []*tensor.Tensor) {
	s := 1.0
	if scaled {
		s = 1 / math.Sqrt(float64(a.dk))
	}
	for h := range a.wq {
		o, w := tp.ScaledAttention(tp.MatMul(x, a.wq[h]), tp.MatMul(x, a.wk[h]), tp.MatMul(x, a.wv[h]), s, causal)
		out, weights = append(out, o), append(weights, w)
	}
	return out, weights
}

// RowEntropy is the mean entropy in nats of the rows of a T×T weight
// matrix: log T for uniform rows, 0 for one-hot ones.
func RowEntropy(w []float64, T int) float64 {
	h := 0.0
	for i := range T {
		h += Entropy(w[i*T : (i+1)*T])
	}
	return h / float64(T)
}

// EntropyByDim is the mean row entropy of softmax(s·Q Kᵀ) for T queries
// and keys with independent N(0,1) entries in d dimensions, for each d of
// dims, averaged over draws draws: with s = 1/√d (scaled) each score has
// variance 1 whatever d, and the entropy stays put; with s = 1 the
// variance is d and the rows collapse to one-hot as d grows (the reason
// for the √d_k, seed 000 L992, seed 002 L3307).
func EntropyByDim(T int, dims []int, draws int, scaled bool, rng *rand.Rand) ([]float64, error) {
	if T < 1 || draws < 1 || rng == nil {
		return nil, algo.BadParam("T, draws", fmt.Sprintf("%d, %d", T, draws), "≥ 1, with a random source")
	}
	out := make([]float64, len(dims))
	tp := tensor.NewTape()
	for i, d := range dims {
		if d < 1 || d > MaxAttnDim {
			return nil, algo.BadParam("d", d, fmt.Sprintf("in 1..%d", MaxAttnDim))
		}
		q, _ := tensor.New(T, d)
		k, _ := tensor.New(T, d)
		s := 1.0
		if scaled {
			s = 1 / math.Sqrt(float64(d))
		}
		for range draws {
			for j := range q.Data {
				q.Data[j], k.Data[j] = rng.NormFloat64(), rng.NormFloat64()
			}
			tp.Rewind()
			_, w := tp.ScaledAttention(q, k, k, s, false)
			if err := tp.Err(); err != nil {
				return nil, err
			}
			out[i] += RowEntropy(w.Data, T) / float64(draws)
		}
	}
	return out, nil
}

// Smoother compares two ways of predicting at x from data (x_j, y_j)
// (seed 002 G5, L3325–3349): kernel regression, the GP posterior mean,
// f̂(x) = Σ_j w_j(x) y_j with w(x) = k(x, X)(K + σ²I)⁻¹, whose weights are
// signed and need not sum to one; and attention with the score s(x, x_j)
// = −(x − x_j)²/(2ℓ²), whose softmax weights are the squared-exponential
// kernel's values normalised to sum to one — the Nadaraya–Watson
// smoother, a convex combination.
type Smoother struct {
	x, y  []float64
	k     kernel.RBF
	chol  mat.Cholesky
	cross []float64
}

// NewSmoother prepares both smoothers on data x, y with the length-scale
// ell > 0 and noise variance σ² ≥ 0 (0: interpolation, which needs
// distinct inputs).
func NewSmoother(x, y []float64, ell, noise float64) (*Smoother, error) {
	switch {
	case len(x) < 1 || len(x) != len(y):
		return nil, algo.BadParam("data", fmt.Sprintf("%d inputs, %d outputs", len(x), len(y)), "as many of each, at least one")
	case !(ell > 0) || math.IsInf(ell, 0):
		return nil, algo.BadParam("ell", ell, "finite and > 0")
	case !(noise >= 0) || math.IsInf(noise, 0):
		return nil, algo.BadParam("noise", noise, "finite and ≥ 0")
	}
	s := &Smoother{x: x, y: y, k: kernel.RBF{Gamma: 1 / (2 * ell * ell)}, cross: make([]float64, len(x))}
	n := len(x)
	g := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := s.k.FromDot(x[i]*x[j], x[i]*x[i], x[j]*x[j])
			if i == j {
				v += noise
			}
			g.SetSym(i, j, v)
		}
	}
	if !s.chol.Factorize(g) || s.chol.Cond() > 1e13 {
		return nil, algo.BadParam("noise", noise, "larger: K + σ²I is singular to working precision (inputs too close for ℓ)")
	}
	return s, nil
}

// GP writes into w (len n) the kernel-regression weights at x and returns
// the prediction Σ w_j y_j.
func (s *Smoother) GP(x float64, w []float64) float64 {
	for j, xj := range s.x {
		s.cross[j] = s.k.FromDot(x*xj, x*x, xj*xj)
	}
	dst := mat.NewVecDense(len(w), w)
	_ = s.chol.SolveVecTo(dst, mat.NewVecDense(len(s.cross), s.cross)) // K is symmetric: w = (K+σ²I)⁻¹ k(X, x)
	return mat.Dot(dst, mat.NewVecDense(len(s.y), s.y))
}

// Attention writes into w the softmax weights of the query x over the keys
// x_j and returns the prediction Σ w_j y_j.
func (s *Smoother) Attention(x float64, w []float64) float64 {
	top := math.Inf(-1)
	for j, xj := range s.x {
		w[j] = -s.k.Gamma * (x - xj) * (x - xj)
		top = max(top, w[j])
	}
	z := 0.0
	for j := range w {
		w[j] = math.Exp(w[j] - top)
		z += w[j]
	}
	f := 0.0
	for j := range w {
		w[j] /= z
		f += w[j] * s.y[j]
	}
	return f
}
