// Package sinkhorn holds entropic optimal transport (seed 002 §5.4,
// L2263–2311): Sinkhorn's iterations in the plain and the log domain, and
// Wasserstein barycenters on a grid by iterated Sinkhorn (Bregman)
// projections.
//
// The problem is π* = argmin_{π ∈ Π(μ,ν)} ⟨C, π⟩ − ε H(π) with
// H(π) = −Σ π_ij log π_ij. The notes write it with λ = 1/ε multiplying the
// cost (eq 5.11, K = exp(−λC), L2302); this package exposes ε (seed-002
// catalogue §4, erratum L2302). Its solution is π = diag(u) K diag(v) with
// K_ij = exp(−C_ij/ε), and Sinkhorn's iterations (5.12, L2306) alternate
//
//	u ← μ ./ (K v),   v ← ν ./ (Kᵀ u),
//
// starting from v = 1. After the v-update the column marginals are exact,
// and the row marginal error ‖π1 − μ‖₁ measures how far the plan is from
// Π(μ,ν); it falls geometrically (linear convergence), slowly when ε is
// small against the costs.
package sinkhorn

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
)

// Domain says how the iterations are carried.
type Domain int

const (
	// Log carries the log-scalings α = log u and β = log v (the potentials
	// f = εα, g = εβ) and evaluates K v and Kᵀu as log-sum-exps (Peyré &
	// Cuturi 2019, §4.4; catalogue E5):
	//
	//	α_i = log μ_i − LSE_j(β_j − C_ij/ε),  β_j = log ν_j − LSE_i(α_i − C_ij/ε).
	//
	// No exponential of −C/ε is ever formed, so it works at any ε.
	Log Domain = iota
	// Plain is the notes' (5.12) with K = exp(−C/ε) formed once: cheap
	// (two matrix–vector products a step) but exp(−C/ε) underflows to 0
	// once C/ε passes about 745, and below PlainThreshold the iterates
	// stall (the catalogue's λ = 1000 row).
	Plain
)

// Domains are the names of the domains, indexed by Domain.
var Domains = []string{"log", "plain"}

func (d Domain) String() string {
	if d >= 0 && int(d) < len(Domains) {
		return Domains[d]
	}
	return fmt.Sprintf("Domain(%d)", int(d))
}

// expRange is −log of the smallest normal float64 (2⁻¹⁰²²): exp(−x) is a
// normal number for x ≤ expRange and loses precision, then vanishes, above.
var expRange = -math.Log(0x1p-1022)

// StallIters is the number of iterations without a relative improvement of
// the marginal error by StallRatio after which a plain run whose kernel
// underflowed is declared stalled; an error below StallFloor is rounding,
// not a stall.
const (
	StallIters = 20
	StallRatio = 1e-9
	StallFloor = 1e-10
)

// PlainThreshold returns the smallest ε at which every entry of the plain
// kernel exp(−C_ij/ε) is a normal float64: max|C_ij| / 708.4. Below it K
// has entries that have lost precision or underflowed to zero, and the
// plain iterations stall short of the marginals (the log domain does not).
func PlainThreshold(c []float64) float64 {
	mx := 0.0
	for _, v := range c {
		mx = math.Max(mx, math.Abs(v))
	}
	return mx / expRange
}

// CheckPlainEps returns a *algo.ParamError naming "eps" when ε is below
// PlainThreshold(c), saying why and that the log domain has no such limit;
// nil otherwise.
func CheckPlainEps(eps float64, c []float64) error {
	if th := PlainThreshold(c); eps < th {
		return algo.BadParam("eps", eps, fmt.Sprintf("≥ %.3g = max|C|/%.1f in the plain domain, where exp(−C/ε) underflows below it (use the log domain, which has no such limit)", th, expRange))
	}
	return nil
}

