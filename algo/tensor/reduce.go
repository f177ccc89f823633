package tensor

import (
	"math"

	"github.com/thelab/lab/algo/stable"
)

// Sum is Σ_i a_i, a scalar (rank 0).
func (tp *Tape) Sum(a *Tensor) *Tensor { return tp.sum("Sum", a, false) }

// Mean is (1/n) Σ_i a_i, a scalar.
func (tp *Tape) Mean(a *Tensor) *Tensor { return tp.sum("Mean", a, true) }

//go:norace
func (tp *Tape) sum(name string, a *Tensor, mean bool) *Tensor {
	if !tp.ok(name, a) {
		return &tp.bad
	}
	nd := tp.record(opSum, shape{}, a.Grad != nil)
	nd.in[0] = a
	s := 0.0
	for _, v := range a.Data {
		s += v
	}
	c := 1.0
	if mean {
		c = 1 / float64(len(a.Data))
	}
	nd.farg[0] = c
	nd.out.Data[0] = c * s
	return &nd.out
}

//go:norace
func (nd *node) backSum() {
	g := nd.farg[0] * nd.out.Grad[0]
	ga := nd.in[0].Grad
	for i := range ga {
		ga[i] += g
	}
}

// axis resolves a possibly negative axis of a rank-r tensor.
func axis(ax, r int) (int, bool) {
	if ax < 0 {
		ax += r
	}
	return ax, ax >= 0 && ax < r
}

// split is (outer, n, inner): the sizes before, at and after axis ax.
func split(s shape, ax int) (outer, n, inner int) {
	outer, inner = 1, 1
	for i := range ax {
		outer *= s.d[i]
	}
	for i := ax + 1; i < s.r; i++ {
		inner *= s.d[i]
	}
	return outer, s.d[ax], inner
}

// without is s with axis ax removed.
func without(s shape, ax int) shape {
	var t shape
	for i := range s.r {
		if i != ax {
			t.d[t.r] = s.d[i]
			t.r++
		}
	}
	return t
}

// SumAxis sums a along axis (negative counts from the end), removing it.
func (tp *Tape) SumAxis(a *Tensor, ax int) *Tensor { return tp.sumAxis("SumAxis", a, ax, false) }

// MeanAxis averages a along axis, removing it.
func (tp *Tape) MeanAxis(a *Tensor, ax int) *Tensor { return tp.sumAxis("MeanAxis", a, ax, true) }

//go:norace
func (tp *Tape) sumAxis(name string, a *Tensor, ax int, mean bool) *Tensor {
	if !tp.ok(name, a) {
		return &tp.bad
	}
	ax, ok := axis(ax, a.shape.r)
	if !ok {
		return tp.fail(name, "axis out of range for shape %v", a.shape)
	}
	outer, n, inner := split(a.shape, ax)
	nd := tp.record(opSumAxis, without(a.shape, ax), a.Grad != nil)
	nd.in[0] = a
	c := 1.0
	if mean {
		c = 1 / float64(n)
	}
	nd.farg[0] = c
	nd.iarg[0], nd.iarg[1], nd.iarg[2] = outer, n, inner
	z, x := nd.out.Data, a.Data
	clear(z)
	for o := range outer {
		zo := z[o*inner : (o+1)*inner]
		for k := range n {
			xk := x[(o*n+k)*inner : (o*n+k+1)*inner]
			for j, v := range xk {
				zo[j] += v
			}
		}
		for j := range zo {
			zo[j] *= c
		}
	}
	return &nd.out
}

//go:norace
func (nd *node) backSumAxis() {
	outer, n, inner := nd.iarg[0], nd.iarg[1], nd.iarg[2]
	c, g, ga := nd.farg[0], nd.out.Grad, nd.in[0].Grad
	for o := range outer {
		gro := g[o*inner : (o+1)*inner]
		for k := range n {
			gak := ga[(o*n+k)*inner : (o*n+k+1)*inner]
			for j, v := range gro {
				gak[j] += c * v
			}
		}
	}
}

// Softmax is softmax along the last axis: y_j = e^{x_j} / Σ_k e^{x_k},
// shifted by the row maximum (−Inf entries, as from CausalMask, get 0).
func (tp *Tape) Softmax(a *Tensor) *Tensor { return tp.softmax(opSoftmax, "Softmax", a) }

// LogSoftmax is x_j − log Σ_k e^{x_k} along the last axis.
func (tp *Tape) LogSoftmax(a *Tensor) *Tensor { return tp.softmax(opLogSoftmax, "LogSoftmax", a) }

// LogSumExp is log Σ_k e^{x_k} along the last axis, which it removes.
func (tp *Tape) LogSumExp(a *Tensor) *Tensor { return tp.softmax(opLogSumExp, "LogSumExp", a) }

//go:norace
func (tp *Tape) softmax(op opKind, name string, a *Tensor) *Tensor {
	if !tp.ok(name, a) {
		return &tp.bad
	}
	if a.shape.r == 0 {
		return tp.fail(name, "needs at least one axis")
	}
	s := a.shape
	if op == opLogSumExp {
		s = without(s, s.r-1)
	}
	nd := tp.record(op, s, a.Grad != nil)
	nd.in[0] = a
	L := a.shape.last()
	x, z := a.Data, nd.out.Data
	p := z
	if op != opSoftmax {
		nd.aux = grow(nd.aux, len(x))
		p = nd.aux
	}
	for r := 0; r < len(x); r += L {
		lse := stable.Softmax(p[r:r+L], x[r:r+L])
		switch op {
		case opLogSoftmax:
			for j := r; j < r+L; j++ {
				z[j] = x[j] - lse
			}
		case opLogSumExp:
			z[r/L] = lse
		}
	}
	return &nd.out
}

