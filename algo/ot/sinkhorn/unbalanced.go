package sinkhorn

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
)

// Unbalanced is entropic unbalanced OT (Chizat, Peyré, Schmitzer &
// Vialard 2018, "Scaling algorithms for unbalanced optimal transport
// problems", §3 and Prop 3.8 with φ = τ KL; Frogner et al. 2015; POT's
// ot.unbalanced.sinkhorn_unbalanced with reg_type "kl"): the masses a and
// b need not have one total, the marginals of the plan are only pulled
// towards them,
//
//	min_{P ≥ 0} ⟨C, P⟩ + ε KL(P | a⊗b) + τ KL(P1 | a) + τ KL(Pᵀ1 | b),
//
// with KL(p | q) = Σ p log(p/q) − p + q. Its solution is
// P_ij = a_i b_j exp(α_i + β_j − C_ij/ε) with the scalings u = e^α,
// v = e^β of the iterations u = (a ./ K v)^κ, v = (b ./ Kᵀu)^κ,
// K = diag(a) exp(−C/ε) diag(b), κ = τ/(τ + ε), carried here in the log
// domain like Sinkhorn's Log (no exponential of −C/ε is formed):
//
//	α_i = −κ LSE_j(β_j + log b_j − C_ij/ε),  β_j = −κ LSE_i(α_i + log a_i − C_ij/ε).
//
// Each half-step maximises the concave dual
//
//	D(f, g) = τ⟨a, 1 − e^{−f/τ}⟩ + τ⟨b, 1 − e^{−g/τ}⟩ − ε⟨a⊗b, e^{(f⊕g−C)/ε} − 1⟩
//
// (f = εα, g = εβ) exactly in one block of variables, so D never
// decreases; at the optimum it equals the primal objective. As τ → ∞,
// κ → 1 and the iterations are Sinkhorn's (the a⊗b in the kernel only
// shifts the potentials): the plan tends to the balanced one. A large
// mass that has to travel far costs more than the τ KL penalty of leaving
// it behind, so the plan transports less than a or b and skips outliers.
type Unbalanced struct {
	n, m         int
	c            []float64 // C, n×m (the caller's)
	ct           []float64 // Cᵀ
	a, b         []float64 // the masses, as given
	logA, logB   []float64
	eps, inv     float64
	tau, kappa   float64
	tol          float64
	alpha, beta  []float64
	sa, sb       []float64 // α + log a, β + log b
	rb, tb, eb   []float64 // scratch: a row and a column of offsets, and exponentials
	row, col     []float64 // P1, Pᵀ1 after the last iteration
	iter         int
	cost, mass   float64 // ⟨C, P⟩ and Σ P
	plogp        float64 // Σ P log(P/(a⊗b))
	change       float64 // max |Δf|, |Δg| of the last iteration
	primal, dual float64
}

// UnbalancedConfig configures an Unbalanced.
type UnbalancedConfig struct {
	// Eps is ε > 0, the weight of KL(P | a⊗b); Tau is τ > 0, the weight of
	// the marginal penalties (+Inf is not allowed: use New for the
	// balanced problem).
	Eps, Tau float64
	// Tol ends the run (ErrConverged) when no potential f = εα or g = εβ
	// moved by more than Tol in an iteration; 0 runs on.
	Tol float64
}

