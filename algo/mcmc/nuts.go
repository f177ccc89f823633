package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MaxTreeDepth is the largest tree depth NUTS allows: a trajectory of at
// most 2^MaxTreeDepth = 1024 points (Stan's default bound too).
const MaxTreeDepth = 10

// The constants of the dual-averaging step-size adaptation (Hoffman &
// Gelman 2014, §3.2.1, the values recommended there and used by Stan).
const (
	DualGamma = 0.05 // γ, how strongly ε is shrunk towards μ
	DualT0    = 10   // t₀, which damps the first iterations
	DualKappa = 0.75 // κ, the decay m^−κ of the averaged iterate's weight
	// DefaultDelta is the default target δ of the acceptance statistic.
	DefaultDelta = 0.8
)

// NUTSConfig are the settings of NewNUTS.
type NUTSConfig struct {
	// Eps0 is the initial step size ε₀ (finite, > 0), or 0 for Hoffman &
	// Gelman's heuristic (Alg. 4, FindReasonableEpsilon): double or halve
	// ε from 1 until one leapfrog step's acceptance probability crosses ½.
	Eps0 float64
	// Delta is the target δ ∈ (0, 1) of the mean acceptance statistic;
	// 0 means DefaultDelta.
	Delta float64
	// Warmup is the number M ≥ 0 of iterations that adapt ε by dual
	// averaging; from iteration M + 1 on, ε is fixed at the averaged
	// iterate ε̄_M (with M = 0, at ε₀).
	Warmup int
	// MaxDepth is the largest tree depth, 1..MaxTreeDepth; 0 means
	// MaxTreeDepth.
	MaxDepth int
}

// TreeEnd says why a NUTS tree stopped growing.
type TreeEnd int8

const (
	// EndUTurn: the whole trajectory made a U-turn after a doubling,
	// (θ⁺ − θ⁻)·r⁻ < 0 or (θ⁺ − θ⁻)·r⁺ < 0; the last doubling's points
	// could be chosen.
	EndUTurn TreeEnd = iota
	// EndSubUTurn: a subtree of the last doubling made a U-turn; that
	// doubling was abandoned, its points could not be chosen.
	EndSubUTurn
	// EndDivergent: a point of the last doubling left the slice by more
	// than MaxEnergyError (a divergence); that doubling was abandoned.
	EndDivergent
	// EndMaxDepth: the tree reached the maximum depth.
	EndMaxDepth
)

func (e TreeEnd) String() string {
	switch e {
	case EndUTurn:
		return "U-turn"
	case EndSubUTurn:
		return "U-turn inside the last doubling"
	case EndDivergent:
		return "divergence"
	}
	return "maximum depth"
}

// NUTSTree is the trajectory of the last NUTS iteration, every point the
// leapfrog visited in trajectory (time) order, the backward end first.
// Its slices are views of the sampler's buffers: they change on Step.
type NUTSTree struct {
	// Q holds the positions, Len()×Dim values.
	Q []float64
	// Doubling is, per point, 0 for the start and j = 1..depth for a point
	// added by the j-th doubling.
	Doubling []int8
	// InSlice is, per point, whether it lies in the slice −H ≥ log u (only
	// those can be chosen).
	InSlice []bool
	// Forward is, per doubling j (index j − 1), whether it extended the
	// trajectory forward in time (v = +1) or backward.
	Forward []bool
	// Start and Chosen are the indices of the starting point and of the
	// next state (equal when the chain stays).
	Start, Chosen int
	// End says why the tree stopped; after EndSubUTurn and EndDivergent
	// the last doubling's points were not eligible.
	End TreeEnd
}

// Len is the number of points of the tree.
func (t NUTSTree) Len() int { return len(t.Doubling) }