// UnderflowError is what Step returns when a plain run fails because its
// kernel underflowed: the scalings became infinite, or the marginal error
// stopped falling (StallIters iterations without a relative gain of
// StallRatio) while K had entries below the smallest normal float64. It is
// an algo.ErrDiverged for errors.Is.
type UnderflowError struct {
	Eps, Threshold float64 // ε and PlainThreshold
	Zeros, Entries int     // entries of K below 2⁻¹⁰²², and n·m
	Iter           int     // the iteration at which it was detected
	MarginalError  float64 // ‖π1 − μ‖₁ there
}

func (e *UnderflowError) Error() string {
	return fmt.Sprintf("plain Sinkhorn stalled at iteration %d (marginal error %.3g): at ε = %g, exp(−C/ε) underflows in %d of %d entries of K; the plain domain needs ε ≥ %.3g — use the log domain",
		e.Iter, e.MarginalError, e.Eps, e.Zeros, e.Entries, e.Threshold)
}

// Is makes an UnderflowError an algo.ErrDiverged.
func (e *UnderflowError) Is(target error) bool { return target == algo.ErrDiverged }

// Config configures a Sinkhorn.
type Config struct {
	// Eps is ε > 0, finite; very large ε tends to the independent coupling
	// μνᵀ (Ex 5.3), reached after one iteration.
	Eps    float64
	Domain Domain
	// Tol ends the run (ErrConverged) when ‖π1 − μ‖₁ ≤ Tol after an
	// iteration; 0 runs on.
	Tol float64
}

// Sinkhorn runs Sinkhorn's iterations on a discrete problem, one iteration
// (a u-update then a v-update) per Step. After each iteration it knows the
// row marginal π1 (the column marginal is ν), the marginal error
// ‖π1 − μ‖₁, the transport cost ⟨C, π⟩ and the entropy H(π), at no extra
// pass over C in the log domain: the v-update's log-sum-exp over column j
// holds exp(α_i − C_ij/ε − m_j) for every i, and π_ij is that times
// ν_j/Σ_i exp(α_i − C_ij/ε − m_j).
//
// A step does not allocate. The cost matrix is kept, not copied (do not
// modify it); the log domain keeps a transposed copy as well, so that both
// half-steps read contiguous memory, and the plain domain keeps K.
type Sinkhorn struct {
	n, m   int
	c      []float64 // C, n×m row-major (the caller's)
	mu, nu []float64 // normalised marginals
	eps    float64
	inv    float64 // 1/ε
	domain Domain
	tol    float64

	// Log domain.
	ct           []float64 // Cᵀ, m×n row-major
	logMu, logNu []float64
	alpha, beta  []float64 // log u, log v
	rb           []float64 // an m-vector: β_j − C_ij/ε, one row at a time
	tb, eb       []float64 // n-vectors: α_i − C_ij/ε and its exponentials, one column at a time

	// Plain domain.
	k    []float64 // K = exp(−C/ε), n×m
	u, v []float64
	kv   []float64 // K v (n)
	ktu  []float64 // Kᵀ u (m)

	row []float64 // π1 after the last iteration

	iter      int
	err       float64 // ‖π1 − μ‖₁
	cost      float64 // ⟨C, π⟩
	negEnt    float64 // Σ π log π = −H(π)
	zeros     int     // plain: entries of K below 2⁻¹⁰²²
	threshold float64 // PlainThreshold(C)

	bestErr float64 // the least marginal error of the plain run so far
	since   int     // iterations since bestErr last improved by StallRatio
}

