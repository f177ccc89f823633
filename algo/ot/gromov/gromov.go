// Package gromov computes entropic Gromov–Wasserstein couplings (Mémoli
// 2011, "Gromov–Wasserstein distances and the metric approach to object
// matching"; Peyré, Cuturi & Solomon 2016, "Gromov–Wasserstein averaging
// of kernel and distance matrices", §2; POT's
// ot.gromov.entropic_gromov_wasserstein). Two metric-measure spaces need
// not share a space: each is known only through its matrix of distances
// within it, C1 (n×n) with masses p and C2 (m×m) with masses q, and a
// coupling T ∈ Π(p, q) is scored by how well it preserves distances,
// with the square loss L(a, b) = (a − b)²:
//
//	E(T) = Σ_ijkl (C1_ik − C2_jl)² T_ij T_kl,   GW² = min_{T ∈ Π(p,q)} E(T).
//
// Prop 1 of Peyré et al. (the tensor as matrix products). For any T with
// row sums r = T1 and column sums s = Tᵀ1,
//
//	(L ⊗ T)_ij = Σ_kl (C1_ik − C2_jl)² T_kl = (C1² r)_i + (C2² s)_j − 2 (C1 T C2ᵀ)_ij
//
// (squares entrywise), O(n²m + nm²) instead of O(n²m²), and E(T) = ⟨L ⊗ T, T⟩.
//
// The entropic scheme (Peyré et al. §2.3, eq 8 with τ = 1/ε: projected
// mirror descent for KL, as POT runs it): each outer iteration solves an
// entropic OT problem whose cost is the gradient ∇E(T) = 2 L ⊗ T
// (C1, C2 symmetric),
//
//	T_{k+1} = argmin_{T ∈ Π(p,q)} ⟨2 L ⊗ T_k, T⟩ − ε H(T),
//
// here with the log-domain Sinkhorn of algo/ot/sinkhorn, warm-started at
// the last solve's potentials (by shifting the cost: Step).
//
// The guarantee. On Π(p, q) the first two terms of E are constant and
// E(T) = const − 2⟨C1 T C2, T⟩. Differences of two couplings X have
// X1 = 0, Xᵀ1 = 0, and on 1⊥ a Euclidean distance matrix (of distances or
// of squared distances) is negative semidefinite (Schoenberg 1935:
// conditionally negative definite), so vec(X)ᵀ(C2 ⊗ C1)vec(X) ≥ 0: E is
// concave on Π(p, q). Concavity gives E(T′) ≤ E(T) + ⟨2 L ⊗ T, T′ − T⟩,
// and T_{k+1} minimises ⟨2 L ⊗ T_k, ·⟩ − εH, so
//
//	E(T_{k+1}) − ε H(T_{k+1}) ≤ E(T_k) − ε H(T_k):
//
// the entropic objective E − εH never rises (up to the inner solve's
// marginal error) for Euclidean distance matrices. Peyré et al. state
// only convergence to a stationary point for small steps (their
// Prop 2 remark); E itself may rise when H falls. GW is non-convex: the
// scheme finds a stationary point, which depends on the start (here the
// independent coupling p qᵀ, as POT's).
package gromov

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/sinkhorn"
)

// Config configures a GW.
type Config struct {
	// Eps is ε > 0, the weight of the entropy in each inner problem.
	Eps float64
	// Tol ends the run (ErrConverged) when ‖T_{k+1} − T_k‖₁ ≤ Tol; 0 runs on.
	Tol float64
	// InnerTol is the marginal error ‖T1 − p‖₁ at which an inner Sinkhorn
	// stops (> 0), and InnerIters the most iterations it makes (≥ 1).
	InnerTol   float64
	InnerIters int
}

// MaxInnerIters bounds Config.InnerIters.
const MaxInnerIters = 1000000

// GW runs the entropic GW iterations, one outer iteration (an inner
// Sinkhorn solve on the linearised cost) per Step. A Step computes the
// tensor with scratch allocated once; the inner Sinkhorn engine is built
// anew each Step (its Cᵀ copy, O(nm)), and its iterations do not allocate.
type GW struct {
	n, m   int
	c1, c2 []float64 // the caller's
	p, q   []float64 // normalised
	cfg    Config

	t, prev []float64 // T_k and T_{k−1}, n×m
	g       []float64 // 2 L ⊗ T, the inner cost
	w       []float64 // scratch: C1 T (n×m)
	r, s    []float64 // T1, Tᵀ1
	rr, ss  []float64 // C1² r, C2² s
	cs      []float64 // the inner cost, shifted by the potentials (n×m)
	f, h    []float64 // the potentials of the last inner solve, for 2L⊗T
	fs, hs  []float64 // the inner engine's potentials, for cs

	iter       int
	obj, ent   float64
	change     float64
	inner      int // iterations of the last inner solve
	innerErr   float64
	innerShort bool // the last inner solve stopped at InnerIters
}

