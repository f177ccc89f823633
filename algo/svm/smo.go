// Package svm holds the support-vector-machine engines: the dual soft- and
// hard-margin SVM solved by sequential minimal optimisation (SMO) with
// second-order working-set selection, for any kernel, and subgradient /
// stochastic-subgradient descent on the linear SVM's primal hinge
// objective.
//
// Labels are ±1 throughout (seed 001 §5 writes y, seed 003 L740 writes d^i
// for the same labels: erratum 6 of the seed-003 catalogue).
package svm

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
)

// tau replaces a non-positive curvature a_ij = K_ii + K_jj − 2K_ij (an
// indefinite kernel, or two identical points) so that the pair step stays
// finite (Fan, Chen & Lin 2005, §4; LIBSVM's TAU).
const tau = 1e-12

// MinMargin is the smallest geometric margin, relative to the radius
// R = max_i √K_ii of the data in feature space, for which a hard-margin run
// goes on. On data that no hyperplane of the feature space separates, the
// hard-margin dual is unbounded (its primal is infeasible; seed 003 L795,
// seed 001 [A8] "infeasible data must be detected") and SMO's Σα grows
// without end. Every iterate certifies an upper bound on the margin: with
// Σ_{y=+1} α = Σ_{y=−1} α = Σα/2, w = Σ α_i y_i Φ(x_i) = (Σα/2)(p − q) for
// points p, q of the two classes' convex hulls, so the hulls are at most
// 2‖w‖/Σα apart and the best margin is at most ‖w‖/Σα. When that bound
// falls below MinMargin·R the run ends with ErrDiverged.
const MinMargin = 1e-4

// Config configures an SMO.
type Config struct {
	// C is the box bound 0 ≤ α_i ≤ C of the soft-margin dual; +Inf gives
	// the hard-margin SVM (seed 001 eq 6.a and L554: hard margin is the
	// limit C → ∞).
	C float64
	// Tol is the stopping tolerance on the maximal KKT violation
	// m(α) − M(α) (LIBSVM's eps; 1e-3 is LIBSVM's default).
	Tol float64
	// Cache is the bytes of kernel rows NewKernel keeps (0: DefaultCache);
	// at least two rows are kept, at most all n.
	Cache int64
	// Shrink leaves out of the working-set selection the variables at a
	// bound that the KKT conditions hold there by a margin (LIBSVM's
	// shrinking, Chang & Lin 2011, §5.2): see SMO.
	Shrink bool
	// Reserve allocates NewKernel's whole cache when it starts rather
	// than row by row as the rows are first computed, so that what the
	// solver will hold (KernelFootprint) is held from the start: how many
	// rows a run computes depends on its path, and a server charges a
	// session for the memory before it runs.
	Reserve bool
}

