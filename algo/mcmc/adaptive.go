package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// AdaptiveConfig configures NewAdaptive.
type AdaptiveConfig struct {
	// Step is the scale s₀ of the initial proposal N(x, s₀² I) (finite,
	// > 0), used for the first T0 transitions.
	Step float64
	// T0 is the number of transitions before the adaptation starts (≥ 1:
	// the covariance of one state does not exist).
	T0 int
	// Eps is the regulariser ε ≥ 0 added to the history's covariance
	// (Haario et al. take ε > 0 small, which keeps the proposal
	// non-singular; 0 leaves it out).
	Eps float64
	// Scale is s_d; 0 is the optimal-scaling 2.38²/d (Gelman, Roberts &
	// Gilks 1996).
	Scale float64
}

// Adaptive is the adaptive Metropolis algorithm of Haario, Saksman &
// Tamminen (2001, "An adaptive Metropolis algorithm", Bernoulli 7(2),
// 223–242): random-walk Metropolis (see Metropolis) whose proposal is
// N(x_t, C_t) with
//
//	C_t = s₀² I                              for t ≤ t₀,
//	C_t = s_d (Cov(x_0, …, x_{t−1}) + ε I)   for t > t₀,
//
// the covariance of the chain's whole history (unbiased, by Welford's
// update in Moments: O(d²) a step; the paper's recursion (3) is the same
// in another form), and s_d = 2.38²/d, the scale that is optimal for a
// Gaussian target (Gelman, Roberts & Gilks 1996; Haario et al. use 2.4²/d).
// The proposal is symmetric, so it is accepted with min(1, p(z')/p(z)).
// The chain is not Markov, but it is ergodic for targets of bounded
// support and bounded density (Haario et al., Theorem 1; in practice far
// beyond), and C_t → s_d (Σ + ε I), Σ the target's covariance: the
// proposal takes the target's shape. On a d-dimensional Gaussian the
// limiting acceptance rate is that of N(0, (2.38²/d) I) on N(0, I), ≈ 0.44
// for d = 1, 0.35 for d = 2, 0.23 as d → ∞.
//
// A step factors C_t by Cholesky (O(d³), one square root for d = 1) and
// does not allocate. A C_t that is not positive definite (ε = 0 and a
// history on a line, say) keeps the last factor.
type Adaptive struct {
	p        Density
	cfg      AdaptiveConfig
	sd       float64
	rng      *rand.Rand
	x, z, w  []float64
	mom      *Moments  // the history x_0, …, x_t
	cov      []float64 // C_t, d×d row-major
	chol     []float64 // its lower Cholesky factor
	spare    []float64 // where the next factor is computed
	logpx    float64
	n        int
	accepted int
	last     bool
}

// NewAdaptive starts adaptive Metropolis for p at x0 (copied), with the
// chain's only random source rng.
func NewAdaptive(p Density, x0 []float64, cfg AdaptiveConfig, rng *rand.Rand) (*Adaptive, error) {
	if err := checkTarget(p); err != nil {
		return nil, err
	}
	if err := checkStep("step", cfg.Step); err != nil {
		return nil, err
	}
	if cfg.T0 < 1 {
		return nil, algo.BadParam("t0", cfg.T0, "an integer ≥ 1")
	}
	if !(cfg.Eps >= 0) || math.IsInf(cfg.Eps, 0) {
		return nil, algo.BadParam("eps", cfg.Eps, "a finite number ≥ 0")
	}
	if !(cfg.Scale >= 0) || math.IsInf(cfg.Scale, 0) {
		return nil, algo.BadParam("scale", cfg.Scale, "a finite number > 0, or 0 for 2.38²/d")
	}
	lp, err := startAt(p, x0, rng)
	if err != nil {
		return nil, err
	}
	d := p.Dim()
	a := &Adaptive{
		p: p, cfg: cfg, sd: cfg.Scale, rng: rng,
		x:     append([]float64(nil), x0...),
		z:     append([]float64(nil), x0...),
		w:     make([]float64, d),
		mom:   NewMoments(d),
		cov:   make([]float64, d*d),
		chol:  make([]float64, d*d),
		spare: make([]float64, d*d),
		logpx: lp,
	}
	if a.sd == 0 {
		a.sd = OptimalScale(d)
	}
	for i := range d {
		a.cov[i*d+i] = cfg.Step * cfg.Step
		a.chol[i*d+i] = cfg.Step
	}
	a.mom.Add(a.x)
	return a, nil
}

