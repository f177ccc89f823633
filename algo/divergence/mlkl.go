package divergence

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/target"
)

// MLasKL is §1.6's "KL and maximum likelihood" (seed 002 L532–544, eqs
// 1.43–1.46) made concrete: data x₁, x₂, ... arrive from a 1-D two-component
// mixture p = ½N(−d, 1) + ½N(d, 1), and the model family is the Gaussians
// q_θ = N(μ, σ²), which does not contain p. Minimising KL(p‖q_θ) is
// maximising E_p[log q_θ] (1.45), and maximum likelihood maximises its Monte
// Carlo estimate (1/N) Σ log q_θ(x_i) (1.46). Over Gaussians the minimiser
// is θ* = moment matching, N(0, 1 + d²) (catalogue A10 [D]).
//
// After each arriving point it tracks, with H(p) by quadrature,
//
//	empirical(θ) = −(1/N) Σ log q_θ(x_i) − H(p)    the MC estimate of KL(p‖q_θ),
//
// at θ* and at the MLE θ̂_N (μ̂ = x̄, σ̂² the 1/N variance), and the exact
// KL(p‖q_θ̂N) (closed form in p's mean and variance). Two inequalities hold
// exactly at every N, θ̂_N maximising the likelihood and θ* minimising the
// KL: empirical(θ̂_N) ≤ empirical(θ*) and KL(p‖q_θ̂N) ≥ KL(p‖q_θ*); and all
// three tend to KL(p‖q_θ*), the empirical ones at the Monte Carlo rate
// 1/√N.
//
// One Step draws one point. Step does not allocate.
type MLasKL struct {
	d    float64
	p    *target.Mixture
	hp   float64 // H(p)
	vp   float64 // Var_p = 1 + d²
	rng  *rand.Rand
	n    int
	mean float64 // running mean (Welford)
	m2   float64 // running Σ (x − x̄)²
	sumQ float64 // Σ log q_θ*(x_i)
	sq2  float64 // Σ (log q_θ*(x_i))², for the Monte Carlo error
	last float64
}

// NewMLasKL starts with no data; d (the modes' distance from 0) must be in
// [0, 10].
func NewMLasKL(d float64, rng *rand.Rand) (*MLasKL, error) {
	if !(d >= 0 && d <= 10) {
		return nil, algo.BadParam("d", d, "in [0, 10]")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	p, err := target.NewMixture([]float64{0.5, 0.5}, [][]float64{{-d}, {d}}, 1)
	if err != nil {
		return nil, err
	}
	return &MLasKL{d: d, p: p, hp: TargetEntropy(p), vp: 1 + d*d, rng: rng}, nil
}

// Step draws one point from p: a fair coin picks the mode, then N(±d, 1).
func (m *MLasKL) Step() error {
	x := m.rng.NormFloat64() + m.d
	if m.rng.IntN(2) == 0 {
		x -= 2 * m.d
	}
	m.n++
	delta := x - m.mean
	m.mean += delta / float64(m.n)
	m.m2 += delta * (x - m.mean)
	lq := LogNormalPDF(x, 0, math.Sqrt(m.vp))
	m.sumQ += lq
	m.sq2 += lq * lq
	m.last = x
	return nil
}

// Target is p (its LogP and Density are exact).
func (m *MLasKL) Target() *target.Mixture { return m.p }

// D is the modes' distance from 0.
func (m *MLasKL) D() float64 { return m.d }

// N is the number of points drawn; Last the last one.
func (m *MLasKL) N() int { return m.n }

// Last is the last point drawn.
func (m *MLasKL) Last() float64 { return m.last }

// Entropy is H(p), by quadrature.
func (m *MLasKL) Entropy() float64 { return m.hp }

// Best returns θ* = (0, √(1 + d²)) and KL(p‖q_θ*), the least KL over
// Gaussians.
func (m *MLasKL) Best() (mu, sigma, kl float64) {
	s := math.Sqrt(m.vp)
	return 0, s, m.ExactKL(0, s)
}

// ExactKL is KL(p‖N(mu, sigma²)) = −H(p) + ½ log 2πσ² + (Var_p + E_p[x − μ]²)/(2σ²).
func (m *MLasKL) ExactKL(mu, sigma float64) float64 {
	return -m.hp + 0.5*math.Log(2*math.Pi*sigma*sigma) + (m.vp+mu*mu)/(2*sigma*sigma)
}

// MLE returns the maximum-likelihood Gaussian of the data so far, μ̂ = x̄ and
// σ̂ = √((1/N) Σ (x − x̄)²) (Ex 4.1, L1531: the 1/N variance). ok is false
// while N < 2.
func (m *MLasKL) MLE() (mu, sigma float64, ok bool) {
	if m.n < 2 {
		return 0, 0, false
	}
	return m.mean, math.Sqrt(m.m2 / float64(m.n)), true
}

// Empirical returns −(1/N) Σ log q(x_i) − H(p) at θ* and at the MLE, with
// the Monte Carlo standard error of the first, √(Var[log q_θ*]/N). ok is
// false while N < 2.
func (m *MLasKL) Empirical() (atBest, atMLE, se float64, ok bool) {
	if m.n < 2 {
		return 0, 0, 0, false
	}
	n := float64(m.n)
	atBest = -m.sumQ/n - m.hp
	v := m.sq2/n - (m.sumQ/n)*(m.sumQ/n)
	se = math.Sqrt(math.Max(v, 0) / n)
	// At the MLE: −(1/N) Σ log N(x_i; x̄, σ̂²) = ½ log 2πσ̂² + ½.
	s2 := m.m2 / n
	atMLE = 0.5*math.Log(2*math.Pi*s2) + 0.5 - m.hp
	return atBest, atMLE, se, true
}