// New starts Sinkhorn's iterations on marginals μ (n) and ν (m) and an n×m
// cost C (row-major), from v = 1. The marginals are checked and normalised
// as ot.Marginals does (unequal totals are refused), C must be finite, ε
// finite and > 0. A plain run below PlainThreshold is accepted — it shows
// the stall, and Step reports it with an UnderflowError; CheckPlainEps
// gives the same warning before a run.
func New(mu, nu, c []float64, cfg Config) (*Sinkhorn, error) {
	a, b, err := ot.Validate(mu, nu, c)
	if err != nil {
		return nil, err
	}
	n, m := len(a), len(b)
	if !(cfg.Eps > 0) || math.IsInf(cfg.Eps, 0) {
		return nil, algo.BadParam("eps", cfg.Eps, "a finite number > 0")
	}
	if !(cfg.Tol >= 0) {
		return nil, algo.BadParam("tol", cfg.Tol, "≥ 0")
	}
	if cfg.Domain != Log && cfg.Domain != Plain {
		return nil, algo.BadParam("domain", cfg.Domain, "log or plain")
	}
	s := &Sinkhorn{n: n, m: m, c: c, mu: a, nu: b, eps: cfg.Eps, inv: 1 / cfg.Eps, domain: cfg.Domain, tol: cfg.Tol,
		row: make([]float64, n), threshold: PlainThreshold(c), bestErr: math.Inf(1)}
	if cfg.Domain == Plain {
		s.k = make([]float64, n*m)
		for idx, v := range c {
			s.k[idx] = math.Exp(-v * s.inv)
			if s.k[idx] < 0x1p-1022 {
				s.zeros++
			}
		}
		s.u, s.v = make([]float64, n), make([]float64, m)
		s.kv, s.ktu = make([]float64, n), make([]float64, m)
		for j := range s.v {
			s.v[j] = 1
		}
		for i := range s.u {
			s.u[i] = 1
		}
		s.plainEvaluate()
		return s, nil
	}
	s.ct = make([]float64, m*n)
	for i := range n {
		for j, v := range c[i*m : (i+1)*m] {
			s.ct[j*n+i] = v
		}
	}
	s.logMu, s.logNu = logs(a), logs(b)
	s.alpha, s.beta = make([]float64, n), make([]float64, m)
	s.rb, s.tb, s.eb = make([]float64, m), make([]float64, n), make([]float64, n)
	s.logEvaluate()
	return s, nil
}

// Footprint is the bytes New allocates for n source and m target atoms
// in domain d: Cᵀ (log) or K (plain), n×m, and about six vectors a side
// (the normalised marginals, their logs or the scalings, the potentials,
// π1 and the scratch of the updates). The cost C is the caller's.
func Footprint(n, m int, d Domain) int64 {
	return 8*int64(n)*int64(m) + 6*8*int64(n+m)
}

func logs(w []float64) []float64 {
	out := make([]float64, len(w))
	for i, v := range w {
		out[i] = math.Log(v) // −Inf for an empty atom, which then carries no mass
	}
	return out
}

// Step performs one iteration. It returns algo.ErrConverged once the
// marginal error is at most Tol, an *UnderflowError when a plain run has
// failed by underflow, and algo.ErrDiverged if the cost becomes
// non-finite.
func (s *Sinkhorn) Step() error {
	if s.iter > 0 && s.err <= s.tol {
		return algo.ErrConverged
	}
	s.iter++
	if s.domain == Plain {
		if err := s.plainStep(); err != nil {
			return err
		}
	} else {
		s.logStep()
	}
	if !algo.Finite(s.cost) || !algo.Finite(s.err) {
		return algo.Diverged("⟨C, π⟩ = %g, marginal error %g at iteration %d", s.cost, s.err, s.iter)
	}
	if s.err <= s.tol {
		return algo.ErrConverged
	}
	return nil
}