// SMO solves the SVM dual (seed 003 L740–744, with the box of seed 001
// eq 6.b, L612)
//
//	max_α  D(α) = Σ_i α_i − ½ Σ_ij α_i α_j y_i y_j K_ij
//	s.t.   Σ_i y_i α_i = 0,  0 ≤ α_i ≤ C,
//
// by sequential minimal optimisation: each Step solves the dual exactly in
// one pair (α_i, α_j), moving along the constraint Σ y α = 0 (which stays
// exact) and clipping to the box. The notes only name SMO (seed 003 L802);
// the solver follows LIBSVM (Chang & Lin 2011, §4.1) with the second-order
// working-set selection of Fan, Chen & Lin (2005), WSS 2, which converges
// on real data where Platt's first-order heuristic and the "simplified
// SMO" of the catalogue stall: with G = ∇(−D) = Qα − 1, Q_ij = y_i y_j K_ij,
//
//	i ∈ argmax { −y_t G_t : t ∈ I_up(α) }
//	j ∈ argmin { −(−y_iG_i + y_tG_t)² / a_it : t ∈ I_low(α), −y_tG_t < −y_iG_i }
//
// with a_it = K_ii + K_tt − 2K_it, I_up = {t : y_t = +1, α_t < C, or y_t = −1,
// α_t > 0} and I_low the mirror. α is optimal iff m(α) = max_{I_up} −y G ≤
// M(α) = min_{I_low} −y G (the KKT conditions); the run converges
// (ErrConverged) when m − M ≤ Tol. A step costs O(n) and does not
// allocate, besides the two kernel rows it needs: from a kernel matrix
// computed beforehand (New), or computed on demand and kept in a bounded
// least-recently-used cache (NewKernel, LIBSVM's kernel cache), so that
// memory stays bounded whatever n.
//
// With Config.Shrink, every min(n, 1000) steps the variables at a bound
// that no pair can move for now — at α = 0 or C with −y_tG_t beyond m(α)
// or M(α) on the side the bound allows — leave the selection (LIBSVM's
// shrinking rule); the first time m − M ≤ 10·Tol they all come back once,
// and when the selection converges on the active variables every
// variable comes back and the run converges only if it does on all of
// them. Unlike LIBSVM's, the gradient is kept for every variable (the
// pair update costs O(n) either way, the selection only O(active)), so
// the bias, margins, primal and KKT violation stay exact at every step.
//
// The dual D(α) is kept as it goes: a pair step changes it by
// −Δ_iG_i − Δ_jG_j − ½Δ_i²K_ii − ½Δ_j²K_jj − Δ_iΔ_jy_iy_jK_ij (with G
// before the step), in O(1), resynchronised from G every 1,000 steps.
//
// The bias is b = −ρ with ρ the mean of y_i G_i over the free support
// vectors (0 < α_i < C), or the midpoint of the feasible interval when
// there are none (LIBSVM), and F(x) = Σ_i α_i y_i k(x_i, x) + b. Support
// vectors are the points with α_i > 0, not those with y_iF_i = 1 (erratum 7
// of the seed-003 catalogue: on degenerate data margin points can have
// α = 0).
type SMO struct {
	n    int
	rows rows
	kd   []float64 // the diagonal K_tt, contiguous for the selection loop
	y    []float64
	c    float64
	tol  float64
	a    []float64 // α
	g    []float64 // G = Qα − 1
	sumA float64
	dual float64 // D(α), kept as it goes
	iter int
	// radius is R = max_i √K_ii, the data's radius in feature space.
	radius float64

	// The variables the selection looks at (all of them without
	// shrinking), and shrinking's state.
	active   []int32
	shrink   bool
	counter  int  // steps to the next shrinking
	unshrunk bool // the once-only return of every variable near the end

	// The next working pair and the violation m − M at the current α
	// (over the active variables).
	wi, wj int
	viol   float64
}

// New starts SMO from α = 0 on a Gram matrix (n×n row-major, kept, not
// copied: do not modify it) and labels y ∈ {−1, +1} with both classes
// present. Config.Cache is not used.
func New(gram, y []float64, cfg Config) (*SMO, error) {
	n := len(y)
	if n >= 2 && len(gram) != n*n {
		return nil, algo.BadParam("gram", len(gram), fmt.Sprintf("an %d×%d matrix", n, n))
	}
	if err := check(y, cfg); err != nil {
		return nil, err
	}
	kd := make([]float64, n)
	for i := range kd {
		kd[i] = gram[i*n+i]
	}
	return start(gramRows{k: gram, n: n}, kd, y, cfg), nil
}

// NewKernel starts SMO from α = 0 on the points x (kept, not copied) with
// kernel k, computing kernel rows as the steps need them and keeping up to
// Config.Cache bytes of them (see SMO).
func NewKernel(x [][]float64, k kernel.Kernel, y []float64, cfg Config) (*SMO, error) {
	if len(x) != len(y) {
		return nil, algo.BadParam("data", len(x), fmt.Sprintf("%d points for %d labels", len(x), len(y)))
	}
	if err := check(y, cfg); err != nil {
		return nil, err
	}
	if len(x[0]) == 0 {
		return nil, algo.BadParam("data", 0, "at least one feature")
	}
	cache := cfg.Cache
	if cache <= 0 {
		cache = DefaultCache
	}
	r := newCachedRows(x, k, cache, cfg.Reserve)
	return start(r, r.diag(), y, cfg), nil
}

// KernelFootprint is the bytes NewKernel allocates for n points of d
// features and a cache of that many bytes (0: DefaultCache), its cache
// full: the cached rows (4n bytes each), the feature-major copy of the
// points, and per point the gradient, α, the diagonal, the norms, the
// active set and the cache's bookkeeping. The points themselves are the
// caller's.
func KernelFootprint(n, d int, cache int64) int64 {
	if cache <= 0 {
		cache = DefaultCache
	}
	rows := int64(cacheRows(n, cache))
	return 4*int64(n)*rows + 12*rows + int64(8*(d+5)+8)*int64(n)
}