// NUTS is the No-U-Turn Sampler of Hoffman & Gelman (JMLR 15, 2014),
// beyond the notes: Hamiltonian Monte Carlo (see HMC; seed 002 §3.2's
// Metropolis–Hastings with a Hamiltonian proposal) that chooses the
// trajectory's length itself. It is the paper's efficient NUTS with a
// slice variable (Alg. 3) and dual-averaging step-size adaptation (Alg. 5
// and 6), not the multinomial variant of Stan. One iteration from θ:
//
//  1. draw r₀ ~ N(0, I) and the slice level log u = −H(θ, r₀) + log U,
//     U ~ U(0, 1], where H(θ, r) = −log p(θ) + ½‖r‖²;
//  2. grow a binary tree of leapfrog states (Leapfrog, step ε): doubling
//     j = 0, 1, … picks a direction v = ±1 uniformly and adds 2^j states
//     beyond the trajectory's end in that direction (backward in time
//     for v = −1: leapfrog with step −ε);
//  3. stop when the whole trajectory makes a U-turn, (θ⁺ − θ⁻)·r⁻ < 0 or
//     (θ⁺ − θ⁻)·r⁺ < 0, when a subtree of the new half does (checked on
//     every balanced subtree as it completes: the rest of that half is not
//     built and the half is abandoned), when a state diverges
//     (log u ≥ MaxEnergyError − H, which implies an energy error
//     H − H(θ, r₀) > MaxEnergyError), or at the maximum depth;
//  4. the next state is drawn from the states in the slice (−H ≥ log u):
//     within a new half uniformly (reservoir sampling, the same law as
//     Alg. 3's recursive choice), and that half's pick replaces the
//     current candidate with probability min(1, n′/n), n′ and n the slice
//     states of the new half and of the old tree (Alg. 3's progressive
//     sampling biased to the new half). An abandoned half is never chosen.
//
// The choice leaves p invariant (Hoffman & Gelman 2014, §3.1.2–3.1.3):
// the tree is built by a reversible, volume-preserving map and the chosen
// state's law is uniform on the slice over the trajectory up to that bias,
// which satisfies detailed balance.
//
// The acceptance statistic of an iteration is the mean over every leapfrog
// state it visited (the abandoned half included) of min(1, e^{H₀ − H}),
// Stan's accept_stat (Alg. 6 averages over the last doubling only). During
// the first Warmup iterations ε is adapted by dual averaging (Nesterov
// 2009; Alg. 5): with μ = log(10ε₀), H̄₀ = 0, log ε̄₀ = 0, after iteration m
// with statistic α_m,
//
//	H̄_m = (1 − 1/(m + t₀)) H̄_{m−1} + (δ − α_m)/(m + t₀),
//	log ε_m = μ − (√m/γ) H̄_m,
//	log ε̄_m = m^{−κ} log ε_m + (1 − m^{−κ}) log ε̄_{m−1},
//
// (γ, t₀, κ) = (DualGamma, DualT0, DualKappa), and iteration m + 1 runs
// with ε_m; after the warm-up ε = ε̄_M is fixed, so the chain is a
// Markov chain with stationary law p from there on (the adapted
// iterations are not, and belong to the burn-in).
//
// Step does not allocate: the tree's states live in buffers of
// 2^(MaxDepth+1) − 1 points sized by NewNUTS.
type NUTS struct {
	g        Gradient
	rng      *rand.Rand
	d        int
	maxDepth int
	delta    float64
	warmup   int

	// Dual averaging.
	eps, eps0, mu   float64
	hBar, logEpsBar float64

	x, gx []float64 // state, ∇log p there
	logpx float64

	// Work vectors of the leapfrog and the trajectory's two ends.
	q, r, gq          []float64
	qm, rm, gm        []float64 // backward end θ⁻, r⁻, ∇ there
	qp, rp, gp        []float64 // forward end θ⁺
	half              int       // 2^maxDepth − 1: the slot of the start
	bq, br, bg        []float64 // per slot (time index + half): position, momentum, gradient
	blp               []float64 // per slot: log p
	bDoub             []int8
	bIn               []bool
	forward           []bool // per doubling
	lo, hi            int    // slots of the trajectory's ends
	chosen, startSlot int

	// Statistics of the last iteration and the run.
	n, acc        int
	depth, leaps  int
	acceptStat    float64
	lastDivergent bool
	divergent     int
	end           TreeEnd
	moved         bool
	sumLeaps      int
}