// OptimalScale is 2.38²/d.
func OptimalScale(d int) float64 { return 2.38 * 2.38 / float64(d) }

// Step makes one proposal from N(x_t, C_t), accepts or rejects it, adds
// the new state to the history and, once t ≥ t₀, sets C_{t+1} from it. It
// returns nil: a proposal outside the support is rejected.
func (a *Adaptive) Step() error {
	d := len(a.x)
	for i := range d {
		a.w[i] = a.rng.NormFloat64()
	}
	for i := range d {
		v := a.x[i]
		row := a.chol[i*d : i*d+i+1]
		for k, l := range row {
			v += l * a.w[k]
		}
		a.z[i] = v
	}
	lz := a.p.LogP(a.z)
	a.n++
	a.last = accept(a.rng, lz-a.logpx)
	if a.last {
		copy(a.x, a.z)
		a.logpx = lz
		a.accepted++
	}
	a.mom.Add(a.x)
	if a.n >= a.cfg.T0 {
		a.adapt()
	}
	return nil
}

// adapt sets C = s_d (Cov + ε I) from the history and factors it.
func (a *Adaptive) adapt() {
	d := len(a.x)
	for i := range d {
		for j := range d {
			c := a.sd * a.mom.CovAt(i, j)
			if i == j {
				c += a.sd * a.cfg.Eps
			}
			a.cov[i*d+j] = c
		}
	}
	// Cholesky, C = L Lᵀ, into the spare factor; it replaces chol only
	// when C is positive definite, so that a failure keeps the last
	// factor whole.
	if cholesky(a.spare, a.cov, d) {
		a.chol, a.spare = a.spare, a.chol
		return
	}
	a.refactor()
}

// cholesky writes the lower Cholesky factor L of the d×d matrix c
// (row-major, C = L Lᵀ; only its lower triangle is read) into l and
// reports whether c is positive definite; l is left partly written when
// it is not. The strict upper triangle of l is not touched.
func cholesky(l, c []float64, d int) bool {
	for j := range d {
		s := c[j*d+j]
		for k := range j {
			s -= l[j*d+k] * l[j*d+k]
		}
		if !(s > 0) {
			return false
		}
		l[j*d+j] = math.Sqrt(s)
		for i := j + 1; i < d; i++ {
			v := c[i*d+j]
			for k := range j {
				v -= l[i*d+k] * l[j*d+k]
			}
			l[i*d+j] = v / l[j*d+j]
		}
	}
	return true
}

// refactor restores C from the factor kept, C = L Lᵀ, when the new one
// failed: the proposal stays the last one that was positive definite.
func (a *Adaptive) refactor() {
	d := len(a.x)
	for i := range d {
		for j := range d {
			v := 0.0
			for k := 0; k <= min(i, j); k++ {
				v += a.chol[i*d+k] * a.chol[j*d+k]
			}
			a.cov[i*d+j] = v
		}
	}
}

// AdaptiveBytes is what NewAdaptive holds in dimension d.
func AdaptiveBytes(d int) int64 { return 8*int64(3*d*d+3*d) + momentsBytes(d) + 256 }

// X returns the current state (a view).
func (a *Adaptive) X() []float64 { return a.x }

// Proposal returns the last proposal (a view) and whether it was accepted.
func (a *Adaptive) Proposal() (z []float64, accepted bool) { return a.z, a.last }

// Steps is the number of proposals made.
func (a *Adaptive) Steps() int { return a.n }

// Accepted is the number accepted.
func (a *Adaptive) Accepted() int { return a.accepted }

// AcceptanceRate is Accepted/Steps, or 0 before the first step.
func (a *Adaptive) AcceptanceRate() float64 {
	if a.n == 0 {
		return 0
	}
	return float64(a.accepted) / float64(a.n)
}

// Adapting reports whether the proposal is the history's (t ≥ t₀).
func (a *Adaptive) Adapting() bool { return a.n >= a.cfg.T0 }

// ProposalCov returns entry (i, j) of the covariance of the next proposal.
func (a *Adaptive) ProposalCov(i, j int) float64 { return a.cov[i*len(a.x)+j] }

// Scale is s_d.
func (a *Adaptive) Scale() float64 { return a.sd }

// History is the running moments of x_0, …, x_t (a view: do not modify).
func (a *Adaptive) History() *Moments { return a.mom }
