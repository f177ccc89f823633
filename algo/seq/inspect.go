package seq

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// lnTap is a LayerNorm's input and output in the last Forward.
type lnTap struct{ in, out *tensor.Tensor }

// taps are one block's tensors in the last Forward: its input h_ℓ, its
// two LayerNorms, the attention sublayer's output (after W_O), the
// stream between the sublayers, the feed-forward layer's hidden
// activations ReLU(W₁x + b₁) and output, and the block's output h_ℓ₊₁.
type taps struct {
	in, attn, mid, hidden, ffn, out *tensor.Tensor
	ln1, ln2                        lnTap
}

// Inside is one forward pass of a GPT over one sequence of T tokens,
// opened up (seed 000 §2.6, eq 2.15–2.17; seed 002 G4, eq 7.2 and Remark
// 7.5): per position t,
//
//   - each LayerNorm k's input statistics, the mean μ and population
//     variance σ² over the d features, and those of its normalised
//     vector x̂ = (x − μ)/√(σ² + ε) before the gain γ and bias β: mean 0
//     and variance σ²/(σ² + ε) ≈ 1 (the ε the notes leave out, catalogue
//     §2.9: the ratio, not 1, is the exact value);
//   - the norm of the residual stream at each stage s: s = 0 the
//     embeddings h₀, s = 2ℓ+1 block ℓ's stream after its attention
//     sublayer, s = 2ℓ+2 its output h_ℓ₊₁;
//   - how much each sublayer adds, ‖Δ‖/‖x‖ with x the stream it is added
//     to: the attention output over h_ℓ, the feed-forward output over the
//     stream between the sublayers;
//   - the fraction of the feed-forward layer's d_ff ReLU units that are
//     active (> 0).
//
// Pre-norm LayerNorms are k = 2ℓ (before attention), 2ℓ+1 (before the
// feed-forward layer) and the final one 2N; post-norm ones are 2ℓ (of h_ℓ
// + attention) and 2ℓ+1 (of the block's output before normalising).
// Slices are row-major, [k·T + t], [s·T + t], [ℓ·T + t].
type Inside struct {
	T, Layers, LNs int
	Norm
	MeanIn, VarIn, MeanHat, VarHat []float64 // [LNs·T]
	Stream                         []float64 // [(2N+1)·T]
	AttnAdds, FFNAdds, Active      []float64 // [N·T]
}

// NewInside holds the figures of a model of configuration cfg over T ≤
// n_ctx tokens.
func NewInside(cfg GPTConfig, T int) (*Inside, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if T < 1 || T > cfg.Context {
		return nil, algo.BadParam("T", T, fmt.Sprintf("in 1..n_ctx = %d", cfg.Context))
	}
	N := cfg.Layers
	k := 2 * N
	if cfg.Norm == Pre {
		k++
	}
	f := func(n int) []float64 { return make([]float64, n*T) }
	return &Inside{T: T, Layers: N, LNs: k, Norm: cfg.Norm,
		MeanIn: f(k), VarIn: f(k), MeanHat: f(k), VarHat: f(k), Stream: f(2*N + 1),
		AttnAdds: f(N), FFNAdds: f(N), Active: f(N)}, nil
}

// InsideBytes is what an Inside of cfg over T tokens holds.
func InsideBytes(cfg GPTConfig, T int) int64 {
	return 4*tensor.Alloc((2*cfg.Layers+1)*T) + tensor.Alloc((2*cfg.Layers+1)*T) + 3*tensor.Alloc(cfg.Layers*T)
}

// Inspect runs the model over ids (one sequence of in.T tokens) on tp,
// which it rewinds first, and fills in with the pass's figures.
func (g *GPT) Inspect(tp *tensor.Tape, ids []int, in *Inside) error {
	c := g.cfg
	if in == nil || in.T != len(ids) || in.Layers != c.Layers || in.Norm != c.Norm {
		return algo.BadParam("inside", fmt.Sprintf("for %d tokens", len(ids)), "made by NewInside for this model and len(ids) tokens")
	}
	tp.Rewind()
	g.Forward(tp, ids, 1, len(ids))
	if err := tp.Err(); err != nil {
		return err
	}
	T, d := in.T, c.Dim
	for l := range g.taps {
		tl := &g.taps[l]
		in.lnStats(2*l, tl.ln1.in, d)
		in.lnStats(2*l+1, tl.ln2.in, d)
		for t := range T {
			row := func(x *tensor.Tensor) []float64 { return x.Data[t*d : (t+1)*d] }
			h, mid := norm(row(tl.in)), norm(row(tl.mid))
			if l == 0 {
				in.Stream[t] = h
			}
			in.Stream[(2*l+1)*T+t], in.Stream[(2*l+2)*T+t] = mid, norm(row(tl.out))
			in.AttnAdds[l*T+t] = norm(row(tl.attn)) / h
			in.FFNAdds[l*T+t] = norm(row(tl.ffn)) / mid
			F := c.FFN
			on := 0
			for _, v := range tl.hidden.Data[t*F : (t+1)*F] {
				if v > 0 {
					on++
				}
			}
			in.Active[l*T+t] = float64(on) / float64(F)
		}
	}
	if c.Norm == Pre {
		in.lnStats(2*c.Layers, g.final.in, d)
	}
	return nil
}

// lnStats fills LayerNorm k's statistics from its input x [1, T, d].
func (in *Inside) lnStats(k int, x *tensor.Tensor, d int) {
	for t := range in.T {
		r := x.Data[t*d : (t+1)*d]
		mu, v := meanVar(r)
		rstd := 1 / math.Sqrt(v+LNEps) // as tensor.LayerNorm
		hm, hv := 0.0, 0.0
		for _, x := range r {
			hm += (x - mu) * rstd
		}
		hm /= float64(d)
		for _, x := range r {
			e := (x-mu)*rstd - hm
			hv += e * e
		}
		i := k*in.T + t
		in.MeanIn[i], in.VarIn[i], in.MeanHat[i], in.VarHat[i] = mu, v, hm, hv/float64(d)
	}
}

// meanVar is the mean and population variance of r.
func meanVar(r []float64) (mu, v float64) {
	for _, x := range r {
		mu += x
	}
	mu /= float64(len(r))
	for _, x := range r {
		v += (x - mu) * (x - mu)
	}
	return mu, v / float64(len(r))
}

// norm is the Euclidean norm of r.
func norm(r []float64) float64 {
	s := 0.0
	for _, x := range r {
		s += x * x
	}
	return math.Sqrt(s)
}