// New checks the n×n and m×m distance matrices C1 and C2 (finite,
// symmetric, ≥ 0, zero diagonal), the masses p and q (ot.Marginals: equal
// totals, normalised) and the configuration, and starts from T = p qᵀ.
// The matrices are kept, not copied.
func New(c1, c2, p, q []float64, cfg Config) (*GW, error) {
	a, b, err := ot.Marginals(p, q)
	if err != nil {
		return nil, err
	}
	n, m := len(a), len(b)
	if err := checkDistances("c1", c1, n); err != nil {
		return nil, err
	}
	if err := checkDistances("c2", c2, m); err != nil {
		return nil, err
	}
	if !(cfg.Eps > 0) || math.IsInf(cfg.Eps, 0) || math.IsInf(1/cfg.Eps, 0) {
		return nil, algo.BadParam("eps", cfg.Eps, "a finite number > 0 whose inverse is finite")
	}
	if !(cfg.Tol >= 0) {
		return nil, algo.BadParam("tol", cfg.Tol, "≥ 0")
	}
	if !(cfg.InnerTol > 0) {
		return nil, algo.BadParam("inner_tol", cfg.InnerTol, "> 0")
	}
	if cfg.InnerIters < 1 || cfg.InnerIters > MaxInnerIters {
		return nil, algo.BadParam("inner_iters", cfg.InnerIters, fmt.Sprintf("in 1..%d", MaxInnerIters))
	}
	g := &GW{n: n, m: m, c1: c1, c2: c2, p: a, q: b, cfg: cfg,
		t: make([]float64, n*m), prev: make([]float64, n*m), g: make([]float64, n*m), w: make([]float64, n*m),
		r: make([]float64, n), s: make([]float64, m), rr: make([]float64, n), ss: make([]float64, m),
		cs: make([]float64, n*m), f: make([]float64, n), h: make([]float64, m),
		change: math.Inf(1), innerErr: math.NaN()}
	for i := range n {
		for j := range m {
			g.t[i*m+j] = a[i] * b[j]
		}
	}
	g.evaluate()
	return g, nil
}

// checkDistances refuses a k×k matrix that is not finite, symmetric, ≥ 0
// with a zero diagonal.
func checkDistances(name string, c []float64, k int) error {
	if err := ot.CheckCost(c, k, k); err != nil {
		var pe *algo.ParamError
		if errors.As(err, &pe) {
			return algo.BadParam(name, pe.Value, pe.Allowed)
		}
		return err
	}
	for i := range k {
		if c[i*k+i] != 0 {
			return algo.BadParam(name, fmt.Sprintf("%s[%d][%d] = %g", name, i, i, c[i*k+i]), "a zero diagonal")
		}
		for j := range i {
			v := c[i*k+j]
			if v < 0 || v != c[j*k+i] {
				return algo.BadParam(name, fmt.Sprintf("%s[%d][%d] = %g, %s[%d][%d] = %g", name, i, j, v, name, j, i, c[j*k+i]),
					"symmetric and ≥ 0")
			}
		}
	}
	return nil
}

// Footprint is the bytes New allocates for n and m points, with a Step's
// inner Sinkhorn (garbage after the Step): five n×m matrices, the
// vectors, and sinkhorn's.
func Footprint(n, m int) int64 {
	return 5*8*int64(n)*int64(m) + 10*8*int64(n+m) + sinkhorn.Footprint(n, m, sinkhorn.Log)
}

// tensor writes (L ⊗ T) for the square loss into dst (n×m) by Prop 1, with
// T's own marginals, using w (n×m), r, rr (n) and s, ss (m) as scratch.
func tensor(dst, c1, c2, t, w, r, s, rr, ss []float64, n, m int) {
	clear(r)
	clear(s)
	for i := range n {
		for j, v := range t[i*m : (i+1)*m] {
			r[i] += v
			s[j] += v
		}
	}
	for i := range n {
		acc := 0.0
		for k, c := range c1[i*n : (i+1)*n] {
			acc += c * c * r[k]
		}
		rr[i] = acc
	}
	for j := range m {
		acc := 0.0
		for l, c := range c2[j*m : (j+1)*m] {
			acc += c * c * s[l]
		}
		ss[j] = acc
	}
	// w = C1 T
	clear(w)
	for i := range n {
		wi := w[i*m : (i+1)*m : (i+1)*m]
		for k, c := range c1[i*n : (i+1)*n] {
			if c == 0 {
				continue
			}
			for j, v := range t[k*m : (k+1)*m : (k+1)*m] {
				wi[j] += c * v
			}
		}
	}
	// dst = rr ⊕ ss − 2 (C1 T) C2ᵀ
	for i := range n {
		wi := w[i*m : (i+1)*m : (i+1)*m]
		for j := range m {
			cj := c2[j*m : (j+1)*m : (j+1)*m]
			acc := 0.0
			for l, c := range cj {
				acc += wi[l] * c
			}
			dst[i*m+j] = rr[i] + ss[j] - 2*acc
		}
	}
}

// Tensor returns L ⊗ T for the square loss (n×m) by Prop 1 of Peyré et al.
func Tensor(c1, c2, t []float64, n, m int) []float64 {
	dst, w := make([]float64, n*m), make([]float64, n*m)
	tensor(dst, c1, c2, t, w, make([]float64, n), make([]float64, m), make([]float64, n), make([]float64, m), n, m)
	return dst
}