// check validates the labels and the configuration.
func check(y []float64, cfg Config) error {
	n := len(y)
	if n < 2 {
		return algo.BadParam("data", n, "at least 2 points")
	}
	pos, neg := 0, 0
	for i, v := range y {
		switch v {
		case 1:
			pos++
		case -1:
			neg++
		default:
			return algo.BadParam("labels", fmt.Sprintf("y[%d] = %v", i, v), "each −1 or +1")
		}
	}
	if pos == 0 || neg == 0 {
		return algo.BadParam("labels", fmt.Sprintf("%d positive, %d negative", pos, neg), "both classes present")
	}
	if !(cfg.C > 0) {
		return algo.BadParam("C", cfg.C, "> 0 (or +Inf for the hard margin)")
	}
	if !(cfg.Tol > 0) || math.IsInf(cfg.Tol, 0) {
		return algo.BadParam("tol", cfg.Tol, "a finite number > 0")
	}
	return nil
}

func start(r rows, kd, y []float64, cfg Config) *SMO {
	n := len(y)
	s := &SMO{n: n, rows: r, kd: kd, y: y, c: cfg.C, tol: cfg.Tol, a: make([]float64, n), g: make([]float64, n),
		active: make([]int32, n), shrink: cfg.Shrink, counter: min(n, 1000) + 1}
	for i := range s.g {
		s.g[i] = -1
		s.active[i] = int32(i)
		s.radius = math.Max(s.radius, math.Sqrt(math.Max(kd[i], 0)))
	}
	s.selectPair()
	return s
}

func (s *SMO) inUp(t int) bool {
	if s.y[t] > 0 {
		return s.a[t] < s.c
	}
	return s.a[t] > 0
}

func (s *SMO) inLow(t int) bool {
	if s.y[t] > 0 {
		return s.a[t] > 0
	}
	return s.a[t] < s.c
}

// selectPair runs WSS 2 over the active variables and records the
// violation m(α) − M(α); when that is within the tolerance while some
// variables are shrunk, it brings them all back and selects again.
func (s *SMO) selectPair() {
	s.wi, s.wj, s.viol = s.wss()
	if s.viol <= s.tol && len(s.active) < s.n {
		s.activateAll()
		s.wi, s.wj, s.viol = s.wss()
	}
}

// wss is WSS 2 over the active variables.
func (s *SMO) wss() (i, j int, viol float64) {
	gmax, i := math.Inf(-1), -1
	for _, t32 := range s.active {
		t := int(t32)
		if s.inUp(t) {
			if v := -s.y[t] * s.g[t]; v >= gmax {
				gmax, i = v, t
			}
		}
	}
	gmax2, j := math.Inf(-1), -1
	if i >= 0 {
		if k64, k32 := s.rows.row(i); k64 != nil {
			j, gmax2 = pickJ(s, k64, i, gmax)
		} else {
			j, gmax2 = pickJ(s, k32, i, gmax)
		}
	}
	if i < 0 || math.IsInf(gmax2, -1) {
		return i, j, 0
	}
	return i, j, gmax + gmax2
}

// pickJ is the second half of WSS 2: j among the active I_low that
// maximises the second-order gain with i, and max_{I_low} y_tG_t.
func pickJ[T float32 | float64](s *SMO, ki []T, i int, gmax float64) (j int, gmax2 float64) {
	gmax2, j = math.Inf(-1), -1
	best := math.Inf(1)
	kii := s.kd[i]
	for _, t32 := range s.active {
		t := int(t32)
		if !s.inLow(t) {
			continue
		}
		ytgt := s.y[t] * s.g[t]
		if ytgt > gmax2 {
			gmax2 = ytgt
		}
		if diff := gmax + ytgt; diff > 0 {
			a := kii + s.kd[t] - 2*float64(ki[t])
			if a <= 0 {
				a = tau
			}
			if obj := -diff * diff / a; obj <= best {
				best, j = obj, t
			}
		}
	}
	return j, gmax2
}

// addPair is G_t += y_t(K_ti·di + K_tj·dj) for every t.
func addPair[T float32 | float64](g, y []float64, ki, kj []T, di, dj float64) {
	y, ki, kj = y[:len(g)], ki[:len(g)], kj[:len(g)]
	for t := range g {
		g[t] += y[t] * (float64(ki[t])*di + float64(kj[t])*dj)
	}
}

// activateAll puts every variable back in the selection.
func (s *SMO) activateAll() {
	s.active = s.active[:s.n]
	for t := range s.active {
		s.active[t] = int32(t)
	}
}

