package svm

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// The defaults of IPMConfig.
const (
	// DefaultIPMTol is the default tolerance on the relative duality gap
	// and the relative residual.
	DefaultIPMTol = 1e-10
	// DefaultIPMIter is the default cap on the iterations. Mehrotra's
	// method takes a few dozen whatever C and barely more as n grows (the
	// tests find at most 40 from C = 10⁻⁶ to 10⁴ and n = 30 to 5000): the
	// cap ends a run that rounding keeps from its tolerance, it does not
	// bound a normal one.
	DefaultIPMIter = 100
)

// IPMConfig configures IPM.
type IPMConfig struct {
	// C is the box bound 0 ≤ α_i ≤ C: a finite number > 0 (the hard
	// margin, C = +Inf, has no bounded box; SMO solves it).
	C float64
	// Tol is the stopping tolerance on the relative duality gap (P − D)/P
	// and the relative residual |Σ y_i α_i|/Σ α_i (0: DefaultIPMTol); it
	// must be below 1.
	Tol float64
	// MaxIter caps the iterations (0: DefaultIPMIter); reaching it is an
	// error.
	MaxIter int
}

// LinearSVM is the optimum IPM finds: the dual variables, the hyperplane
// and the two objectives that certify it.
type LinearSVM struct {
	// Alpha is α, in [0, C], with Σ y_i α_i = 0 to Tol relative to Σα. An
	// interior-point method approaches the bounds without reaching them:
	// the α_i of the points off the margin end near 0 or C (about
	// Cμ/|m_i − 1| from it, m_i the margin and μ the last barrier
	// parameter), not at them.
	Alpha []float64
	// W is w = Σ_i α_i y_i x_i.
	W []float64
	// B is the bias b: the multiplier of the constraint Σ y α = 0.
	B float64
	// Primal is P(w, b) = ½‖w‖² + C Σ_i (1 − y_i(w·x_i + b))⁺ at (W, B).
	Primal float64
	// Dual is D(α) = Σ_i α_i − ½‖w‖².
	Dual float64
	// Gap is the relative duality gap (P − D)/P, at most Tol (and at
	// least −|B·Σ y_i α_i|/P, a rounding below 0 at most).
	Gap float64
	// Iter is the number of interior-point iterations (Newton steps).
	Iter int
}