// logStep is one log-domain iteration: the α-update by rows of C, then
// the β-update by rows of Cᵀ, accumulating π1, ⟨C, π⟩ as it goes.
func (s *Sinkhorn) logStep() {
	n, m, inv := s.n, s.m, s.inv
	beta, rb := s.beta[:m], s.rb[:m]
	for i := range n {
		mx := offsets(rb, beta, s.c[i*m:(i+1)*m], inv)
		s.alpha[i] = s.logMu[i] - mx - math.Log(expShift(nil, rb, mx))
	}
	alpha, tb, eb := s.alpha[:n], s.tb[:n], s.eb[:n]
	clear(s.row)
	row := s.row[:n]
	cost := 0.0
	for j := range m {
		col := s.ct[j*n : (j+1)*n : (j+1)*n]
		mx := offsets(tb, alpha, col, inv)
		sum := expShift(eb, tb, mx)
		s.beta[j] = s.logNu[j] - mx - math.Log(sum)
		if s.nu[j] == 0 {
			continue
		}
		w := s.nu[j] / sum // π_ij = w·eb[i]
		cw := 0.0
		for i, e := range eb {
			row[i] += w * e
			cw += col[i] * e
		}
		cost += w * cw
	}
	s.cost = cost
	s.finish(s.alpha, s.beta)
}

// finish computes the marginal error and Σ π log π from π1 and the
// log-scalings: log π_ij = a_i + b_j − C_ij/ε, so
// Σ π log π = Σ_i (π1)_i a_i + Σ_j ν_j b_j − ⟨C, π⟩/ε (empty rows and
// columns, whose log-scalings are −Inf, carry no mass and are skipped).
func (s *Sinkhorn) finish(a, b []float64) {
	e, ne := 0.0, 0.0
	for i, r := range s.row {
		e += math.Abs(r - s.mu[i])
		if r != 0 {
			ne += r * a[i]
		}
	}
	for j, v := range s.nu {
		if v != 0 {
			ne += v * b[j]
		}
	}
	s.err = e
	s.negEnt = ne - s.cost*s.inv
}

// logEvaluate computes π1, ⟨C, π⟩ and the marginal error at the current
// log-scalings from scratch (the state before the first iteration).
func (s *Sinkhorn) logEvaluate() {
	clear(s.row)
	s.cost = 0
	for i := range s.n {
		for j, c := range s.c[i*s.m : (i+1)*s.m] {
			p := math.Exp(s.alpha[i] + s.beta[j] - c*s.inv)
			s.row[i] += p
			s.cost += c * p
		}
	}
	s.finish(s.alpha, s.beta)
}

// plainStep is one iteration of (5.12): u = μ./(Kv), v = ν./(Kᵀu), then
// π1 = u ⊙ K v and ⟨C, π⟩ in one more pass over K.
func (s *Sinkhorn) plainStep() error {
	n, m := s.n, s.m
	for i := range n {
		kr := s.k[i*m : (i+1)*m : (i+1)*m]
		acc := 0.0
		for j, k := range kr {
			acc += k * s.v[j]
		}
		s.u[i] = ratio(s.mu[i], acc)
	}
	clear(s.ktu)
	ktu := s.ktu[:m]
	for i := range n {
		ui := s.u[i]
		for j, k := range s.k[i*m : (i+1)*m : (i+1)*m] {
			ktu[j] += k * ui
		}
	}
	for j := range m {
		s.v[j] = ratio(s.nu[j], ktu[j])
	}
	if !algo.AllFinite(s.u) || !algo.AllFinite(s.v) {
		return s.underflow()
	}
	s.plainEvaluate()
	if s.zeros > 0 && s.err > StallFloor {
		if s.err < s.bestErr*(1-StallRatio) {
			s.bestErr, s.since = s.err, 0
		} else if s.since++; s.since >= StallIters {
			return s.underflow()
		}
	}
	return nil
}

// ratio is a/b with 0/0 = 0 (an empty atom whose kernel row vanished).
func ratio(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return a / b
}

// plainEvaluate computes π1 = u ⊙ Kv, ⟨C, π⟩ and the marginal error.
func (s *Sinkhorn) plainEvaluate() {
	n, m := s.n, s.m
	cost := 0.0
	for i := range n {
		kr := s.k[i*m : (i+1)*m : (i+1)*m]
		cr := s.c[i*m : (i+1)*m : (i+1)*m]
		acc, cacc := 0.0, 0.0
		for j, k := range kr {
			kv := k * s.v[j]
			acc += kv
			cacc += cr[j] * kv
		}
		s.kv[i] = acc
		s.row[i] = s.u[i] * acc
		cost += s.u[i] * cacc
	}
	s.cost = cost
	a, b := s.plainLogs()
	s.finish(a, b)
}