// doShrinking is LIBSVM's do_shrinking with m = Gmax1 and M = −Gmax2 over
// the active variables: a variable that only I_up holds leaves when
// −y_tG_t < M, one that only I_low holds when −y_tG_t > m (free variables
// never leave).
func (s *SMO) doShrinking() {
	gmax1, gmax2 := math.Inf(-1), math.Inf(-1)
	for _, t32 := range s.active {
		t := int(t32)
		yg := s.y[t] * s.g[t]
		if s.inUp(t) {
			gmax1 = math.Max(gmax1, -yg)
		}
		if s.inLow(t) {
			gmax2 = math.Max(gmax2, yg)
		}
	}
	if !s.unshrunk && gmax1+gmax2 <= 10*s.tol {
		s.unshrunk = true
		s.activateAll()
	}
	kept := s.active[:0]
	for _, t32 := range s.active {
		t := int(t32)
		up, low := s.inUp(t), s.inLow(t)
		yg := s.y[t] * s.g[t]
		if (up && !low && yg > gmax2) || (low && !up && -yg > gmax1) {
			continue
		}
		kept = append(kept, t32)
	}
	s.active = kept
}

// Active is the number of variables the selection looks at (n without
// shrinking).
func (s *SMO) Active() int { return len(s.active) }

// RowsComputed is the number of kernel rows computed so far: n for a
// Gram matrix given beforehand; with NewKernel, each row the steps asked
// for, once, or again after its eviction from the cache.
func (s *SMO) RowsComputed() int { return s.rows.computed() }

// Step updates one pair. It returns ErrConverged (before moving) once the
// maximal KKT violation is at most Tol, and an ErrDiverged error when a
// hard-margin dual grows without bound.
func (s *SMO) Step() error {
	if s.viol <= s.tol || s.wj < 0 {
		return algo.ErrConverged
	}
	i, j := s.wi, s.wj
	c := s.c
	ki64, ki32 := s.rows.row(i)
	kj64, kj32 := s.rows.row(j)
	var kij float64
	if ki64 != nil {
		kij = ki64[j]
	} else {
		kij = float64(ki32[j])
	}
	ai, aj := s.a[i], s.a[j]
	gi, gj := s.g[i], s.g[j]
	quad := s.kd[i] + s.kd[j] - 2*kij
	if quad <= 0 {
		quad = tau
	}
	// LIBSVM's two-variable sub-problem (Chang & Lin 2011, §6), with one C.
	if s.y[i] != s.y[j] {
		delta := (-s.g[i] - s.g[j]) / quad
		diff := s.a[i] - s.a[j]
		s.a[i] += delta
		s.a[j] += delta
		if diff > 0 {
			if s.a[j] < 0 {
				s.a[j], s.a[i] = 0, diff
			}
		} else if s.a[i] < 0 {
			s.a[i], s.a[j] = 0, -diff
		}
		if diff > 0 {
			if s.a[i] > c {
				s.a[i], s.a[j] = c, c-diff
			}
		} else if s.a[j] > c {
			s.a[j], s.a[i] = c, c+diff
		}
	} else {
		delta := (s.g[i] - s.g[j]) / quad
		sum := s.a[i] + s.a[j]
		s.a[i] -= delta
		s.a[j] += delta
		if sum > c {
			if s.a[i] > c {
				s.a[i], s.a[j] = c, sum-c
			}
		} else if s.a[j] < 0 {
			s.a[j], s.a[i] = 0, sum
		}
		if sum > c {
			if s.a[j] > c {
				s.a[j], s.a[i] = c, sum-c
			}
		} else if s.a[i] < 0 {
			s.a[i], s.a[j] = 0, sum
		}
	}
	// G_t += Q_ti Δα_i + Q_tj Δα_j, Q_ti = y_t y_i K_ti.
	dai, daj := s.a[i]-ai, s.a[j]-aj
	di, dj := dai*s.y[i], daj*s.y[j]
	if ki64 != nil {
		addPair(s.g, s.y, ki64, kj64, di, dj)
	} else {
		addPair(s.g, s.y, ki32, kj32, di, dj)
	}
	s.sumA += dai + daj
	s.dual -= dai*gi + daj*gj + 0.5*(dai*dai*s.kd[i]+daj*daj*s.kd[j]) + di*dj*kij
	s.iter++
	if math.IsNaN(s.sumA) || math.IsInf(s.sumA, 0) {
		return algo.Diverged("Σα = %v after %d steps", s.sumA, s.iter)
	}
	if s.iter%1000 == 0 {
		s.dual = s.SumAlpha() - 0.5*s.WNormSq()
	}
	if math.IsInf(s.c, 1) && s.sumA > 0 {
		// ‖w‖² = αᵀQα = 2(Σα − D).
		if m := math.Sqrt(math.Max(2*(s.sumA-s.dual), 0)) / s.sumA; m < MinMargin*s.radius {
			return algo.Diverged("hard margin: the classes' convex hulls in feature space are within %.2g of each other "+
				"(margin ≤ %.2g·R), so no hyperplane separates them and the dual is unbounded: use a finite C", 2*m, m/s.radius)
		}
	}
	if s.shrink {
		if s.counter--; s.counter == 0 {
			s.counter = min(s.n, 1000)
			s.doShrinking()
		}
	}
	s.selectPair()
	return nil
}