// IPM solves the linear soft-margin SVM on the points x (n×d, read, not
// kept) with labels y ∈ {−1, +1} by a primal–dual interior-point method,
// to a relative duality gap of Config.Tol in a number of iterations that
// does not grow with C and barely with n, in O(n d²) operations each and
// O(n d) memory: the reference optimum against which slow first-order
// methods (Primal, SMO) are measured.
//
// It scales the box to [0, 1] first: with α = Cβ the dual (seed 001
// eq 6.b) is C times
//
//	min_β  ½ βᵀQβ − 1ᵀβ   s.t.  yᵀβ = 0,  0 ≤ β ≤ 1,
//	Q = ZZᵀ,  Z = √C·diag(y)X  (n×d, rank ≤ d),
//
// so that every C, from the least positive number up, gives a problem of
// the same scale. With slacks t = 1 − β and multipliers b for yᵀβ = 0,
// z ≥ 0 for β ≥ 0 and s ≥ 0 for t ≥ 0, its optimality conditions are
//
//	Qβ − 1 + by − z + s = 0,  yᵀβ = 0,  β + t = 1,
//	β_i z_i = 0,  t_i s_i = 0,  β, t, z, s ≥ 0,
//
// where (Qβ)_i + by_i − 1 = y_i(w·x_i + b) − 1, w = CΣβ_iy_ix_i, is the
// margin's excess: the multiplier b is the bias, s_i the slack ξ_i of the
// primal, and complementarity is the SVM's KKT conditions. The method is
// that of Ferris & Munson, "Interior-point methods for massive support
// vector machines" (SIAM J. Optim. 13(3), 783–804, 2002): Mehrotra's
// predictor–corrector on these conditions relaxed to β_iz_i = t_is_i = σμ,
// μ = (βᵀz + tᵀs)/2n, σ = (μ_aff/μ)³ from the affine-scaling step, 0.995
// of the longest step that keeps β, t, z, s > 0, and one step length for
// all variables (Q couples them), from β = t = ½, b = 0 and the least
// z, s ≥ 1 that satisfy the first equation. Each iteration solves two
// Newton systems with one matrix; eliminating Δz, Δs and Δt leaves
//
//	(Q + D)Δβ + yΔb = r,  yᵀΔβ = −yᵀβ,  D = diag(z_i/β_i + s_i/t_i),
//
// whose n×n matrix M = D + ZZᵀ is diagonal plus rank d. Ferris & Munson
// apply M⁻¹ by the Sherman–Morrison–Woodbury identity, M⁻¹ = D⁻¹ −
// D⁻¹Z(I + ZᵀD⁻¹Z)⁻¹ZᵀD⁻¹, which cancels large terms once D spans many
// orders of magnitude (z_i/β_i → ∞ off the margin, → 0 on it): on 30
// points in 5 dimensions at C = 10⁴ its solutions left a Newton residual
// of 10⁻⁷ (10⁻¹³ after a step of iterative refinement) until μ fell to
// 10⁻¹¹, where refinement stopped converging and the iterates broke down
// at a relative gap of 1.6·10⁻⁹. Here M is factored instead in the
// product form of Goldfarb & Scheinberg (Math. Program. 99, 1–34, 2004;
// for SVMs IMA J. Numer. Anal. 28(4), 806–826, 2008), as stable as a
// Cholesky factorisation of M and as cheap as SMW (on that problem its
// residuals stay below 10⁻¹³ from μ = 1 down to μ = 10⁻²⁶, with no
// refinement): each column z_k of Z adds a
// rank-one term, D_{k−1} + w_kw_kᵀ = L_k D_k L_kᵀ with w_k =
// (L_1⋯L_{k−1})⁻¹z_k, by the recurrence of Fletcher & Powell (Math.
// Comp. 28, 1067–1087, 1974)
//
//	t_0 = 1,  t_j = t_{j−1} + w_j²/D_j,  D'_j = D_j t_j/t_{j−1},  γ_j = w_j/(D_j t_j),
//
// where L_k is unit lower triangular with (L_k)_ij = w_iγ_j below the
// diagonal, so that M = L_1⋯L_d D_d L_dᵀ⋯L_1ᵀ and a solve is d sweeps
// forward and d back, each O(n) with a running sum. The bias's row is the
// Schur complement yᵀM⁻¹y of the bordered system. An iteration costs
// O(n d²) operations; the method holds sixteen n-vectors and the 2nd
// numbers of the factors.
//
// It stops when, at the current (β, b), the honest primal P(w, b) — the
// hinge sum at w and b, not the interior point's estimate of it — and the
// dual D(α) are within Tol of each other relative to P (P > 0 when both
// classes are present), and |yᵀβ|/1ᵀβ ≤ Tol. By weak duality D(α) ≤ D* =
// P* ≤ P(w, b) (seed 003 L625) for α in the box with Σyα = 0, so both are
// then within Tol of the optimum (the residual adds at most |b·yᵀα|); the
// dual residual needs no test of its own, P(w, b) being what it would
// spoil. Each point's share of the gap is its KKT violation:
// (1 − β_i)(1 − m_i) for a margin m_i = y_i(w·x_i + b) < 1, β_i(m_i − 1)
// for m_i ≥ 1. Duplicate points, one point with both labels, a class
// entirely at the bound and separable data (the box stays bounded) need
// nothing special: the optimum need not be unique (α is not when points
// coincide, b is not when no α is strictly inside the box), and the
// method then ends near the centre of the optimal set.
//
// Rounding limits the attainable gap: each α_i is held to about
// 10⁻¹⁶·C, and the margins, computed from w = Σα_iy_ix_i (a sum taken as
// if in twice the precision: see zt), inherit errors of about
// 10⁻¹⁶·C·√n·max‖x_i‖, no longer small beside the margins when C‖x‖²
// is beyond about 10⁶ (on the lab's data sets the tolerance 10⁻¹⁰ is met
// up to C = 10⁶, on some up to 10⁸). Once
// complementarity's share of the gap, 2nμ, is below a hundredth of the
// tolerance, what remains is rounding: the steps keep their target σμ
// above a thousandth of it (beyond, their matrix is too ill-conditioned
// to solve) and the run ends with an error after ten such iterations
// that do not meet the tolerance. Bad input —
// fewer than 2 points, a class missing, a label not ±1, a value not
// finite, rows of different lengths, C not a finite positive number — is
// a *algo.ParamError; reaching MaxIter, or an iterate that is not finite,
// is an ErrDiverged error.
func IPM(x [][]float64, y []float64, cfg IPMConfig) (*LinearSVM, error) {
	tol, maxIter := cfg.Tol, cfg.MaxIter
	if tol == 0 {
		tol = DefaultIPMTol
	}
	if maxIter == 0 {
		maxIter = DefaultIPMIter
	}
	if len(x) != len(y) {
		return nil, algo.BadParam("data", len(x), fmt.Sprintf("%d points for %d labels", len(x), len(y)))
	}
	if err := check(y, Config{C: cfg.C, Tol: tol}); err != nil {
		return nil, err
	}
	if math.IsInf(cfg.C, 1) {
		return nil, algo.BadParam("C", cfg.C, "a finite number > 0")
	}
	if !(tol < 1) {
		return nil, algo.BadParam("tol", tol, "in (0, 1)")
	}
	if maxIter < 0 {
		return nil, algo.BadParam("max_iter", maxIter, "≥ 0 (0: the default)")
	}
	d := len(x[0])
	if d == 0 {
		return nil, algo.BadParam("data", 0, "at least one feature")
	}
	for i, xi := range x {
		if len(xi) != d {
			return nil, algo.BadParam("data", fmt.Sprintf("row %d has %d features", i, len(xi)), fmt.Sprintf("%d features in every row", d))
		}
		for j, v := range xi {
			if !algo.Finite(v) {
				return nil, algo.BadParam("data", fmt.Sprintf("x[%d][%d] = %v", i, j, v), "finite numbers")
			}
		}
	}
	p := newIPM(x, y, cfg.C)
	stalled := 0
	for {
		if err := p.measure(); err != nil {
			return nil, err
		}
		if p.gap <= tol && p.res <= tol {
			return p.solution(), nil
		}
		// Complementarity's share of the gap, 2nμ, below a hundredth of
		// the tolerance: what remains is rounding, which the steps
		// (whose target μ stays above a thousandth of it, where their
		// matrix is not yet too ill-conditioned to solve) may undo by
		// chance, for a few iterations, or not.
		p.muMin = 1e-3 * tol * p.pObj / float64(2*p.n)
		if float64(2*p.n)*p.mu <= 0.01*tol*p.pObj {
			if stalled++; stalled > 10 {
				return nil, algo.Diverged("interior point: rounding keeps the relative duality gap at %.3g (residual %.3g), above the tolerance %g, after %d iterations",
					p.gap, p.res, tol, p.iter)
			}
		}
		if p.iter >= maxIter {
			return nil, algo.Diverged("interior point: relative duality gap %.3g and residual %.3g after %d iterations, above the tolerance %g",
				p.gap, p.res, p.iter, tol)
		}
		p.step()
	}
}