// plainLogs returns log u and log v for finish, in buffers allocated once.
func (s *Sinkhorn) plainLogs() (a, b []float64) {
	if s.alpha == nil {
		s.alpha, s.beta = make([]float64, s.n), make([]float64, s.m)
	}
	for i, v := range s.u {
		s.alpha[i] = math.Log(v)
	}
	for j, v := range s.v {
		s.beta[j] = math.Log(v)
	}
	return s.alpha, s.beta
}

func (s *Sinkhorn) underflow() error {
	return &UnderflowError{Eps: s.eps, Threshold: s.threshold, Zeros: s.zeros, Entries: s.n * s.m, Iter: s.iter, MarginalError: s.err}
}

// Iter is the number of iterations taken.
func (s *Sinkhorn) Iter() int { return s.iter }

// MarginalError is ‖π1 − μ‖₁ after the last iteration (before the first:
// of π = K).
func (s *Sinkhorn) MarginalError() float64 { return s.err }

// Cost is the transport cost ⟨C, π⟩ of the current plan.
func (s *Sinkhorn) Cost() float64 { return s.cost }

// Entropy is H(π) = −Σ π_ij log π_ij of the current plan.
func (s *Sinkhorn) Entropy() float64 { return -s.negEnt }

// Objective is the entropic objective ⟨C, π⟩ − ε H(π) (eq 5.11 with
// ε = 1/λ) of the current plan.
func (s *Sinkhorn) Objective() float64 { return s.cost + s.eps*s.negEnt }

// Eps is ε; Domain the domain; Mu and Nu the normalised marginals; Size
// (n, m); RowSums the row marginal π1 after the last iteration (read-only;
// the column marginal is ν).
func (s *Sinkhorn) Eps() float64       { return s.eps }
func (s *Sinkhorn) Domain() Domain     { return s.domain }
func (s *Sinkhorn) Mu() []float64      { return s.mu }
func (s *Sinkhorn) Nu() []float64      { return s.nu }
func (s *Sinkhorn) Size() (n, m int)   { return s.n, s.m }
func (s *Sinkhorn) RowSums() []float64 { return s.row }

// Threshold is PlainThreshold of the cost; Underflowed the number of
// entries of the plain kernel below the smallest normal float64 (0 in the
// log domain, which forms no kernel).
func (s *Sinkhorn) Threshold() float64 { return s.threshold }
func (s *Sinkhorn) Underflowed() int   { return s.zeros }

// Potentials writes the dual potentials f = ε log u (n) and g = ε log v
// (m) into f and g (allocated when nil) and returns them. An empty atom's
// potential is −Inf.
func (s *Sinkhorn) Potentials(f, g []float64) ([]float64, []float64) {
	f, g = sized(f, s.n), sized(g, s.m)
	if s.domain == Plain {
		s.plainLogs()
	}
	for i, a := range s.alpha {
		f[i] = s.eps * a
	}
	for j, b := range s.beta {
		g[j] = s.eps * b
	}
	return f, g
}

// Plan writes the current plan π = diag(u) K diag(v), n×m row-major, into
// dst (allocated when nil or short) and returns it.
func (s *Sinkhorn) Plan(dst []float64) []float64 {
	dst = sized(dst, s.n*s.m)
	for i := range s.n {
		for j := range s.m {
			if s.domain == Plain {
				dst[i*s.m+j] = s.u[i] * s.k[i*s.m+j] * s.v[j]
			} else {
				dst[i*s.m+j] = math.Exp(s.alpha[i] + s.beta[j] - s.c[i*s.m+j]*s.inv)
			}
		}
	}
	return dst
}

func sized(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}