//go:norace
func (nd *node) backSoftmax() {
	a := nd.in[0]
	L := a.shape.last()
	g, ga := nd.out.Grad, a.Grad
	for r := 0; r < len(ga); r += L {
		switch nd.op {
		case opSoftmax: // ∂x_j = y_j (g_j − Σ_k g_k y_k)
			y := nd.out.Data[r : r+L]
			gr := g[r : r+L]
			s := 0.0
			for k, v := range gr {
				s += v * y[k]
			}
			for k, v := range gr {
				ga[r+k] += y[k] * (v - s)
			}
		case opLogSoftmax: // ∂x_j = g_j − p_j Σ_k g_k
			p := nd.aux[r : r+L]
			gr := g[r : r+L]
			s := 0.0
			for _, v := range gr {
				s += v
			}
			for k, v := range gr {
				ga[r+k] += v - p[k]*s
			}
		case opLogSumExp: // ∂x_j = g · p_j
			p := nd.aux[r : r+L]
			gv := g[r/L]
			for k, v := range p {
				ga[r+k] += gv * v
			}
		}
	}
}

// CrossEntropy is the mean softmax cross-entropy of logits [N, C] (or any
// shape whose last axis is the C classes) against integer labels, one per
// row: (1/N) Σ_i (log Σ_c e^{x_ic} − x_{i,y_i}) — the "−log p̂(y|X)" of
// seed 000 §2.1 (L873), fused so that its gradient is (p − onehot(y))/N.
// The labels are copied.
//
//go:norace
func (tp *Tape) CrossEntropy(logits *Tensor, labels []int) *Tensor {
	if !tp.ok("CrossEntropy", logits) {
		return &tp.bad
	}
	if logits.shape.r == 0 {
		return tp.fail("CrossEntropy", "logits need a class axis")
	}
	C := logits.shape.last()
	if !tp.indices("CrossEntropy", "label", labels, len(logits.Data)/C, C) {
		return &tp.bad
	}
	nd := tp.record(opCrossEntropy, shape{}, logits.Grad != nil)
	nd.in[0] = logits
	nd.idx = grow(nd.idx, len(labels))
	copy(nd.idx, labels)
	nd.aux = grow(nd.aux, len(logits.Data))
	N := len(labels)
	x, p := logits.Data, nd.aux
	// Σ_i (m_i + log s_i − x_{i,y_i}) with s_i = Σ_c e^{x_ic − m_i} ∈ [1, C]:
	// the logs are summed as one log of the product Π s_i (kept as a
	// mantissa and a power of two), one logarithm per batch, not per row.
	loss, prod, pow2 := 0.0, 1.0, 0
	for i, y := range labels {
		xr, pr := x[i*C:(i+1)*C], p[i*C:(i+1)*C]
		m := math.Inf(-1)
		for _, v := range xr {
			m = max(m, v)
		}
		s := 0.0
		for j, v := range xr {
			e := math.Exp(v - m)
			pr[j] = e
			s += e
		}
		inv := 1 / s
		for j := range pr {
			pr[j] *= inv
		}
		loss += m - xr[y]
		if prod *= s; prod > 0x1p900 {
			f, e := math.Frexp(prod)
			prod, pow2 = f, pow2+e
		}
	}
	loss += math.Log(prod) + float64(pow2)*math.Ln2
	nd.out.Data[0] = loss / float64(N)
	return &nd.out
}

//go:norace
func (nd *node) backCrossEntropy() {
	a := nd.in[0]
	C := a.shape.last()
	N := len(nd.idx)
	g := nd.out.Grad[0] / float64(N)
	ga, p := a.Grad, nd.aux
	for i, y := range nd.idx {
		r := i * C
		for k := range C {
			ga[r+k] += g * p[r+k]
		}
		ga[r+y] -= g
	}
}

// Pick gathers one entry per row along the last axis: out_i = a[i, idx_i]
// (per-example log-likelihoods from LogSoftmax, for instance). The result
// has a's shape without its last axis; idx is copied.
//
//go:norace
func (tp *Tape) Pick(a *Tensor, idx []int) *Tensor {
	if !tp.ok("Pick", a) {
		return &tp.bad
	}
	if a.shape.r == 0 {
		return tp.fail("Pick", "needs at least one axis")
	}
	C := a.shape.last()
	if !tp.indices("Pick", "index", idx, len(a.Data)/C, C) {
		return &tp.bad
	}
	nd := tp.record(opPick, without(a.shape, a.shape.r-1), a.Grad != nil)
	nd.in[0] = a
	nd.idx = grow(nd.idx, len(idx))
	copy(nd.idx, idx)
	for i, k := range idx {
		nd.out.Data[i] = a.Data[i*C+k]
	}
	return &nd.out
}

//go:norace
func (nd *node) backPick() {
	C := nd.in[0].shape.last()
	ga := nd.in[0].Grad
	for i, k := range nd.idx {
		ga[i*C+k] += nd.out.Grad[i]
	}
}

// indices checks one index in 0..C−1 per row, failing the step otherwise.
func (tp *Tape) indices(op, what string, idx []int, rows, C int) bool {
	if len(idx) != rows {
		tp.fail(op, "%d %ss for %d rows", len(idx), what, rows)
		return false
	}
	for i, k := range idx {
		if k < 0 || k >= C {
			tp.fail(op, "%s %d of row %d is outside 0..%d", what, k, i, C-1)
			return false
		}
	}
	return true
}