// ipm is the state of IPM on the scaled problem (see IPM).
type ipm struct {
	x  [][]float64
	y  []float64
	n  int
	d  int
	c  float64 // C
	sc float64 // √C

	beta, t, z, s []float64
	b             float64
	iter          int

	// At the current iterate (measure): v = Zᵀβ, the residuals r_d,
	// r_u = β + t − 1 and r_p = yᵀβ, μ, the scaled objectives P/C and
	// D/C, and the stopping measures.
	v          []float64
	rd, ru     []float64
	rp, mu     float64
	pObj, dObj float64
	gap, res   float64
	muMin      float64 // the least target σμ

	// The Newton systems: D, M's factors (the w_k and γ_k of L_k, and
	// D_d), M⁻¹y and yᵀM⁻¹y; the reduced system's right side and the
	// complementarity's; the direction.
	dd       []float64
	lw, lg   []float64 // w_k and γ_k, n×d row-major: point i's d entries together
	sums, ts []float64 // factor's running sums of L_j⁻¹ on z_k (j < k), and the t of each L_k
	run      []float64 // msolve's running sums
	comp     []float64 // zt's summed rounding errors
	dfin, my []float64
	yMy      float64
	r        []float64
	rz, rs   []float64
	dB, dT   []float64
	dz, ds   []float64
	db       float64
}

