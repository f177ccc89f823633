package tensor

import (
	"math"
	"math/rand/v2"
)

// LayerNorm normalises x over its last axis (seed 000 §2.6, eq 2.15): per
// row, y = γ ⊙ (x − μ)/√(σ² + ε) + β with μ and σ² the row's mean and
// population variance. ε > 0 is inside the square root (catalogue §2.9:
// "add ε … otherwise a constant vector gives 0/0"). gamma and beta are [D]
// or nil (γ = 1, β = 0).
//
//go:norace
func (tp *Tape) LayerNorm(x, gamma, beta *Tensor, eps float64) *Tensor {
	if !tp.ok("LayerNorm", x) || gamma != nil && !tp.ok("LayerNorm", gamma) || beta != nil && !tp.ok("LayerNorm", beta) {
		return &tp.bad
	}
	if x.shape.r == 0 {
		return tp.fail("LayerNorm", "needs at least one axis")
	}
	D := x.shape.last()
	for _, p := range [2]*Tensor{gamma, beta} {
		if p != nil && (p.shape.r != 1 || p.shape.d[0] != D) {
			return tp.fail("LayerNorm", "γ and β must be [%d], got %v", D, p.shape)
		}
	}
	if !(eps > 0) {
		return tp.fail("LayerNorm", "ε = %g must be > 0", eps)
	}
	nd := tp.record(opLayerNorm, x.shape, anyGrad(x, gamma, beta))
	nd.in = [3]*Tensor{x, gamma, beta}
	rows := len(x.Data) / D
	nd.aux = grow(nd.aux, len(x.Data)) // x̂
	nd.aux2 = grow(nd.aux2, rows)      // 1/√(σ² + ε)
	for r := range rows {
		xr, xh, z := x.Data[r*D:(r+1)*D], nd.aux[r*D:(r+1)*D], nd.out.Data[r*D:(r+1)*D]
		mu := 0.0
		for _, v := range xr {
			mu += v
		}
		mu /= float64(D)
		v2 := 0.0
		for _, v := range xr {
			v2 += (v - mu) * (v - mu)
		}
		rstd := 1 / math.Sqrt(v2/float64(D)+eps)
		nd.aux2[r] = rstd
		for j, v := range xr {
			h := (v - mu) * rstd
			xh[j] = h
			if gamma != nil {
				h *= gamma.Data[j]
			}
			if beta != nil {
				h += beta.Data[j]
			}
			z[j] = h
		}
	}
	return &nd.out
}

// backLayerNorm: with ĝ = g ⊙ γ, ∂x = (rstd/D)(D ĝ − Σ ĝ − x̂ Σ ĝ ⊙ x̂);
// ∂γ = Σ_rows g ⊙ x̂; ∂β = Σ_rows g.
//
//go:norace
func (nd *node) backLayerNorm() {
	x, gamma, beta := nd.in[0], nd.in[1], nd.in[2]
	D := x.shape.last()
	rows := len(x.Data) / D
	for r := range rows {
		g, xh := nd.out.Grad[r*D:(r+1)*D], nd.aux[r*D:(r+1)*D]
		if gamma != nil && gamma.Grad != nil {
			for j, v := range g {
				gamma.Grad[j] += v * xh[j]
			}
		}
		if beta != nil && beta.Grad != nil {
			for j, v := range g {
				beta.Grad[j] += v
			}
		}
		if x.Grad == nil {
			continue
		}
		s1, s2 := 0.0, 0.0
		for j, v := range g {
			if gamma != nil {
				v *= gamma.Data[j]
			}
			s1 += v
			s2 += v * xh[j]
		}
		c := nd.aux2[r] / float64(D)
		gx := x.Grad[r*D : (r+1)*D]
		for j, v := range g {
			if gamma != nil {
				v *= gamma.Data[j]
			}
			gx[j] += c * (float64(D)*v - s1 - xh[j]*s2)
		}
	}
}

// Embedding looks up rows of table [V, D]: out [len(ids), D] with row i =
// table[ids[i]] (seed 000 §2.3: C x for a one-hot x). The gradient is
// added back into the looked-up rows. ids is copied; each must be in
// 0..V−1. Reshape the result for a [B, T, D] batch.
//
//go:norace
func (tp *Tape) Embedding(table *Tensor, ids []int) *Tensor {
	if !tp.ok("Embedding", table) {
		return &tp.bad
	}
	if table.shape.r != 2 {
		return tp.fail("Embedding", "table must be [V, D], got %v", table.shape)
	}
	V, D := table.shape.d[0], table.shape.d[1]
	if len(ids) == 0 {
		return tp.fail("Embedding", "no ids")
	}
	for i, id := range ids {
		if id < 0 || id >= V {
			return tp.fail("Embedding", "id %d at position %d is outside 0..%d", id, i, V-1)
		}
	}
	nd := tp.record(opEmbedding, shape{d: [MaxRank]int{len(ids), D}, r: 2}, table.Grad != nil)
	nd.in[0] = table
	nd.idx = grow(nd.idx, len(ids))
	copy(nd.idx, ids)
	for i, id := range ids {
		copy(nd.out.Data[i*D:(i+1)*D], table.Data[id*D:(id+1)*D])
	}
	return &nd.out
}

//go:norace
func (nd *node) backEmbedding() {
	D := nd.in[0].shape.d[1]
	gt := nd.in[0].Grad
	for i, id := range nd.idx {
		row := gt[id*D : (id+1)*D]
		for j, v := range nd.out.Grad[i*D : (i+1)*D] {
			row[j] += v
		}
	}
}

// Dropout zeroes each entry with probability p and scales the survivors by
// 1/(1 − p) (inverted dropout: the expectation is unchanged, so no
// rescaling is needed at test time). The mask is drawn from rng; with rng
// nil or p = 0 it is the identity and returns a itself (evaluation mode).
// p must be in [0, 1).
//
//go:norace
func (tp *Tape) Dropout(a *Tensor, p float64, rng *rand.Rand) *Tensor {
	if !tp.ok("Dropout", a) {
		return &tp.bad
	}
	if !(p >= 0 && p < 1) {
		return tp.fail("Dropout", "p = %g must be in [0, 1)", p)
	}
	if rng == nil || p == 0 {
		return a
	}
	nd := tp.record(opDropout, a.shape, a.Grad != nil)
	nd.in[0] = a
	nd.aux = grow(nd.aux, len(a.Data))
	keep := 1 / (1 - p)
	for i, v := range a.Data {
		m := 0.0
		if rng.Float64() >= p {
			m = keep
		}
		nd.aux[i] = m
		nd.out.Data[i] = v * m
	}
	return &nd.out
}

//go:norace
func (nd *node) backDropout() {
	ga := nd.in[0].Grad
	for i, v := range nd.out.Grad {
		ga[i] += v * nd.aux[i]
	}
}
