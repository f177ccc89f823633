package adversarial

import (
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/nn"
)

// DeepFool (Moosavi-Dezfooli, Fawzi & Frossard, "DeepFool: a simple and
// accurate method to fool deep neural networks", CVPR 2016, Alg. 2, the
// multiclass case) looks for the smallest perturbation that changes the
// label, with no ball. At the iterate xᵢ, classified ĉ, it linearises the
// logits: for every candidate class k ≠ ĉ,
//
//	f′_k = f_k(xᵢ) − f_ĉ(xᵢ) < 0,   w′_k = ∇f_k(xᵢ) − ∇f_ĉ(xᵢ),
//
// the nearest boundary of the linearisation is l = argmin_k |f′_k|/‖w′_k‖_q
// and the step onto it is
//
//	L2:  rᵢ = |f′_l|/‖w′_l‖₂² · w′_l               (q = 2)
//	L∞:  rᵢ = |f′_l|/‖w′_l‖₁ · sgn w′_l             (q = 1, the dual norm: §3.3)
//
// The steps add up, and the iterate is xᵢ₊₁ = x₀ + (1+η)·Σⱼ≤ᵢ rⱼ with
// the overshoot η (the paper's 0.02, applied to the total as in its
// reference code), clipped into [Lo, Hi] when there is a range; a row
// stops when its label has changed. In a range, the coordinates held at a
// bound that w′_k pushes further out are left out of w′_k (they cannot
// move), so that the step goes to the nearest boundary of the
// linearisation on the face of the box the iterate is on; otherwise the
// clip would eat the step and DeepFool would crawl. Untargeted, the candidates are every
// k ≠ ĉ and a row is fooled when ĉ ≠ its label (ĉ is then its label until
// it is fooled); targeted at t, the only candidate is t and a row is
// fooled when ĉ = t. A model of one logit z is the two classes' logits
// (0, z).
//
// On an affine classifier the linearisation is exact: one step lands at
// x₀ + (1+η)r* with r* the least perturbation onto the nearest boundary,
// −f(x)w/‖w‖² for a binary f = wᵀx + b, and the label has changed.
type deepFool struct {
	rtot  []float64 // Σrᵢ of each row
	w     []float64 // w′_l of each row's nearest linearised boundary
	seed  []float64 // the cotangent e_k − e_ĉ of each row, one class at a time
	ratio []float64 // |f′_l|/‖w′_l‖_q
	q     []float64 // ‖w′_l‖_q
	cls   []int     // ĉ of each row at the iterate
	fin   []bool    // the row is fooled (or cannot move): it stays put
	k     int       // the model's outputs
}

func newDeepFool(n, d, k int) *deepFool {
	return &deepFool{rtot: make([]float64, n*d), w: make([]float64, n*d), seed: make([]float64, n*k),
		ratio: make([]float64, n), q: make([]float64, n), cls: make([]int, n), fin: make([]bool, n), k: k}
}

func (df *deepFool) reset() {
	clear(df.rtot)
	clear(df.fin)
}

func (df *deepFool) done() bool {
	for _, f := range df.fin {
		if !f {
			return false
		}
	}
	return true
}

// logit is class c's logit of a row's outputs z (one output: (0, z)).
func logit(z []float64, c int) float64 {
	if len(z) == 1 {
		return float64(c) * z[0]
	}
	return z[c]
}

// classes is the number of classes of k outputs.
func classes(k int) int { return max(k, 2) }

// fooled says whether a row classified c is fooled: untargeted when c is
// not its label, targeted when c is its target (a.labels holds targets
// then).
func (a *Attack) fooled(r, c int) bool {
	if a.sign < 0 {
		return c == a.labels[r]
	}
	return c != a.labels[r]
}