func newIPM(x [][]float64, y []float64, c float64) *ipm {
	n, d := len(x), len(x[0])
	p := &ipm{x: x, y: y, n: n, d: d, c: c, sc: math.Sqrt(c)}
	vec := func() []float64 { return make([]float64, n) }
	p.beta, p.t, p.z, p.s = vec(), vec(), vec(), vec()
	p.rd, p.ru, p.dd = vec(), vec(), vec()
	p.lw, p.lg = make([]float64, n*d), make([]float64, n*d)
	p.sums, p.ts, p.run, p.comp = make([]float64, d*d), make([]float64, d), make([]float64, d), make([]float64, d)
	p.dfin, p.my = vec(), vec()
	p.r = vec()
	p.rz, p.rs = vec(), vec()
	p.dB, p.dT, p.dz, p.ds = vec(), vec(), vec(), vec()
	p.v = make([]float64, d)
	// The start: β = t = ½ and b = 0, with z and s the least that make
	// r_d = 0 and keep them ≥ 1: s_i − z_i = 1 − (Qβ)_i.
	for i := range p.beta {
		p.beta[i], p.t[i] = 0.5, 0.5
	}
	p.zt(p.v, p.beta)
	for i, xi := range x {
		g := 1 - p.y[i]*p.sc*dotp(p.v, xi)
		p.z[i], p.s[i] = 1+math.Max(-g, 0), 1+math.Max(g, 0)
	}
	return p
}

// zt sets v = Zᵀa = √C Σ_i a_i y_i x_i, the sum as accurate as if it
// were taken in twice the precision (Ogita, Rump & Oishi's Dot2, SIAM J.
// Sci. Comput. 26(6), 2005: each product's rounding error by an FMA, each
// sum's by Knuth's TwoSum, the errors summed apart). At large C the
// terms are large and w small — on the ellipse preset at C = 10⁴, α = C
// for the 1,500 points inside and w ≈ 0 — and a plain sum's rounding
// kept the relative duality gap at 2·10⁻⁹.
func (p *ipm) zt(v, a []float64) {
	clear(v)
	e := p.comp
	clear(e)
	for i, xi := range p.x {
		if c := a[i] * p.y[i]; c != 0 {
			for j, xv := range xi {
				h := c * xv
				l := math.FMA(c, xv, -h) // c·xv = h + l exactly
				s := v[j] + h
				bv := s - v[j]
				e[j] += (v[j] - (s - bv)) + (h - bv) + l // v[j] + h = s + that, exactly
				v[j] = s
			}
		}
	}
	for j := range v {
		v[j] = (v[j] + e[j]) * p.sc
	}
}