// NewNUTS starts NUTS at x0 (copied). It validates cfg (ParamErrors name
// "step", "delta", "warmup" and "max_depth") and, when cfg.Eps0 is 0,
// spends a few gradient evaluations and random draws on FindReasonableEpsilon.
func NewNUTS(g Gradient, x0 []float64, cfg NUTSConfig, rng *rand.Rand) (*NUTS, error) {
	if err := checkTarget(g); err != nil {
		return nil, err
	}
	if cfg.Eps0 != 0 {
		if err := checkStep("step", cfg.Eps0); err != nil {
			return nil, err
		}
	}
	delta := cfg.Delta
	if delta == 0 {
		delta = DefaultDelta
	}
	if !(delta > 0 && delta < 1) {
		return nil, algo.BadParam("delta", cfg.Delta, "a number in (0, 1)")
	}
	if cfg.Warmup < 0 || cfg.Warmup > 1e8 {
		return nil, algo.BadParam("warmup", cfg.Warmup, "an integer in 0..1e8")
	}
	depth := cfg.MaxDepth
	if depth == 0 {
		depth = MaxTreeDepth
	}
	if depth < 1 || depth > MaxTreeDepth {
		return nil, algo.BadParam("max_depth", cfg.MaxDepth, "an integer in 1..10")
	}
	lp, err := startAt(g, x0, rng)
	if err != nil {
		return nil, err
	}
	d := g.Dim()
	half := 1<<depth - 1
	slots := 2*half + 1
	vec := func() []float64 { return make([]float64, d) }
	s := &NUTS{g: g, rng: rng, d: d, maxDepth: depth, delta: delta, warmup: cfg.Warmup,
		x: append([]float64(nil), x0...), gx: vec(), logpx: lp,
		q: vec(), r: vec(), gq: vec(), qm: vec(), rm: vec(), gm: vec(), qp: vec(), rp: vec(), gp: vec(),
		half: half, bq: make([]float64, slots*d), br: make([]float64, slots*d), bg: make([]float64, slots*d),
		blp: make([]float64, slots), bDoub: make([]int8, slots), bIn: make([]bool, slots),
		forward: make([]bool, depth)}
	g.Grad(s.gx, s.x)
	s.eps0 = cfg.Eps0
	if s.eps0 == 0 {
		s.eps0 = FindReasonableEpsilon(g, s.x, rng)
	}
	s.eps, s.mu = s.eps0, math.Log(10*s.eps0)
	// The tree before the first Step is the start alone.
	s.lo, s.hi, s.chosen, s.startSlot = half, half, half, half
	copy(s.bq[half*d:], s.x)
	s.bIn[half] = true
	return s, nil
}

// FindReasonableEpsilon is Hoffman & Gelman's heuristic for a first step
// size (2014, Alg. 4): from ε = 1, with one momentum r ~ N(0, I), double ε
// (or halve it) while the acceptance probability p(θ′, r′)/p(θ, r) of one
// leapfrog step of size ε stays above ½ (below ½), stopping at the first
// crossing; at most 60 doublings or halvings. x is not modified.
func FindReasonableEpsilon(g Gradient, x []float64, rng *rand.Rand) float64 {
	d := len(x)
	q, r, r0, gq, g0 := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	for i := range r0 {
		r0[i] = rng.NormFloat64()
	}
	g.Grad(g0, x)
	h0 := -g.LogP(x) + 0.5*sqNorm(r0)
	logRatio := func(eps float64) float64 {
		copy(q, x)
		copy(r, r0)
		copy(gq, g0)
		Leapfrog(g, q, r, gq, eps, 1, nil)
		lr := h0 - (-g.LogP(q) + 0.5*sqNorm(r))
		if math.IsNaN(lr) {
			return math.Inf(-1)
		}
		return lr
	}
	eps := 1.0
	a := -1.0
	if logRatio(eps) > -math.Ln2 {
		a = 1
	}
	for range 60 {
		if a*logRatio(eps) <= -a*math.Ln2 {
			break
		}
		eps *= math.Pow(2, a)
	}
	return eps
}

