package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Langevin is the unadjusted Langevin algorithm (ULA), the Langevin
// dynamics of seed 000 §3.2, eq 3.3 (L1169–1177):
//
//	y_{k+1} = y_k + δ ∇log p(y_k) + √(2δ) w_k,   w_k ~ N(0, I).
//
// It is the Euler–Maruyama discretisation of the Langevin diffusion
// dY = ∇log p(Y) dt + √2 dW, whose stationary law is p. Nothing corrects
// the discretisation error, so for a fixed step δ the chain's stationary
// law is not p: the notes' "the samples y_k will converge to the target
// distribution p(y)" (L1177) holds only as δ → 0 (the erratum avoided,
// seed-000-catalog item 30). For p = N(μ, s²) the chain is the AR(1)
//
//	y' − μ = a (y − μ) + √(2δ) w,   a = 1 − δ/s²,
//
// stationary iff |a| < 1, that is 0 < δ < 2s², with variance
// 2δ/(1 − a²) = s²/(1 − δ/(2s²)) (ULAStationaryVariance): an O(δ) excess.
// MALA is the same move with the accept/reject step that removes it.
//
// Every transition moves (Accepted = Steps). Step returns an error that is
// algo.ErrDiverged when the state becomes non-finite, which happens for
// δ ≥ 2/L on a target whose log-density has curvature up to L. Step does
// not allocate.
type Langevin struct {
	g         Gradient
	delta     float64
	rng       *rand.Rand
	x, grad   []float64
	n         int
	noiseless bool
}

// NewLangevin starts ULA at x0 (copied) with step delta (finite, > 0).
func NewLangevin(g Gradient, x0 []float64, delta float64, rng *rand.Rand) (*Langevin, error) {
	if err := checkTarget(g); err != nil {
		return nil, err
	}
	if err := checkStep("step", delta); err != nil {
		return nil, err
	}
	if _, err := startAt(g, x0, rng); err != nil {
		return nil, err
	}
	l := &Langevin{g: g, delta: delta, rng: rng, x: append([]float64(nil), x0...), grad: make([]float64, g.Dim())}
	g.Grad(l.grad, l.x)
	return l, nil
}

// Step makes one Langevin update.
func (l *Langevin) Step() error {
	s := math.Sqrt(2 * l.delta)
	if l.noiseless {
		s = 0
	}
	for i := range l.x {
		l.x[i] += l.delta*l.grad[i] + s*l.rng.NormFloat64()
	}
	l.n++
	if !algo.AllFinite(l.x) {
		return divergedState("Langevin", l.n, l.delta)
	}
	l.g.Grad(l.grad, l.x)
	return nil
}

// SetNoise turns the √(2δ) noise on or off. Without it the update is
// gradient ascent on log p with step δ, which collapses onto a mode instead
// of sampling (seed 000 L1177: the noise "helps the samples explore the
// space ... and avoid getting stuck in local modes").
func (l *Langevin) SetNoise(on bool) { l.noiseless = !on }

func (l *Langevin) X() []float64                           { return l.x }
func (l *Langevin) Steps() int                             { return l.n }
func (l *Langevin) Accepted() int                          { return l.n }
func (l *Langevin) Proposal() (z []float64, accepted bool) { return l.x, true }
func (l *Langevin) StepSize() float64                      { return l.delta }

// ULAStationaryVariance returns the stationary variance of unadjusted
// Langevin dynamics with step delta on N(μ, s2), and whether the chain has
// one (0 < δ < 2s²). From the AR(1) form above,
//
//	v = a² v + 2δ  ⇒  v = 2δ/(1 − a²) = s²/(1 − δ/(2s²)),   a = 1 − δ/s².
//
// For s² = 1: δ = 0.01 gives 1.00503, 0.1 gives 1.05263, 0.5 gives 4/3
// (seed-000-catalog §3.2). On N(0, Σ) the same holds along each eigenvector
// of Σ with s² its eigenvalue.
func ULAStationaryVariance(s2, delta float64) (float64, bool) {
	if !(delta > 0 && delta < 2*s2) {
		return math.Inf(1), false
	}
	return s2 / (1 - delta/(2*s2)), true
}

// MALA is the Metropolis-adjusted Langevin algorithm (Roberts & Tweedie,
// Bernoulli 2(4), 1996), beyond the notes: the Langevin move of seed 000
// eq 3.3 used as a Metropolis–Hastings proposal (seed 002 eq 3.2),
//
//	z' = z + δ ∇log p(z) + √(2δ) ξ,   π(z'|z) = N(z'; z + δ ∇log p(z), 2δ I),
//
// accepted with probability min(1, p(z')π(z|z') / (p(z)π(z'|z))). The
// proposal is not symmetric, so the Hastings correction
//
//	log π(z|z') − log π(z'|z) = (‖z' − z − δ g(z)‖² − ‖z − z' − δ g(z')‖²)/(4δ),
//
// g = ∇log p, stays in α. The accept/reject step makes p exactly invariant,
// so MALA has none of ULA's O(δ) bias. Non-finite proposals are rejected.
// Step does not allocate.
type MALA struct {
	g            Gradient
	delta        float64
	rng          *rand.Rand
	x, gx, z, gz []float64
	logpx        float64
	n, acc       int
	last         bool
}

// NewMALA starts MALA at x0 (copied) with step delta (finite, > 0).
func NewMALA(g Gradient, x0 []float64, delta float64, rng *rand.Rand) (*MALA, error) {
	if err := checkTarget(g); err != nil {
		return nil, err
	}
	if err := checkStep("step", delta); err != nil {
		return nil, err
	}
	lp, err := startAt(g, x0, rng)
	if err != nil {
		return nil, err
	}
	d := g.Dim()
	m := &MALA{g: g, delta: delta, rng: rng, x: append([]float64(nil), x0...), gx: make([]float64, d),
		z: append([]float64(nil), x0...), gz: make([]float64, d), logpx: lp}
	g.Grad(m.gx, m.x)
	return m, nil
}

// Step makes one proposal and accepts or rejects it.
func (m *MALA) Step() error {
	s := math.Sqrt(2 * m.delta)
	for i := range m.z {
		m.z[i] = m.x[i] + m.delta*m.gx[i] + s*m.rng.NormFloat64()
	}
	m.n++
	lpz := m.g.LogP(m.z)
	m.last = false
	if math.IsNaN(lpz) || math.IsInf(lpz, 0) || !algo.AllFinite(m.z) {
		return nil
	}
	m.g.Grad(m.gz, m.z)
	fwd, rev := 0.0, 0.0 // ‖z' − z − δg(z)‖², ‖z − z' − δg(z')‖²
	for i := range m.z {
		a := m.z[i] - m.x[i] - m.delta*m.gx[i]
		b := m.x[i] - m.z[i] - m.delta*m.gz[i]
		fwd += a * a
		rev += b * b
	}
	d := lpz - m.logpx + (fwd-rev)/(4*m.delta)
	m.last = accept(m.rng, d)
	if m.last {
		copy(m.x, m.z)
		copy(m.gx, m.gz)
		m.logpx = lpz
		m.acc++
	}
	return nil
}

func (m *MALA) X() []float64                           { return m.x }
func (m *MALA) Steps() int                             { return m.n }
func (m *MALA) Accepted() int                          { return m.acc }
func (m *MALA) Proposal() (z []float64, accepted bool) { return m.z, m.last }
func (m *MALA) StepSize() float64                      { return m.delta }
func (m *MALA) LogP() float64                          { return m.logpx }
