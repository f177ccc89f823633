// Package mcmc holds Markov chain Monte Carlo engines and the diagnostics
// that every sampler of the lab shares (seed 002 §3.2, "Markov chain Monte
// Carlo" and "Practical considerations", L1040–1166).
//
// An engine here is a Markov chain z⁽⁰⁾, z⁽¹⁾, ... whose transition kernel T
// leaves the target p invariant: ∫ p(z) T(z'|z) dz = p(z') (L1056), which
// follows from detailed balance p(z) T(z'|z) = p(z') T(z|z') (eq 3.1,
// L1062). One Step is one transition. The diagnostics (ACF, ESS, split
// R-hat) and the online moment accumulator work on any chain's output.
package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Density is what a sampler needs of its target: the dimension and the
// log-density, known up to an additive constant (Remark 3.2, L1086: MH
// needs only the unnormalised joint). LogP returns −Inf outside the
// support. Every target.Target is a Density.
type Density interface {
	Dim() int
	LogP(x []float64) float64
}

// Metropolis is random-walk Metropolis–Hastings (seed 002 §3.2, L1068–1104):
// from the current state z,
//
//  1. propose z' ~ π(z'|z) = N(z, s² I), s the step (proposal scale);
//  2. accept with probability α(z, z') = min(1, p(z')/p(z));
//  3. set z⁽ᵗ⁺¹⁾ = z' if accepted, z⁽ᵗ⁺¹⁾ = z otherwise.
//
// The general acceptance probability (eq 3.2, L1078) is
// min(1, p(z')π(z|z') / (p(z)π(z'|z))); the Gaussian random walk is
// symmetric, π(z'|z) = π(z|z'), so the Hastings correction cancels and
// what remains is the Metropolis rule of Remark 3.4 (L1094–1098).
//
// The test is done in logs, as the catalogue requires (seed-002-catalog C4):
// accept iff log u < log p(z') − log p(z) with u ~ U[0, 1), which has
// probability min(1, p(z')/p(z)) and never overflows. A proposal with
// log p(z') = −Inf (outside the support) or NaN is always rejected. A
// rejection repeats the current state: it counts as a sample of the chain
// (L1082).
//
// One Step is one proposal, accepted or rejected. Step does not allocate.
type Metropolis struct {
	p        Density
	step     float64
	rng      *rand.Rand
	x        []float64 // current state z⁽ᵗ⁾
	z        []float64 // last proposal z'
	logpx    float64   // log p(x)
	logpz    float64   // log p(z)
	n        int       // proposals made
	accepted int       // proposals accepted
	last     bool      // whether the last proposal was accepted
}

// NewMetropolis starts a random-walk Metropolis chain for p at x0 (copied)
// with proposal N(z, step² I). step must be finite and > 0; x0 must have
// p.Dim() finite coordinates at which log p is finite (the chain must start
// inside the support); rng is the chain's only source of randomness.
func NewMetropolis(p Density, x0 []float64, step float64, rng *rand.Rand) (*Metropolis, error) {
	if p == nil || p.Dim() < 1 {
		return nil, algo.BadParam("target", p, "a density of dimension ≥ 1")
	}
	if !(step > 0) || math.IsInf(step, 0) {
		return nil, algo.BadParam("step", step, "a finite number > 0")
	}
	lp, err := startAt(p, x0, rng)
	if err != nil {
		return nil, err
	}
	m := &Metropolis{
		p: p, step: step, rng: rng,
		x:     append([]float64(nil), x0...),
		z:     append([]float64(nil), x0...),
		logpx: lp, logpz: lp,
	}
	return m, nil
}

// Step makes one proposal and accepts or rejects it, reporting whether it
// was accepted. Either way the chain has one more state.
func (m *Metropolis) Step() (accepted bool) {
	for i, xi := range m.x {
		m.z[i] = xi + m.step*m.rng.NormFloat64()
	}
	m.logpz = m.p.LogP(m.z)
	m.n++
	// log α = log p(z') − log p(z); the proposal densities cancel (eq 3.2
	// with a symmetric π, Remark 3.4). NaN and −Inf compare false: reject.
	// When log α ≥ 0 the move is accepted without drawing u.
	d := m.logpz - m.logpx
	m.last = accept(m.rng, d)
	if m.last {
		copy(m.x, m.z)
		m.logpx = m.logpz
		m.accepted++
	}
	return m.last
}

// X returns the current state (a view: do not modify; it changes on Step).
func (m *Metropolis) X() []float64 { return m.x }

// LogP returns log p at the current state.
func (m *Metropolis) LogP() float64 { return m.logpx }

// Proposal returns the last proposal z' (a view) and whether it was
// accepted; before the first Step it is the starting point.
func (m *Metropolis) Proposal() (z []float64, accepted bool) { return m.z, m.last }

// StepSize is the proposal scale s.
func (m *Metropolis) StepSize() float64 { return m.step }

// Steps is the number of proposals made.
func (m *Metropolis) Steps() int { return m.n }

// Accepted is the number of proposals accepted.
func (m *Metropolis) Accepted() int { return m.accepted }

// AcceptanceRate is Accepted/Steps, or 0 before the first step.
func (m *Metropolis) AcceptanceRate() float64 {
	if m.n == 0 {
		return 0
	}
	return float64(m.accepted) / float64(m.n)
}

func dimText(d int) string {
	if d == 1 {
		return "1 finite number"
	}
	return fmt.Sprintf("%d finite numbers", d)
}