// measure computes, at the current iterate, the residuals, μ, the scaled
// objectives and the stopping measures.
func (p *ipm) measure() error {
	p.zt(p.v, p.beta)
	vv := dotp(p.v, p.v) // βᵀQβ = ‖w‖²/C
	sumB, hinge, rp, mu := 0.0, 0.0, 0.0, 0.0
	for i, xi := range p.x {
		yi := p.y[i]
		m := yi * (p.sc*dotp(p.v, xi) + p.b) // y_i(w·x_i + b), w = √C v
		hinge += math.Max(0, 1-m)
		p.rd[i] = m - 1 - p.z[i] + p.s[i]
		p.ru[i] = p.beta[i] + p.t[i] - 1
		sumB += p.beta[i]
		rp += yi * p.beta[i]
		mu += p.beta[i]*p.z[i] + p.t[i]*p.s[i]
	}
	p.rp, p.mu = rp, mu/float64(2*p.n)
	p.pObj = 0.5*vv + hinge
	p.dObj = sumB - 0.5*vv
	if !algo.Finite(p.pObj) || !algo.Finite(p.dObj) || !algo.Finite(p.b) || !algo.Finite(p.mu) {
		return algo.Diverged("interior point: P/C = %v, D/C = %v, b = %v after %d iterations", p.pObj, p.dObj, p.b, p.iter)
	}
	p.gap = p.pObj - p.dObj
	if p.pObj > 0 {
		p.gap /= p.pObj
	}
	p.res = math.Abs(rp) / sumB
	return nil
}

// step takes one Mehrotra predictor–corrector step.
func (p *ipm) step() {
	for i := range p.dd {
		p.dd[i] = p.z[i]/p.beta[i] + p.s[i]/p.t[i]
	}
	p.factor()
	// Predictor: the affine-scaling direction (σ = 0).
	for i := range p.rz {
		p.rz[i] = p.beta[i] * p.z[i]
		p.rs[i] = p.t[i] * p.s[i]
	}
	p.direction()
	a := math.Min(1, p.maxStep())
	muAff := 0.0
	for i := range p.beta {
		muAff += (p.beta[i]+a*p.dB[i])*(p.z[i]+a*p.dz[i]) + (p.t[i]+a*p.dT[i])*(p.s[i]+a*p.ds[i])
	}
	muAff /= float64(2 * p.n)
	sm := math.Max(math.Pow(math.Max(muAff, 0)/p.mu, 3)*p.mu, p.muMin) // σμ
	// Corrector: the centring σμ and the predictor's second-order term,
	// with the same factors.
	for i := range p.rz {
		p.rz[i] = p.beta[i]*p.z[i] + p.dB[i]*p.dz[i] - sm
		p.rs[i] = p.t[i]*p.s[i] + p.dT[i]*p.ds[i] - sm
	}
	p.direction()
	a = math.Min(1, 0.995*p.maxStep())
	for i := range p.beta {
		p.beta[i] += a * p.dB[i]
		p.t[i] += a * p.dT[i]
		p.z[i] += a * p.dz[i]
		p.s[i] += a * p.ds[i]
	}
	p.b += a * p.db
	p.iter++
}

// direction solves the Newton system for the complementarity's right
// sides rz, rs and the current r_d, r_u, r_p (see IPM).
func (p *ipm) direction() {
	for i := range p.r {
		p.r[i] = -p.rd[i] - p.rz[i]/p.beta[i] + (p.rs[i]-p.s[i]*p.ru[i])/p.t[i]
	}
	p.db = p.bordered(p.dB, p.r, -p.rp)
	for i, dbi := range p.dB {
		p.dT[i] = -p.ru[i] - dbi
		p.dz[i] = (-p.rz[i] - p.z[i]*dbi) / p.beta[i]
		p.ds[i] = (-p.rs[i] - p.s[i]*p.dT[i]) / p.t[i]
	}
}