// stepDeepFool is one DeepFool iteration on every row not yet fooled: a
// forward pass at the iterate, one reverse pass per candidate class for
// all rows at once (the cotangent e_k − e_ĉ gives ∇(f_k − f_ĉ)), the step
// onto the nearest linearised boundary, and a forward pass at the moved
// rows to see which are fooled.
func (a *Attack) stepDeepFool() error {
	df := a.df
	if df.done() {
		return algo.ErrConverged
	}
	a.fresh = false
	tp := a.tp
	tp.Rewind()
	out := a.m.Forward(tp, a.b.X, nil)
	if err := tp.Err(); err != nil {
		return err
	}
	k, nc := df.k, classes(df.k)
	lo, hi := a.cfg.Lo, a.cfg.Hi
	box := lo < hi
	for r := range a.n {
		df.cls[r] = nn.Predict(out.Data[r*k : (r+1)*k])
		if !df.fin[r] && a.fooled(r, df.cls[r]) {
			a.markFooled(r) // fooled at x₀ already
		}
		df.ratio[r] = math.Inf(1)
	}
	for c := range nc {
		clear(df.seed)
		some := false
		for r := range a.n {
			if df.fin[r] || c == df.cls[r] || (a.sign < 0 && c != a.labels[r]) {
				continue
			}
			seedAdd(df.seed[r*k:(r+1)*k], c, 1)
			seedAdd(df.seed[r*k:(r+1)*k], df.cls[r], -1)
			some = true
		}
		if !some {
			continue
		}
		if err := tp.BackwardFrom(out, df.seed); err != nil {
			return err
		}
		g := a.b.X.Grad
		for r := range a.n {
			if df.fin[r] || c == df.cls[r] || (a.sign < 0 && c != a.labels[r]) {
				continue
			}
			z := out.Data[r*k : (r+1)*k]
			f := logit(z, c) - logit(z, df.cls[r])
			gr, xr := g[r*a.d:(r+1)*a.d], a.b.X.Data[r*a.d:(r+1)*a.d]
			if box {
				// A coordinate held at a bound that w′ pushes further
				// out cannot move: the linearisation is over the others.
				for i, v := range gr {
					if (xr[i] <= lo && v < 0) || (xr[i] >= hi && v > 0) {
						gr[i] = 0
					}
				}
			}
			q := 0.0
			for _, v := range gr {
				if a.cfg.Norm == L2 {
					q += v * v
				} else {
					q += math.Abs(v)
				}
			}
			if a.cfg.Norm == L2 {
				q = math.Sqrt(q)
			}
			if q > 0 {
				if ratio := math.Abs(f) / q; ratio < df.ratio[r] {
					df.ratio[r], df.q[r] = ratio, q
					copy(df.w[r*a.d:(r+1)*a.d], gr)
				}
			}
		}
	}
	x, eta := a.b.X.Data, 1+a.cfg.Overshoot
	for r := range a.n {
		if df.fin[r] {
			continue
		}
		if math.IsInf(df.ratio[r], 1) {
			df.fin[r] = true // every ∇(f_k − f_ĉ) is 0: no boundary to step to
			continue
		}
		w, rt := df.w[r*a.d:(r+1)*a.d], df.rtot[r*a.d:(r+1)*a.d]
		s := df.ratio[r] / df.q[r] // L2: |f′|/‖w′‖₂²
		for i, v := range w {
			if a.cfg.Norm == L2 {
				rt[i] += s * v
			} else {
				rt[i] += df.ratio[r] * sgn(v)
			}
		}
		row, row0 := x[r*a.d:(r+1)*a.d], a.x0[r*a.d:(r+1)*a.d]
		for i, v := range rt {
			row[i] = row0[i] + eta*v
		}
	}
	if c := a.cfg; c.Lo < c.Hi {
		for i, v := range x {
			x[i] = math.Min(math.Max(v, c.Lo), c.Hi)
		}
	}
	a.steps++
	// The moved rows: which are fooled now.
	tp.Rewind()
	out = a.m.Forward(tp, a.b.X, nil)
	if err := tp.Err(); err != nil {
		return err
	}
	for r := range a.n {
		if !df.fin[r] && a.fooled(r, nn.Predict(out.Data[r*k:(r+1)*k])) {
			a.markFooled(r)
		}
	}
	if df.done() {
		return algo.ErrConverged
	}
	return nil
}

// markFooled ends DeepFool on row r: its iterate is the result.
func (a *Attack) markFooled(r int) {
	a.df.fin[r] = true
	a.best[r] = a.Dist(r)
	copy(a.bestX[r*a.d:(r+1)*a.d], a.b.X.Data[r*a.d:(r+1)*a.d])
}

// seedAdd adds v to class c's entry of a row's cotangent s (one output:
// class 1 is the logit, class 0 the constant 0).
func seedAdd(s []float64, c int, v float64) {
	if len(s) == 1 {
		s[0] += float64(c) * v
		return
	}
	s[c] += v
}
