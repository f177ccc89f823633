package seq

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/algo/tensor"
	"gonum.org/v1/gonum/mat"
)

// MaxHidden bounds an RNN's state.
const MaxHidden = 256

// RNN is the simple recurrent network of seed 000 eq 2.8 (L954) and seed
// 002 L3178–3182, in the row layout:
//
//	h_t = tanh(h_{t−1} W + x_t U + b),   ŷ_t = softmax(h_t V + c),
//
// with x_t U the row of U for token x_t (an embedding) and h_0 = 0.
// Training unrolls it over the T tokens of each sequence (backpropagation
// through time).
type RNN struct {
	v, hidden      int
	u, w, b, vo, c *tensor.Tensor
	params         []*tensor.Tensor

	zero  map[int]*tensor.Tensor // h_0 = 0 per batch size
	col   []int                  // the tokens at one time step, across the batch
	steps []*tensor.Tensor       // h_t as [B, 1, H], for Concat
	h     *tensor.Tensor         // the states [B, T, H] of the last Forward
}

// NewRNN builds a character RNN over v tokens with a state of hidden
// units. W starts as rho times a random orthogonal matrix, so that its
// spectral radius (and every singular value) is rho: below 1 the state
// forgets and gradients through time vanish, above 1 they explode (§2.4,
// L960). U and V are drawn by Xavier's rule from rng; biases start at 0.
func NewRNN(v, hidden int, rho float64, rng *rand.Rand) (*RNN, error) {
	if v < 1 || v > 1<<16 {
		return nil, algo.BadParam("vocab", v, "in 1..65536")
	}
	if hidden < 1 || hidden > MaxHidden {
		return nil, algo.BadParam("hidden", hidden, fmt.Sprintf("in 1..%d", MaxHidden))
	}
	if !(rho >= 0 && rho <= 10) {
		return nil, algo.BadParam("rho", rho, "in [0, 10]")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	r := &RNN{v: v, hidden: hidden, zero: map[int]*tensor.Tensor{}}
	bld := &builder{rng: rng}
	mk := bld.param
	r.u = mk(tensor.Xavier, v, hidden)
	r.w = mk(tensor.Zeros, hidden, hidden)
	r.b = mk(tensor.Zeros, hidden)
	r.vo = mk(tensor.Xavier, hidden, v)
	r.c = mk(tensor.Zeros, v)
	if bld.err != nil {
		return nil, bld.err
	}
	r.params = bld.params
	copy(r.w.Data, ScaledOrthogonal(hidden, rho, rng))
	return r, nil
}

// ScaledOrthogonal returns rho·Q, row-major n×n, for Q the orthogonal
// factor of the QR decomposition of a matrix of standard normals (signs
// fixed so that Q is Haar-distributed): every singular value and every
// eigenvalue's modulus is rho, and ‖(ρQ)^T‖₂ = ρ^T exactly.
func ScaledOrthogonal(n int, rho float64, rng *rand.Rand) []float64 {
	a := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	out := make([]float64, n*n)
	for j := range n {
		s := rho
		if r.At(j, j) < 0 {
			s = -rho
		}
		for i := range n {
			out[i*n+j] = s * q.At(i, j)
		}
	}
	return out
}

// Params lists the parameter tensors U, W, b, V, c.
func (r *RNN) Params() []*tensor.Tensor { return r.params }

// Vocab is the number of tokens.
func (r *RNN) Vocab() int { return r.v }

// Context is 0: an RNN reads sequences of any length.
func (r *RNN) Context() int { return 0 }

// Hidden is the size of the state.
func (r *RNN) Hidden() int { return r.hidden }

// NumParams counts the parameters.
func (r *RNN) NumParams() int { return countParams(r.params) }

// W is the recurrent matrix (row layout: h_t = tanh(h_{t−1}W + …)), live.
func (r *RNN) W() []float64 { return r.w.Data }

// Forward unrolls the RNN over B sequences of T tokens and returns the
// logits [B, T, V].
func (r *RNN) Forward(tp *tensor.Tape, ids []int, B, T int) *tensor.Tensor {
	H := r.hidden
	if B < 1 || T < 1 || len(ids) != B*T {
		return tp.Fail("RNN", algo.BadParam("ids", len(ids), fmt.Sprintf("B·T = %d·%d tokens", B, T)))
	}
	h0, ok := r.zero[B]
	if !ok {
		h0, _ = tensor.FromData(make([]float64, B*H), B, H)
		r.zero[B] = h0
	}
	r.col = grow(r.col, B)
	r.steps = r.steps[:0]
	h := h0
	for t := range T {
		for b := range B {
			r.col[b] = ids[b*T+t]
		}
		h = tp.Tanh(tp.Add(tp.Linear(h, r.w, r.b), tp.Embedding(r.u, r.col)))
		r.steps = append(r.steps, tp.Reshape(h, B, 1, H))
	}
	r.h = r.steps[0]
	if T > 1 {
		r.h = tp.Concat(1, r.steps...)
	}
	return tp.Linear(r.h, r.vo, r.c)
}

// States is h_1 … h_T of the last Forward, [B, T, H] (valid until its tape
// is rewound).
func (r *RNN) States() *tensor.Tensor { return r.h }

func grow[T any](b []T, n int) []T {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]T, n)
}