// Objective returns E(T) = ⟨L ⊗ T, T⟩ for the square loss, by Prop 1.
func Objective(c1, c2, t []float64, n, m int) float64 {
	return ot.PlanCost(Tensor(c1, c2, t, n, m), t)
}

// evaluate computes E(T) and H(T) of the current plan.
func (g *GW) evaluate() {
	tensor(g.g, g.c1, g.c2, g.t, g.w, g.r, g.s, g.rr, g.ss, g.n, g.m)
	g.obj = ot.PlanCost(g.g, g.t)
	h := 0.0
	for _, v := range g.t {
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	g.ent = h
	for k := range g.g {
		g.g[k] *= 2 // the gradient, the next inner cost
	}
}

// Step makes one outer iteration. It returns algo.ErrConverged once the
// plan moved by at most Tol in ℓ1, and an error if the inner Sinkhorn
// fails (its ErrDiverged).
func (g *GW) Step() error {
	if g.iter > 0 && g.change <= g.cfg.Tol {
		return algo.ErrConverged
	}
	// Warm start: the inner problem on C′ = 2L⊗T − f ⊕ h, with f and h the
	// potentials of the last solve, has the same optimal plan (⟨f ⊕ h, T⟩
	// is constant on Π(p, q)) and potentials f′ = f* − f, h′ = h* − h, so
	// Sinkhorn from h′ = 0 starts at the last potentials.
	for i := range g.n {
		for j := range g.m {
			g.cs[i*g.m+j] = g.g[i*g.m+j] - g.f[i] - g.h[j]
		}
	}
	sk, err := sinkhorn.New(g.p, g.q, g.cs, sinkhorn.Config{Eps: g.cfg.Eps, Domain: sinkhorn.Log, Tol: g.cfg.InnerTol})
	if err != nil {
		return err
	}
	k := 0
	for ; k < g.cfg.InnerIters; k++ {
		if err = sk.Step(); err != nil {
			break
		}
	}
	if err != nil && !errors.Is(err, algo.ErrConverged) {
		return fmt.Errorf("outer iteration %d: %w", g.iter+1, err)
	}
	g.inner, g.innerErr, g.innerShort = sk.Iter(), sk.MarginalError(), err == nil
	g.t, g.prev = g.prev, g.t
	sk.Plan(g.t)
	g.fs, g.hs = sk.Potentials(g.fs, g.hs)
	for i, v := range g.fs {
		g.f[i] = finiteOr0(g.f[i] + v) // an empty atom's −Inf: start it at 0
	}
	for j, v := range g.hs {
		g.h[j] = finiteOr0(g.h[j] + v)
	}
	ch := 0.0
	for k, v := range g.t {
		ch += math.Abs(v - g.prev[k])
	}
	g.change = ch
	g.iter++
	g.evaluate()
	if !algo.Finite(g.obj) {
		return algo.Diverged("E(T) = %g at outer iteration %d", g.obj, g.iter)
	}
	if g.change <= g.cfg.Tol {
		return algo.ErrConverged
	}
	return nil
}

func finiteOr0(x float64) float64 {
	if algo.Finite(x) {
		return x
	}
	return 0
}

// Iter is the number of outer iterations made.
func (g *GW) Iter() int { return g.iter }

// Plan is the current coupling T, n×m row-major (read-only until the next
// Step).
func (g *GW) Plan() []float64 { return g.t }

// Objective is E(T) of the current plan; Entropy H(T) = −Σ T log T;
// Regularised E(T) − ε H(T), which never rises when C1 and C2 are
// Euclidean distance matrices (as Distances makes) and the inner solves
// are exact (package comment); for other matrices it may.
func (g *GW) Objective() float64   { return g.obj }
func (g *GW) Entropy() float64     { return g.ent }
func (g *GW) Regularised() float64 { return g.obj - g.cfg.Eps*g.ent }

// Change is ‖T_k − T_{k−1}‖₁ of the last Step (+Inf before the first).
func (g *GW) Change() float64 { return g.change }

// Inner reports the last inner solve: its iterations, its marginal error
// ‖T1 − p‖₁ and whether it stopped at InnerIters short of InnerTol.
func (g *GW) Inner() (iters int, err float64, short bool) { return g.inner, g.innerErr, g.innerShort }

// Eps is ε; P and Q the normalised masses; Size (n, m).
func (g *GW) Eps() float64     { return g.cfg.Eps }
func (g *GW) P() []float64     { return g.p }
func (g *GW) Q() []float64     { return g.q }
func (g *GW) Size() (int, int) { return g.n, g.m }

// Distances returns the k×k Euclidean distance matrix of k points of
// dimension dim stored row-major in x.
func Distances(x []float64, dim int) []float64 {
	d := ot.GroundCost(x, x, dim, 1)
	k := len(x) / dim
	for i := range k {
		d[i*k+i] = 0
		for j := range i {
			d[j*k+i] = d[i*k+j] // exactly symmetric
		}
	}
	return d
}
