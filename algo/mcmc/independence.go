package mcmc

import (
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Independence is Metropolis–Hastings with an independence proposal (seed
// 002 §3.2, eq 3.2, L1078; the catalogue's second proposal, seed-002-catalog
// C4): the candidate ignores the current state,
//
//	z' ~ π(z'|z) = N(z'; m, s² I),
//
// so the proposal is not symmetric and the Hastings correction stays in the
// acceptance probability:
//
//	log α = log p(z') − log p(z) + log π(z) − log π(z'),
//	log π(z) = −‖z − m‖²/(2s²) + const.
//
// Its acceptance rate measures how well N(m, s²I) covers the target: on the
// Fig 3.7 mixture with N(0, 9I) it is about 0.15 (catalogue C4 [M]). The
// test is done in logs; NaN and −Inf are rejected; a rejection repeats the
// state. One Step is one proposal. Step does not allocate.
type Independence struct {
	p            Density
	mean         []float64
	scale        float64
	rng          *rand.Rand
	x, z         []float64
	logpx, logqx float64 // log p(x), log π(x)
	n, accepted  int
	last         bool
}

// NewIndependence starts the chain at x0 (copied) with proposal
// N(mean, scale² I). scale must be finite and > 0, mean of the target's
// dimension and finite; x0 as for NewMetropolis.
func NewIndependence(p Density, x0, mean []float64, scale float64, rng *rand.Rand) (*Independence, error) {
	if err := checkTarget(p); err != nil {
		return nil, err
	}
	if err := checkStep("step", scale); err != nil {
		return nil, err
	}
	if len(mean) != p.Dim() || !algo.AllFinite(mean) {
		return nil, algo.BadParam("center", mean, dimText(p.Dim()))
	}
	lp, err := startAt(p, x0, rng)
	if err != nil {
		return nil, err
	}
	m := &Independence{p: p, mean: append([]float64(nil), mean...), scale: scale, rng: rng,
		x: append([]float64(nil), x0...), z: append([]float64(nil), x0...), logpx: lp}
	m.logqx = m.logq(m.x)
	return m, nil
}

// logq is log π(x) up to its constant, which cancels in α.
func (m *Independence) logq(x []float64) float64 {
	ss := 0.0
	for i, v := range x {
		d := v - m.mean[i]
		ss += d * d
	}
	return -ss / (2 * m.scale * m.scale)
}

// Step makes one proposal and accepts or rejects it.
func (m *Independence) Step() error {
	for i := range m.z {
		m.z[i] = m.mean[i] + m.scale*m.rng.NormFloat64()
	}
	lpz, lqz := m.p.LogP(m.z), m.logq(m.z)
	m.n++
	d := lpz - m.logpx + m.logqx - lqz
	m.last = accept(m.rng, d)
	if m.last {
		copy(m.x, m.z)
		m.logpx, m.logqx = lpz, lqz
		m.accepted++
	}
	return nil
}

func (m *Independence) X() []float64                     { return m.x }
func (m *Independence) Steps() int                       { return m.n }
func (m *Independence) Accepted() int                    { return m.accepted }
func (m *Independence) Proposal() (z []float64, ok bool) { return m.z, m.last }
func (m *Independence) LogP() float64                    { return m.logpx }
