package tensor

import (
	"math"

	"github.com/thelab/lab/algo/stable"
)

// MatMul is the matrix product over the last two axes: a [..., m, k] times
// b [k, n] (one weight matrix for every row of a: out [..., m, n]), or a
// [B..., m, k] times b [B..., k, n] with equal leading axes (a batch of
// products). By gonum BLAS (blas64.Gemm).
func (tp *Tape) MatMul(a, b *Tensor) *Tensor { return tp.matmul("MatMul", a, b, nil, false) }

// MatMulT is a·bᵀ over the last two axes: b is [n, k] or [B..., n, k]
// (attention scores Q·Kᵀ, a tied decoder x·Cᵀ).
func (tp *Tape) MatMulT(a, b *Tensor) *Tensor { return tp.matmul("MatMulT", a, b, nil, true) }

// Linear is the dense layer x·W + b for x [..., k], W [k, n] and a bias b
// [n] (nil for none): MatMul and a broadcast Add fused into one operation,
// which saves a pass over the output in each direction (seed 000 §2.1, eq
// 2.1, in the row layout).
func (tp *Tape) Linear(x, w, b *Tensor) *Tensor {
	if b != nil && !tp.ok("Linear", b) {
		return &tp.bad
	}
	if w != nil && b != nil && (w.shape.r != 2 || b.shape.r != 1 || b.shape.d[0] != w.shape.d[1]) {
		return tp.fail("Linear", "W %v and b %v: need W [k, n] and b [n]", w.shape, b.shape)
	}
	return tp.matmul("Linear", x, w, b, false)
}