// Step runs one NUTS iteration and, during the warm-up, one dual-averaging
// update of ε.
func (s *NUTS) Step() error {
	d := s.d
	for i := range s.r {
		s.r[i] = s.rng.NormFloat64()
	}
	h0 := -s.logpx + 0.5*sqNorm(s.r)
	logu := -h0 + math.Log(1-s.rng.Float64()) // U ∈ (0, 1]
	// The start, in the middle slot.
	c := s.half
	s.lo, s.hi, s.startSlot, s.chosen = c, c, c, c
	s.store(c, s.x, s.r, s.gx, s.logpx, 0, true)
	copy(s.qm, s.x)
	copy(s.rm, s.r)
	copy(s.gm, s.gx)
	copy(s.qp, s.x)
	copy(s.rp, s.r)
	copy(s.gp, s.gx)

	n := 1 // states in the slice
	sumAlpha, leaps := 0.0, 0
	s.lastDivergent, s.end = false, EndMaxDepth
	depth := 0
	for depth < s.maxDepth {
		fwd := s.rng.Float64() < 0.5
		s.forward[depth] = fwd
		v, eps := -1, -s.eps
		qe, re, ge := s.qm, s.rm, s.gm
		edge := s.lo
		if fwd {
			v, eps = 1, s.eps
			qe, re, ge = s.qp, s.rp, s.gp
			edge = s.hi
		}
		copy(s.q, qe)
		copy(s.r, re)
		copy(s.gq, ge)
		size := 1 << depth
		cand, nIn := -1, 0
		ok := true
		for k := 1; k <= size; k++ {
			Leapfrog(s.g, s.q, s.r, s.gq, eps, 1, nil)
			leaps++
			lp := s.g.LogP(s.q)
			h := -lp + 0.5*sqNorm(s.r)
			a := math.Exp(h0 - h)
			if !(a <= 1) { // a > 1, or NaN: min(1, ·) with NaN as 0
				if math.IsNaN(a) {
					a = 0
				} else {
					a = 1
				}
			}
			sumAlpha += a
			in := logu <= -h
			slot := edge + v*k
			s.store(slot, s.q, s.r, s.gq, lp, int8(depth+1), in)
			if fwd {
				s.hi = slot
			} else {
				s.lo = slot
			}
			if in {
				nIn++
				if s.rng.Float64()*float64(nIn) < 1 {
					cand = slot
				}
			}
			if !(logu < MaxEnergyError-h) || !algo.AllFinite(s.q) {
				ok = false
				s.lastDivergent = true
				s.end = EndDivergent
				break
			}
			// U-turn checks of the balanced subtrees that end at k.
			for l := 1; l <= depth && k%(1<<l) == 0; l++ {
				first := edge + v*(k-(1<<l)+1)
				if s.uturn(first, slot, v) {
					ok = false
					s.end = EndSubUTurn
					break
				}
			}
			if !ok {
				break
			}
		}
		depth++
		if !ok {
			break
		}
		// The new half is valid: its end becomes the trajectory's.
		copy(qe, s.q)
		copy(re, s.r)
		copy(ge, s.gq)
		if nIn > 0 && s.rng.Float64()*float64(n) < float64(nIn) {
			s.chosen = cand
		}
		n += nIn
		if s.uturn(s.lo, s.hi, 1) {
			s.end = EndUTurn
			break
		}
	}
	s.depth, s.leaps = depth, leaps
	s.acceptStat = sumAlpha / float64(leaps)
	s.sumLeaps += leaps
	s.n++
	if s.lastDivergent {
		s.divergent++
	}
	s.moved = s.chosen != s.startSlot
	if s.moved {
		copy(s.x, s.bq[s.chosen*d:(s.chosen+1)*d])
		copy(s.gx, s.bg[s.chosen*d:(s.chosen+1)*d])
		s.logpx = s.blp[s.chosen]
		s.acc++
	}
	s.adapt()
	return nil
}

// adapt is one dual-averaging update (Alg. 5) during the warm-up, and the
// switch to ε̄_M at its end.
func (s *NUTS) adapt() {
	m := float64(s.n)
	if s.n > s.warmup {
		return
	}
	w := 1 / (m + DualT0)
	s.hBar = (1-w)*s.hBar + w*(s.delta-s.acceptStat)
	logEps := s.mu - math.Sqrt(m)/DualGamma*s.hBar
	eta := math.Pow(m, -DualKappa)
	s.logEpsBar = eta*logEps + (1-eta)*s.logEpsBar
	s.eps = math.Exp(logEps)
	if s.n == s.warmup {
		s.eps = math.Exp(s.logEpsBar)
	}
}