// NewUnbalanced starts the iterations from α = β = 0 (P = a⊗b e^{−C/ε})
// on masses a (n) and b (m), whose totals may differ, and an n×m cost C
// (row-major, kept, not copied).
func NewUnbalanced(a, b, c []float64, cfg UnbalancedConfig) (*Unbalanced, error) {
	if _, err := ot.CheckWeights("mu", a); err != nil {
		return nil, err
	}
	if _, err := ot.CheckWeights("nu", b); err != nil {
		return nil, err
	}
	n, m := len(a), len(b)
	if err := ot.CheckCost(c, n, m); err != nil {
		return nil, err
	}
	if !(cfg.Eps > 0) || math.IsInf(cfg.Eps, 0) || math.IsInf(1/cfg.Eps, 0) {
		return nil, algo.BadParam("eps", cfg.Eps, "a finite number > 0 whose inverse is finite")
	}
	if !(cfg.Tau > 0) || math.IsInf(cfg.Tau, 0) {
		return nil, algo.BadParam("tau", cfg.Tau, "a finite number > 0 (the balanced problem is τ = ∞: New)")
	}
	if !(cfg.Tol >= 0) {
		return nil, algo.BadParam("tol", cfg.Tol, "≥ 0")
	}
	u := &Unbalanced{n: n, m: m, c: c, a: append([]float64(nil), a...), b: append([]float64(nil), b...),
		eps: cfg.Eps, inv: 1 / cfg.Eps, tau: cfg.Tau, kappa: cfg.Tau / (cfg.Tau + cfg.Eps), tol: cfg.Tol,
		alpha: make([]float64, n), beta: make([]float64, m), sa: make([]float64, n), sb: make([]float64, m),
		rb: make([]float64, m), tb: make([]float64, n), eb: make([]float64, n),
		row: make([]float64, n), col: make([]float64, m), change: math.Inf(1)}
	u.ct = make([]float64, m*n)
	for i := range n {
		for j, v := range c[i*m : (i+1)*m] {
			u.ct[j*n+i] = v
		}
	}
	u.logA, u.logB = logs(u.a), logs(u.b)
	copy(u.sa, u.logA)
	copy(u.sb, u.logB)
	u.evaluate()
	return u, nil
}

// UnbalancedFootprint is the bytes NewUnbalanced allocates for n and m
// atoms: Cᵀ and about seven vectors a side.
func UnbalancedFootprint(n, m int) int64 {
	return 8*int64(n)*int64(m) + 7*8*int64(n+m)
}

// Step performs one iteration (the α- then the β-update). It returns
// algo.ErrConverged once the potentials moved by at most Tol, and
// algo.ErrDiverged if the objective becomes non-finite.
func (u *Unbalanced) Step() error {
	if u.iter > 0 && u.change <= u.tol {
		return algo.ErrConverged
	}
	u.iter++
	n, m, inv, k := u.n, u.m, u.inv, u.kappa
	change := 0.0
	sb, rb := u.sb[:m], u.rb[:m]
	for i := range n {
		mx := offsets(rb, sb, u.c[i*m:(i+1)*m], inv)
		v := -k * (mx + math.Log(expShift(nil, rb, mx)))
		if u.a[i] == 0 {
			v = 0 // an empty atom carries no mass whatever its potential
		}
		change = math.Max(change, math.Abs(v-u.alpha[i]))
		u.alpha[i] = v
		u.sa[i] = v + u.logA[i]
	}
	sa, tb, eb := u.sa[:n], u.tb[:n], u.eb[:n]
	for j := range m {
		mx := offsets(tb, sa, u.ct[j*n:(j+1)*n], inv)
		v := -k * (mx + math.Log(expShift(eb, tb, mx)))
		if u.b[j] == 0 {
			v = 0
		}
		change = math.Max(change, math.Abs(v-u.beta[j]))
		u.beta[j] = v
		u.sb[j] = v + u.logB[j]
	}
	u.change = u.eps * change
	u.evaluate()
	if !algo.Finite(u.primal) || !algo.Finite(u.dual) {
		return algo.Diverged("unbalanced objective %g, dual %g at iteration %d", u.primal, u.dual, u.iter)
	}
	if u.change <= u.tol {
		return algo.ErrConverged
	}
	return nil
}