// maxStep returns the longest step along the direction that keeps β, t, z
// and s ≥ 0 (+Inf if none of them falls).
func (p *ipm) maxStep() float64 {
	a := math.Inf(1)
	a = stepTo(p.beta, p.dB, a)
	a = stepTo(p.t, p.dT, a)
	a = stepTo(p.z, p.dz, a)
	return stepTo(p.s, p.ds, a)
}

// stepTo returns the least of a and the longest step along dv that keeps
// v ≥ 0.
func stepTo(v, dv []float64, a float64) float64 {
	v = v[:len(dv)]
	for i, di := range dv {
		if v[i] < -a*di { // di < 0 and the step a goes below 0
			a = -v[i] / di
		}
	}
	return a
}

// factor factors M = D + ZZᵀ in product form (see IPM) and computes M⁻¹y
// and yᵀM⁻¹y. It takes one pass over the points: at point i, z_k's
// entry goes through L_1⁻¹, …, L_{k−1}⁻¹ (each with its running sum
// over the points before i) and then into the recurrence of L_k.
func (p *ipm) factor() {
	d := p.d
	sums, ts := p.sums, p.ts
	clear(sums)
	for k := range ts {
		ts[k] = 1
	}
	for i, xi := range p.x {
		di := p.dd[i]
		w, g := p.lw[i*d:i*d+d], p.lg[i*d:i*d+d]
		for k, xk := range xi {
			v := p.sc * p.y[i] * xk // (z_k)_i
			for j := range k {
				v -= w[j] * sums[j*d+k]
				sums[j*d+k] += g[j] * v
			}
			w[k] = v
			tn := ts[k] + v*v/di
			g[k] = v / (di * tn)
			di *= tn / ts[k]
			ts[k] = tn
		}
		p.dfin[i] = di
	}
	copy(p.my, p.y)
	p.msolve(p.my)
	p.yMy = dotp(p.y, p.my)
}

// msolve solves M x = b in place (x holds b): L_1⋯L_d, then D_d, then
// L_dᵀ⋯L_1ᵀ, each L_k's solve a sweep with a running sum (L_k = I plus
// the part below the diagonal of w_kγ_kᵀ), the d forward sweeps fused
// into one pass and the d backward ones into another.
func (p *ipm) msolve(x []float64) {
	d := p.d
	s := p.run
	clear(s)
	for i := range x {
		w, g := p.lw[i*d:i*d+d], p.lg[i*d:i*d+d]
		v := x[i]
		for k := range s {
			v -= w[k] * s[k]
			s[k] += g[k] * v
		}
		x[i] = v / p.dfin[i]
	}
	clear(s)
	for i := len(x) - 1; i >= 0; i-- {
		w, g := p.lw[i*d:i*d+d], p.lg[i*d:i*d+d]
		v := x[i]
		for k := d - 1; k >= 0; k-- {
			v -= g[k] * s[k]
			s[k] += w[k] * v
		}
		x[i] = v
	}
}

// bordered solves MΔβ + yΔb = r, yᵀΔβ = e into dst and returns Δb:
// Δb = (yᵀM⁻¹r − e)/yᵀM⁻¹y, Δβ = M⁻¹r − Δb·M⁻¹y.
func (p *ipm) bordered(dst, r []float64, e float64) float64 {
	copy(dst, r)
	p.msolve(dst)
	db := (dotp(p.y, dst) - e) / p.yMy
	for i, v := range p.my {
		dst[i] -= db * v
	}
	return db
}

// solution is the answer in the problem's own scale: α = Cβ, w = √C·v,
// P = C·(P/C) and D = C·(D/C).
func (p *ipm) solution() *LinearSVM {
	sol := &LinearSVM{Alpha: make([]float64, p.n), W: make([]float64, p.d), B: p.b,
		Primal: p.c * p.pObj, Dual: p.c * p.dObj, Gap: p.gap, Iter: p.iter}
	for i, b := range p.beta {
		sol.Alpha[i] = p.c * math.Min(b, 1)
	}
	for j, v := range p.v {
		sol.W[j] = p.sc * v
	}
	return sol
}