// JacobianNorms returns ‖∂h_t/∂h_0‖₂ for t = 1..len(pre) of the recursion
// h_t = σ(h_{t−1} W + u_t), with W row-major n×n and u_t = pre[t−1]:
// σ = tanh when tanh is set (∂h_t/∂h_{t−1} = diag(1 − h_t²) Wᵀ in the
// column convention), the identity otherwise (∂h_T/∂h_0 = (Wᵀ)^T). The
// norm is the largest singular value of the product (seed 000 §2.4,
// catalogue §2.5: with W = ρQ, Q orthogonal, the linear norm is exactly
// ρ^T — 0.9⁵⁰ = 0.00515, 1.1⁵⁰ = 117.4 — and tanh's is at most that,
// since each diag(1 − h²) has norm ≤ 1).
func JacobianNorms(w []float64, n int, pre [][]float64, tanh bool) ([]float64, error) {
	if n < 1 || len(w) != n*n {
		return nil, algo.BadParam("w", len(w), fmt.Sprintf("%d entries (n×n, n = %d ≥ 1)", n*n, n))
	}
	wt := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			wt.Set(i, j, w[j*n+i]) // Wᵀ
		}
	}
	J := mat.NewDense(n, n, nil)
	for i := range n {
		J.Set(i, i, 1)
	}
	h := make([]float64, n)
	next := make([]float64, n)
	var tmp mat.Dense
	var svd mat.SVD
	out := make([]float64, len(pre))
	for t, u := range pre {
		if len(u) != n {
			return nil, algo.BadParam("pre", len(u), fmt.Sprintf("%d inputs at every step (step %d)", n, t+1))
		}
		for j := range n {
			s := u[j]
			for i := range n {
				s += h[i] * w[i*n+j]
			}
			next[j] = s
		}
		tmp.Mul(wt, J)
		for i := range n {
			d := 1.0
			if tanh {
				next[i] = stable.Tanh(next[i])
				d = 1 - next[i]*next[i]
			}
			for j := range n {
				tmp.Set(i, j, d*tmp.At(i, j))
			}
		}
		J.Copy(&tmp)
		h, next = next, h
		if !svd.Factorize(J, mat.SVDNone) {
			return nil, fmt.Errorf("JacobianNorms: SVD failed at step %d", t+1)
		}
		out[t] = svd.Values(nil)[0]
	}
	return out, nil
}

// Inputs is the input term x_t U + b of each token of ids, the u_t of
// JacobianNorms: with them h_t = tanh(h_{t−1}W + u_t) is the state.
func (r *RNN) Inputs(ids []int) ([][]float64, error) {
	H := r.hidden
	out := make([][]float64, len(ids))
	for t, id := range ids {
		if id < 0 || id >= r.v {
			return nil, algo.BadParam("ids", id, fmt.Sprintf("in 0..%d (position %d)", r.v-1, t))
		}
		u := make([]float64, H)
		for j := range H {
			u[j] = r.u.Data[id*H+j] + r.b.Data[j]
		}
		out[t] = u
	}
	return out, nil
}