// store writes a state of the trajectory into slot k.
func (s *NUTS) store(k int, q, r, g []float64, lp float64, doubling int8, in bool) {
	d := s.d
	copy(s.bq[k*d:(k+1)*d], q)
	copy(s.br[k*d:(k+1)*d], r)
	copy(s.bg[k*d:(k+1)*d], g)
	s.blp[k], s.bDoub[k], s.bIn[k] = lp, doubling, in
}

// uturn reports the U-turn of the subtree whose ends, in the order of
// the leapfrog's direction v, are the slots a then b: with Δ = v(θ_b − θ_a)
// the span from the backward end to the forward one, Δ·r < 0 at either
// end.
func (s *NUTS) uturn(a, b, v int) bool {
	d := s.d
	qa, qb := s.bq[a*d:(a+1)*d], s.bq[b*d:(b+1)*d]
	ra, rb := s.br[a*d:(a+1)*d], s.br[b*d:(b+1)*d]
	da, db := 0.0, 0.0
	for i := range d {
		dq := float64(v) * (qb[i] - qa[i])
		da += dq * ra[i]
		db += dq * rb[i]
	}
	return da < 0 || db < 0
}

func (s *NUTS) X() []float64  { return s.x }
func (s *NUTS) Steps() int    { return s.n }
func (s *NUTS) Accepted() int { return s.acc }

// Proposal is the state the last iteration chose and whether it differs
// from the one it started from.
func (s *NUTS) Proposal() (z []float64, accepted bool) {
	return s.bq[s.chosen*s.d : (s.chosen+1)*s.d], s.moved
}

// Evals is a typical number of gradient evaluations per iteration (a
// depth-5 tree; the Ensemble's choice of parallelism only).
func (s *NUTS) Evals() int { return 1 << min(s.maxDepth, 5) }

// Tree is the trajectory of the last iteration (before the first Step,
// the start alone).
func (s *NUTS) Tree() NUTSTree {
	d := s.d
	return NUTSTree{
		Q:        s.bq[s.lo*d : (s.hi+1)*d],
		Doubling: s.bDoub[s.lo : s.hi+1],
		InSlice:  s.bIn[s.lo : s.hi+1],
		Forward:  s.forward[:s.depth],
		Start:    s.startSlot - s.lo,
		Chosen:   s.chosen - s.lo,
		End:      s.end,
	}
}

// TreeDepth is the number of doublings of the last iteration.
func (s *NUTS) TreeDepth() int { return s.depth }

// Leapfrogs is the number of leapfrog steps (gradient evaluations) of the
// last iteration; MeanLeapfrogs their mean over the run (0 before a Step).
func (s *NUTS) Leapfrogs() int { return s.leaps }
func (s *NUTS) MeanLeapfrogs() float64 {
	if s.n == 0 {
		return 0
	}
	return float64(s.sumLeaps) / float64(s.n)
}

// AcceptStat is the last iteration's acceptance statistic (0 before a
// Step): the mean of min(1, e^{H₀ − H}) over its leapfrog states.
func (s *NUTS) AcceptStat() float64 { return s.acceptStat }

// LastDivergent reports whether the last iteration diverged; Divergent
// counts the iterations that did.
func (s *NUTS) LastDivergent() bool { return s.lastDivergent }
func (s *NUTS) Divergent() int      { return s.divergent }

// StepSize is the ε the next iteration uses: ε_m during the warm-up, ε̄_M
// after it. AvgStepSize is the averaged iterate ε̄_m (ε̄₀ = 1 before the
// first update, as Alg. 5 starts it; ε̄_M from the end of the warm-up on,
// so with Warmup = 0 it stays 1 while the chain runs at ε₀), and
// InitialStepSize ε₀.
func (s *NUTS) StepSize() float64        { return s.eps }
func (s *NUTS) AvgStepSize() float64     { return math.Exp(s.logEpsBar) }
func (s *NUTS) InitialStepSize() float64 { return s.eps0 }

// Adapting reports whether the next iteration is still in the warm-up.
func (s *NUTS) Adapting() bool { return s.n < s.warmup }

// Warmup, Delta and MaxDepth are the settings.
func (s *NUTS) Warmup() int    { return s.warmup }
func (s *NUTS) Delta() float64 { return s.delta }
func (s *NUTS) MaxDepth() int  { return s.maxDepth }
func (s *NUTS) LogP() float64  { return s.logpx }
