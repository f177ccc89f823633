package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Sampler is one Markov chain as an Ensemble drives it: every engine of
// this package is one (random-walk Metropolis through its Sampler method).
type Sampler interface {
	// Step makes one transition. It returns nil, or an error that is
	// algo.ErrDiverged when the state has become non-finite (only an
	// unadjusted sampler can do that: the others reject such proposals).
	Step() error
	// X is the current state (a view: do not modify; it changes on Step).
	X() []float64
	// Steps is the number of transitions made.
	Steps() int
	// Accepted is the number of transitions that moved to their proposal
	// (all of them for Gibbs sampling and unadjusted Langevin dynamics).
	Accepted() int
	// Proposal is the last proposal (a view) and whether it was accepted;
	// before the first Step it is the starting point.
	Proposal() (z []float64, accepted bool)
}

// Gradient is a Density whose log-density has a gradient, which HMC, MALA
// and Langevin dynamics follow. Every target.Target is one.
type Gradient interface {
	Density
	// Grad writes ∇ log p(x) into grad (length Dim). It must not allocate.
	Grad(grad, x []float64)
}

// Sampler returns the chain as a Sampler (whose Step returns no error: a
// random walk rejects what it cannot evaluate).
func (m *Metropolis) Sampler() Sampler { return rwSampler{m} }

type rwSampler struct{ *Metropolis }

func (s rwSampler) Step() error {
	s.Metropolis.Step()
	return nil
}

// startAt validates what every engine is started with: a starting point
// x0 of p.Dim() finite coordinates inside the support (log p finite), and
// a random source. It returns log p(x0).
func startAt(p Density, x0 []float64, rng *rand.Rand) (float64, error) {
	if len(x0) != p.Dim() || !algo.AllFinite(x0) {
		return 0, algo.BadParam("x0", x0, dimText(p.Dim()))
	}
	if rng == nil {
		return 0, algo.BadParam("rng", nil, "a random source")
	}
	lp := p.LogP(x0)
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		return 0, algo.BadParam("x0", x0, "a point where log p is finite (inside the support)")
	}
	return lp, nil
}

// checkTarget validates a target of dimension ≥ 1; p is an interface that
// may hold a nil pointer's method set, so only a nil interface is caught.
func checkTarget(p Density) error {
	if p == nil || p.Dim() < 1 {
		return algo.BadParam("target", p, "a density of dimension ≥ 1")
	}
	return nil
}

// checkStep validates a step size: finite and > 0.
func checkStep(name string, h float64) error {
	if !(h > 0) || math.IsInf(h, 0) {
		return algo.BadParam(name, h, "a finite number > 0")
	}
	return nil
}

// sqNorm is ‖x‖².
func sqNorm(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}

// divergedState is the error of a chain whose state has become non-finite.
func divergedState(name string, step int, h float64) error {
	return algo.Diverged("%s state not finite at step %d: step %g is too large for the target's curvature", name, step, h)
}

// accept is the Metropolis–Hastings test of eq 3.2 (seed 002 §3.2): it
// accepts with probability min(1, e^logAlpha), drawing u ~ U(0, 1) unless
// logAlpha ≥ 0; NaN and −Inf reject.
func accept(rng *rand.Rand, logAlpha float64) bool {
	return logAlpha >= 0 || math.Log(rng.Float64()) < logAlpha
}

// pooledAcceptance is the acceptance rate over every chain's transitions,
// or 0 before the first.
func pooledAcceptance[S interface {
	Accepted() int
	Steps() int
}](chains []S) float64 {
	acc, n := 0, 0
	for _, c := range chains {
		acc += c.Accepted()
		n += c.Steps()
	}
	if n == 0 {
		return 0
	}
	return float64(acc) / float64(n)
}