// Iter is the number of pair updates.
func (s *SMO) Iter() int { return s.iter }

// Pair returns the pair the next Step will update (−1 when none).
func (s *SMO) Pair() (i, j int) { return s.wi, s.wj }

// N is the number of training points.
func (s *SMO) N() int { return s.n }

// C returns the box bound.
func (s *SMO) C() float64 { return s.c }

// Alpha returns α (a view: do not modify).
func (s *SMO) Alpha() []float64 { return s.a }

// Labels returns y (a view).
func (s *SMO) Labels() []float64 { return s.y }

// KKT is the maximal violation m(α) − M(α) of the optimality conditions (0
// at an exact optimum).
func (s *SMO) KKT() float64 { return math.Max(s.viol, 0) }

// Bias returns b = −ρ (see SMO).
func (s *SMO) Bias() float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	free, sum := 0, 0.0
	for t := 0; t < s.n; t++ {
		yg := s.y[t] * s.g[t]
		switch {
		case s.a[t] >= s.c:
			if s.y[t] < 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case s.a[t] <= 0:
			if s.y[t] > 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		default:
			free++
			sum += yg
		}
	}
	var rho float64
	switch {
	case free > 0:
		rho = sum / float64(free)
	case math.IsInf(ub, 1):
		rho = lb
	case math.IsInf(lb, -1):
		rho = ub
	default:
		rho = (ub + lb) / 2
	}
	return -rho
}

// Margin returns y_i F(x_i) = G_i + 1 + y_i b for training point i.
func (s *SMO) Margin(i int, b float64) float64 { return s.g[i] + 1 + s.y[i]*b }

// WNormSq returns ‖w‖² = αᵀQα = Σ_i α_i (G_i + 1), w = Σ α_i y_i Φ(x_i).
func (s *SMO) WNormSq() float64 {
	q := 0.0
	for t, a := range s.a {
		if a != 0 {
			q += a * (s.g[t] + 1)
		}
	}
	return q
}

// SumAlpha returns Σ_i α_i.
func (s *SMO) SumAlpha() float64 {
	sum := 0.0
	for _, a := range s.a {
		sum += a
	}
	return sum
}

// Dual returns D(α) = Σα − ½‖w‖² (kept as it goes: O(1)).
func (s *SMO) Dual() float64 { return s.dual }

// Primal returns the soft-margin primal P(w, b) = ½‖w‖² + C Σ_i (1 − y_iF_i)⁺
// (seed 001 eq 6.a) at w = Σ α_i y_i Φ(x_i) and b = Bias(). For the hard
// margin (C = +Inf) it returns ½‖w‖², the primal value once the
// constraints hold; see Violation for how far they are from holding. By
// weak duality P ≥ D for every feasible α (seed 003 L625), and the gap
// P − D vanishes at the optimum (strong duality, L644–659).
func (s *SMO) Primal() float64 {
	p := 0.5 * s.WNormSq()
	if math.IsInf(s.c, 1) {
		return p
	}
	b := s.Bias()
	h := 0.0
	for t := 0; t < s.n; t++ {
		h += math.Max(0, 1-s.Margin(t, b))
	}
	return p + s.c*h
}

// Violation returns max_i (1 − y_iF_i)⁺, the largest violation of the
// hard-margin constraints y_iF_i ≥ 1 (seed 003 L480).
func (s *SMO) Violation() float64 {
	b := s.Bias()
	v := 0.0
	for t := 0; t < s.n; t++ {
		v = math.Max(v, 1-s.Margin(t, b))
	}
	return v
}

// Counts returns the numbers of free support vectors (0 < α < C), bounded
// ones (α = C) and non-support vectors (α = 0).
func (s *SMO) Counts() (free, bounded, zero int) {
	for _, a := range s.a {
		switch {
		case a <= 0:
			zero++
		case a >= s.c:
			bounded++
		default:
			free++
		}
	}
	return
}

// Decision returns F(x) = Σ_i α_i y_i k_i + b for the kernel values
// k_i = k(x_i, x) of a point against the training points.
func (s *SMO) Decision(k []float64, b float64) float64 {
	f := b
	for i, a := range s.a {
		if a != 0 {
			f += a * s.y[i] * k[i]
		}
	}
	return f
}