// evaluate computes P1, Pᵀ1, ⟨C, P⟩, Σ P log(P/(a⊗b)), the primal and the
// dual at the current potentials, one pass over C: P_ij = e^{sa_i + sb_j
// − C_ij/ε}.
func (u *Unbalanced) evaluate() {
	n, m, inv := u.n, u.m, u.inv
	clear(u.row)
	clear(u.col)
	cost, plogp, mass := 0.0, 0.0, 0.0
	col := u.col[:m]
	for i := range n {
		cr := u.c[i*m : (i+1)*m : (i+1)*m]
		ai, r := u.sa[i], 0.0
		for j, c := range cr {
			lp := ai + u.sb[j] - c*inv
			p := math.Exp(lp)
			if p == 0 {
				continue
			}
			r += p
			col[j] += p
			cost += c * p
			// log(P/(a⊗b)) = α_i + β_j − C_ij/ε
			plogp += p * (u.alpha[i] + u.beta[j] - c*inv)
		}
		u.row[i] = r
		mass += r
	}
	u.cost, u.plogp, u.mass = cost, plogp, mass
	ta, tb := 0.0, 0.0
	for _, v := range u.a {
		ta += v
	}
	for _, v := range u.b {
		tb += v
	}
	// ε KL(P | a⊗b) = ε (Σ P log(P/(ab)) − ΣP + Σa Σb)
	u.primal = cost + u.eps*(plogp-mass+ta*tb) + u.tau*(kl(u.row, u.a)+kl(u.col, u.b))
	// the dual at f = εα, g = εβ: the last term is −ε(ΣP − Σa Σb)
	d := -u.eps * (mass - ta*tb)
	for i, v := range u.a {
		d += u.tau * v * (1 - math.Exp(-u.eps*u.alpha[i]/u.tau))
	}
	for j, v := range u.b {
		d += u.tau * v * (1 - math.Exp(-u.eps*u.beta[j]/u.tau))
	}
	u.dual = d
}

// kl is the generalised KL(p | q) = Σ p log(p/q) − p + q (0 log 0 = 0).
func kl(p, q []float64) float64 {
	s := 0.0
	for i, v := range p {
		if v > 0 {
			s += v * math.Log(v/q[i])
		}
		s += q[i] - v
	}
	return s
}

// Iter is the number of iterations taken.
func (u *Unbalanced) Iter() int { return u.iter }

// Cost is ⟨C, P⟩; Mass the plan's total Σ P_ij, the mass transported.
func (u *Unbalanced) Cost() float64 { return u.cost }
func (u *Unbalanced) Mass() float64 { return u.mass }

// Objective is the primal objective ⟨C,P⟩ + ε KL(P|a⊗b) + τ KL(P1|a) +
// τ KL(Pᵀ1|b) of the current plan; Dual the dual D(f, g) of the current
// potentials, a lower bound on the optimum that never decreases. Gap is
// Objective − Dual ≥ 0, 0 at the optimum.
func (u *Unbalanced) Objective() float64 { return u.primal }
func (u *Unbalanced) Dual() float64      { return u.dual }
func (u *Unbalanced) Gap() float64       { return u.primal - u.dual }

// Change is the largest move of a potential f = εα or g = εβ in the last
// iteration (+Inf before the first).
func (u *Unbalanced) Change() float64 { return u.change }

// RowSums is P1 and ColSums Pᵀ1 of the current plan (read-only).
func (u *Unbalanced) RowSums() []float64 { return u.row }
func (u *Unbalanced) ColSums() []float64 { return u.col }

// Eps is ε, Tau τ, Kappa the exponent τ/(τ + ε); A and B the masses;
// Size (n, m).
func (u *Unbalanced) Eps() float64     { return u.eps }
func (u *Unbalanced) Tau() float64     { return u.tau }
func (u *Unbalanced) Kappa() float64   { return u.kappa }
func (u *Unbalanced) A() []float64     { return u.a }
func (u *Unbalanced) B() []float64     { return u.b }
func (u *Unbalanced) Size() (n, m int) { return u.n, u.m }

// Potentials writes f = εα (n) and g = εβ (m) into f and g (allocated
// when nil) and returns them.
func (u *Unbalanced) Potentials(f, g []float64) ([]float64, []float64) {
	f, g = sized(f, u.n), sized(g, u.m)
	for i, v := range u.alpha {
		f[i] = u.eps * v
	}
	for j, v := range u.beta {
		g[j] = u.eps * v
	}
	return f, g
}

// Plan writes P_ij = a_i b_j e^{α_i + β_j − C_ij/ε}, n×m row-major, into
// dst (allocated when nil or short) and returns it.
func (u *Unbalanced) Plan(dst []float64) []float64 {
	dst = sized(dst, u.n*u.m)
	for i := range u.n {
		for j := range u.m {
			dst[i*u.m+j] = math.Exp(u.sa[i] + u.sb[j] - u.c[i*u.m+j]*u.inv)
		}
	}
	return dst
}

func (u *Unbalanced) String() string {
	return fmt.Sprintf("unbalanced Sinkhorn ε=%g τ=%g, %d×%d, iteration %d", u.eps, u.tau, u.n, u.m, u.iter)
}
