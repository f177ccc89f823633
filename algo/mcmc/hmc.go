package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MaxEnergyError is the energy error ΔH beyond which an HMC trajectory is
// called divergent (the threshold Stan uses): the integrator
// has left the level set of H altogether, usually where the step size is
// too large for the local curvature (the neck of the funnel).
const MaxEnergyError = 1000

// Leapfrog integrates Hamilton's equations for
//
//	H(q, r) = U(q) + ½‖r‖²,   U(q) = −log p(q)   (identity mass matrix),
//
// by steps leapfrog (Störmer–Verlet) steps of size eps, in place:
//
//	r ← r + (ε/2) ∇log p(q),   q ← q + ε r,   r ← r + (ε/2) ∇log p(q).
//
// grad must hold ∇log p(q) on entry; it holds ∇log p at the final q on exit
// (one gradient evaluation per step). When path is not nil, the position
// after step l (l = 1..steps) is written to path[(l−1)d : l·d].
//
// The map is a composition of shears, so it preserves volume, and it is
// reversible: integrating again from (q', −r') returns to (q, −r) up to
// rounding. It is second order: over a fixed time T = steps·ε the error in
// H is O(ε²) (Neal, "MCMC using Hamiltonian dynamics", Handbook of MCMC,
// 2011, §5.2.3.3). It does not allocate.
func Leapfrog(g Gradient, q, r, grad []float64, eps float64, steps int, path []float64) {
	d := len(q)
	for l := range steps {
		for i := range r {
			r[i] += 0.5 * eps * grad[i]
		}
		for i := range q {
			q[i] += eps * r[i]
		}
		g.Grad(grad, q)
		for i := range r {
			r[i] += 0.5 * eps * grad[i]
		}
		if path != nil {
			copy(path[l*d:(l+1)*d], q)
		}
	}
}

// HMC is Hamiltonian Monte Carlo (Duane, Kennedy, Pendleton & Roweth,
// Physics Letters B 195, 1987; Neal 2011), beyond the notes: a
// Metropolis–Hastings method (seed 002 eq 3.2) whose proposal follows the
// target's gradient for a long way and is still accepted with high
// probability. One transition from the state z:
//
//  1. draw a momentum r ~ N(0, I);
//  2. run Leapfrog for L steps of size ε from (z, r) to (z*, r*);
//  3. accept z* with probability min(1, exp(−ΔH)),
//     ΔH = H(z*, r*) − H(z, r) = −log p(z*) + log p(z) + ½‖r*‖² − ½‖r‖².
//
// The proposal (z*, −r*) is the image of a reversible, volume-preserving
// map, so it is symmetric and the Metropolis ratio of the joint density
// exp(−H) is all that α needs; the momentum is discarded. A trajectory with
// ΔH > MaxEnergyError or a non-finite endpoint is divergent: it is rejected
// and counted. The positions of the last trajectory are kept for drawing.
// Step does not allocate.
type HMC struct {
	g          Gradient
	eps        float64
	steps      int
	rng        *rand.Rand
	x, gx      []float64 // state and ∇log p there
	q, r, gq   []float64 // trajectory position, momentum, gradient
	path       []float64 // (steps+1)×d positions of the last trajectory
	logpx      float64
	dH         float64
	n, acc     int
	divergent  int
	last       bool
	sumAbsDH   float64
	lastDiverg bool
}

// NewHMC starts HMC at x0 (copied) with leapfrog step size eps (finite,
// > 0) and steps ≥ 1 leapfrog steps per transition.
func NewHMC(g Gradient, x0 []float64, eps float64, steps int, rng *rand.Rand) (*HMC, error) {
	if err := checkTarget(g); err != nil {
		return nil, err
	}
	if err := checkStep("step", eps); err != nil {
		return nil, err
	}
	if steps < 1 || steps > 10000 {
		return nil, algo.BadParam("leapfrog_steps", steps, "an integer in 1..10000")
	}
	lp, err := startAt(g, x0, rng)
	if err != nil {
		return nil, err
	}
	d := g.Dim()
	h := &HMC{g: g, eps: eps, steps: steps, rng: rng,
		x: append([]float64(nil), x0...), gx: make([]float64, d),
		q: append([]float64(nil), x0...), r: make([]float64, d), gq: make([]float64, d),
		path: make([]float64, (steps+1)*d), logpx: lp}
	g.Grad(h.gx, h.x)
	for l := 0; l <= steps; l++ {
		copy(h.path[l*d:], x0)
	}
	return h, nil
}

// Step runs one trajectory and accepts or rejects its endpoint.
func (h *HMC) Step() error {
	d := len(h.x)
	for i := range h.r {
		h.r[i] = h.rng.NormFloat64()
	}
	h0 := -h.logpx + 0.5*sqNorm(h.r)
	copy(h.q, h.x)
	copy(h.gq, h.gx)
	copy(h.path[:d], h.x)
	Leapfrog(h.g, h.q, h.r, h.gq, h.eps, h.steps, h.path[d:])
	lpq := h.g.LogP(h.q)
	h.dH = -lpq + 0.5*sqNorm(h.r) - h0
	h.n++
	h.lastDiverg = !(h.dH <= MaxEnergyError) || !algo.AllFinite(h.q)
	if h.lastDiverg {
		h.divergent++
		h.last = false
		if math.IsNaN(h.dH) {
			h.dH = math.Inf(1)
		}
		return nil
	}
	h.sumAbsDH += math.Abs(h.dH)
	h.last = accept(h.rng, -h.dH)
	if h.last {
		copy(h.x, h.q)
		copy(h.gx, h.gq)
		h.logpx = lpq
		h.acc++
	}
	return nil
}

func (h *HMC) X() []float64 { return h.x }
func (h *HMC) Steps() int   { return h.n }

// Evals is the number of gradient evaluations of a transition, its
// leapfrog steps (Costly).
func (h *HMC) Evals() int { return h.steps }
func (h *HMC) Accepted() int {
	return h.acc
}

// Proposal is the endpoint of the last trajectory.
func (h *HMC) Proposal() (z []float64, accepted bool) { return h.q, h.last }

// Path returns the positions of the last trajectory, start first: (L+1)
// rows of Dim values (a view that changes on Step).
func (h *HMC) Path() []float64 { return h.path }

// EnergyError is ΔH of the last trajectory (+Inf if it was not finite).
func (h *HMC) EnergyError() float64 { return h.dH }

// MeanAbsEnergyError is the mean |ΔH| over the non-divergent trajectories.
func (h *HMC) MeanAbsEnergyError() float64 {
	if k := h.n - h.divergent; k > 0 {
		return h.sumAbsDH / float64(k)
	}
	return 0
}

// Divergent is the number of divergent trajectories so far; LastDivergent
// whether the last one was.
func (h *HMC) Divergent() int      { return h.divergent }
func (h *HMC) LastDivergent() bool { return h.lastDiverg }
func (h *HMC) StepSize() float64   { return h.eps }
func (h *HMC) LeapfrogSteps() int  { return h.steps }
func (h *HMC) LogP() float64       { return h.logpx }