//go:norace
func (tp *Tape) matmul(name string, a, b, bias *Tensor, tb bool) *Tensor {
	if !tp.ok(name, a, b) {
		return &tp.bad
	}
	ra, rb := a.shape.r, b.shape.r
	if ra < 2 || rb < 2 {
		return tp.fail(name, "needs matrices, got shapes %v and %v", a.shape, b.shape)
	}
	m, k := a.shape.d[ra-2], a.shape.d[ra-1]
	kb, n := b.shape.d[rb-2], b.shape.d[rb-1]
	if tb {
		kb, n = n, kb
	}
	if kb != k {
		return tp.fail(name, "inner sizes differ: %v and %v", a.shape, b.shape)
	}
	out := a.shape
	out.d[ra-1] = n
	batch := 1
	if rb == 2 { // shared weights: all rows of a at once
		m = len(a.Data) / k
	} else {
		if ra != rb {
			return tp.fail(name, "batched product needs equal ranks: %v and %v", a.shape, b.shape)
		}
		for i := range ra - 2 {
			if a.shape.d[i] != b.shape.d[i] {
				return tp.fail(name, "batch axes differ: %v and %v", a.shape, b.shape)
			}
			batch *= a.shape.d[i]
		}
	}
	nd := tp.record(opMatMul, out, anyGrad(a, b, bias))
	nd.in = [3]*Tensor{a, b, bias}
	nd.iarg = [6]int{m, n, k, batch, b2i(tb)}
	ldb := n
	if tb {
		ldb = k
	}
	beta := 0.0
	if bias != nil { // start every row at b, then add the product
		for r := 0; r < len(nd.out.Data); r += n {
			copy(nd.out.Data[r:r+n], bias.Data)
		}
		beta = 1
	}
	for i := range batch {
		gemm(false, tb, m, n, k, a.Data[i*m*k:], k, b.Data[i*k*n:], ldb, beta, nd.out.Data[i*m*n:], n, &nd.pack)
	}
	return &nd.out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

//go:norace
func (nd *node) backMatMul() {
	a, b, bias := nd.in[0], nd.in[1], nd.in[2]
	m, n, k, batch, tb := nd.iarg[0], nd.iarg[1], nd.iarg[2], nd.iarg[3], nd.iarg[4] == 1
	g := nd.out.Grad
	if bias != nil && bias.Grad != nil { // column sums of the output gradient
		colSums(bias.Grad, g, n)
	}
	for i := range batch {
		dC := g[i*m*n:]
		if a.Grad != nil { // dA += dC · op(B)ᵀ
			if tb {
				gemm(false, false, m, k, n, dC, n, b.Data[i*k*n:], k, 1, a.Grad[i*m*k:], k, &nd.pack)
			} else {
				gemm(false, true, m, k, n, dC, n, b.Data[i*k*n:], n, 1, a.Grad[i*m*k:], k, &nd.pack)
			}
		}
		if b.Grad != nil {
			if tb { // dB (n×k) += dCᵀ · A
				gemm(true, false, n, k, m, dC, n, a.Data[i*m*k:], k, 1, b.Grad[i*k*n:], k, &nd.pack)
			} else { // dB (k×n) += Aᵀ · dC
				gemm(true, false, k, n, m, a.Data[i*m*k:], k, dC, n, 1, b.Grad[i*k*n:], n, &nd.pack)
			}
		}
	}
}

// CausalMask sets the scores of keys after each query to −Inf: for scores
// [..., T, S] (rows = queries, columns = keys, the Q·Kᵀ layout) every
// entry (i, j) with j > i. After Softmax those weights are exactly 0 and a
// query sees only itself and the past. (Seed 000 §2.5.2 writes the mask in
// the KᵀQ layout, −∞ strictly below the diagonal with a column-wise
// softmax — erratum 8; this is the same mask transposed.)
//
//go:norace
func (tp *Tape) CausalMask(scores *Tensor) *Tensor {
	if !tp.ok("CausalMask", scores) {
		return &tp.bad
	}
	if scores.shape.r < 2 {
		return tp.fail("CausalMask", "needs [..., T, S] scores, got %v", scores.shape)
	}
	T, S := scores.shape.d[scores.shape.r-2], scores.shape.d[scores.shape.r-1]
	nd := tp.record(opCausalMask, scores.shape, scores.Grad != nil)
	nd.in[0] = scores
	nd.iarg[0], nd.iarg[1] = T, S
	x, z := scores.Data, nd.out.Data
	inf := math.Inf(-1)
	for o := 0; o < len(x); o += T * S {
		for i := range T {
			for j := range S {
				if j > i {
					z[o+i*S+j] = inf
				} else {
					z[o+i*S+j] = x[o+i*S+j]
				}
			}
		}
	}
	return &nd.out
}

//go:norace
func (nd *node) backCausalMask() {
	T, S := nd.iarg[0], nd.iarg[1]
	g, ga := nd.out.Grad, nd.in[0].Grad
	for o := 0; o < len(g); o += T * S {
		for i := range T {
			for j := 0; j <= i && j < S; j++ {
				ga[o+i*S+j] += g[o+i*S+j]
			}
		}
	}
}

// Attention is scaled dot-product attention (seed 000 §2.5.1, eq 2.10, in
// the row layout): weights = softmax(Q·Kᵀ/√d_k) row by row (each query's
// weights over the keys sum to 1), out = weights·V, for q, k [..., T, d_k]
// and v [..., T, d_v] with equal leading axes. With causal set, the scores
// pass through CausalMask first (§2.5.2). It is composed of MatMulT, Scale,
// CausalMask, Softmax and MatMul, so weights is an ordinary tape tensor a
// pane can draw. Multi-head attention (§2.5.3) is composed by the caller:
// Slice the projected q, k, v per head, attend, Concat.
func (tp *Tape) Attention(q, k, v *Tensor, causal bool) (out, weights *Tensor) {
	return tp.ScaledAttention(q, k, v, 1/math.Sqrt(float64(q.Dim(-1))), causal)
}

// ScaledAttention is Attention with the scores Q·Kᵀ multiplied by scale
// instead of 1/√d_k: scale = 1 gives the unscaled scores, whose softmax
// saturates to one-hot as d_k grows (the point of the √d_k, seed 000
// L992).
func (tp *Tape) ScaledAttention(q, k, v *Tensor, scale float64, causal bool) (out, weights *Tensor) {
	if !tp.ok("Attention", q, k, v) {
		return &tp.bad, &tp.bad
	}
	weights = tp.attentionWeights(tp.MatMulT(q, k), scale, causal)
	return tp.MatMul(weights, v), weights
}

// attentionWeights is Softmax(CausalMask(Scale(s, c))) (the mask when
// causal) in one node: the same values, to the bit, and the same
// gradient, but one [..., T, S] buffer and its gradient kept where the
// three operations keep three, which in a transformer's attention is most
// of the tape.
//
//go:norace
func (tp *Tape) attentionWeights(s *Tensor, c float64, causal bool) *Tensor {
	if !tp.ok("Attention", s) {
		return &tp.bad
	}
	T, S := s.shape.d[s.shape.r-2], s.shape.d[s.shape.r-1]
	nd := tp.record(opAttention, s.shape, s.Grad != nil)
	nd.in[0] = s
	nd.farg[0] = c
	nd.iarg[0], nd.iarg[1] = T, S
	if causal {
		nd.iarg[2] = 1
	}
	x, z := s.Data, nd.out.Data
	inf := math.Inf(-1)
	for r := 0; r < len(x); r += S {
		i := r / S % T // the query: keys after it are masked
		row := z[r : r+S]
		for j, v := range x[r : r+S] {
			if causal && j > i {
				row[j] = inf
			} else {
				row[j] = c * v
			}
		}
		stable.Softmax(row, row)
	}
	return &nd.out
}

// backAttention is the three operations' backward passes in one: the
// softmax's y_j (g_j − Σ_k g_k y_k), zero above the diagonal, times c.
//
//go:norace
func (nd *node) backAttention() {
	c, T, S, causal := nd.farg[0], nd.iarg[0], nd.iarg[1], nd.iarg[2] == 1
	g, ga, y := nd.out.Grad, nd.in[0].Grad, nd.out.Data
	for r := 0; r < len(g); r += S {
		i := r / S % T
		gr, yr := g[r:r+S], y[r:r+S]
		s := 0.0
		for k, v := range gr {
			s += v * yr[k]
		}
		for k, v := range gr {
			if causal && k > i {
				break
			}
			ga[r+k] += c * (yr[k] * (v - s))
		}
	}
}

// colSums adds the column sums of g (rows of n) into dst, four rows at a
// time.
//
//go:norace
func colSums(dst, g []float64, n int) {
	dst = dst[:n]
	r := 0
	for ; r+4*n <= len(g); r += 4 * n {
		g0, g1, g2, g3 := g[r:r+n], g[r+n:r+2*n], g[r+2*n:r+3*n], g[r+3*n:r+4*n]
		for j := range dst {
			dst[j] += g0[j] + g1[j] + g2[j] + g3[j]
		}
	}
	for ; r < len(g); r += n {
		for j, v := range g[r : r+n] {
			dst[j] += v
		}
	}
}
