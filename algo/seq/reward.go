package seq

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MaxItems bounds the responses of a reward-learning problem.
const MaxItems = 32

// PairLoss is the reward model's loss on one comparison in which y_w was
// preferred to y_l (seed 001 §12, L1220, [A21]): −log σ(r_w − r_l) =
// log(1 + e^{−(r_w − r_l)}), log 2 when the rewards are equal. (The notes
// write r_θ for one term and r for the other; both are r_θ.)
func PairLoss(rw, rl float64) float64 {
	d := rw - rl
	if d > 0 {
		return math.Log1p(math.Exp(-d))
	}
	return -d + math.Log1p(math.Exp(d))
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// RewardModel learns scalar rewards r_1 … r_K of K responses from
// pairwise preferences sampled by the Bradley–Terry model of true rewards
// r*: a pair i ≠ j is drawn uniformly and i wins with probability σ(r*_i −
// r*_j). Each Step draws a batch of comparisons, adds them to the win
// counts, and takes one gradient step on the mean pairwise loss over every
// comparison so far — the maximum-likelihood estimate in the limit. The
// loss sees only differences, so the rewards are identified up to a
// constant: they are kept centred (mean 0), which changes no loss.
type RewardModel struct {
	truth, r, grad []float64
	wins           []float64 // wins[i·K + j]: times i was preferred to j
	n              int
	lr             float64
	batch          int
	rng            *rand.Rand
}

// NewRewardModel starts from r = 0 with true rewards truth (2..MaxItems
// finite values), step size lr > 0 and batch comparisons a step.
func NewRewardModel(truth []float64, lr float64, batch int, rng *rand.Rand) (*RewardModel, error) {
	K := len(truth)
	switch {
	case K < 2 || K > MaxItems:
		return nil, algo.BadParam("items", K, fmt.Sprintf("in 2..%d", MaxItems))
	case !(lr > 0) || math.IsInf(lr, 0):
		return nil, algo.BadParam("lr", lr, "finite and > 0")
	case batch < 1:
		return nil, algo.BadParam("batch", batch, "≥ 1")
	case rng == nil:
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	for _, x := range truth {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, algo.BadParam("truth", x, "finite rewards")
		}
	}
	return &RewardModel{truth: append([]float64(nil), truth...), r: make([]float64, K), grad: make([]float64, K),
		wins: make([]float64, K*K), lr: lr, batch: batch, rng: rng}, nil
}

// Step draws a batch of comparisons and takes one gradient step.
func (m *RewardModel) Step() error {
	K := len(m.r)
	for range m.batch {
		i := m.rng.IntN(K)
		j := m.rng.IntN(K - 1)
		if j >= i {
			j++
		}
		if m.rng.Float64() < sigmoid(m.truth[i]-m.truth[j]) {
			m.wins[i*K+j]++
		} else {
			m.wins[j*K+i]++
		}
	}
	m.n += m.batch
	clear(m.grad)
	for i := range K {
		for j := range K {
			if w := m.wins[i*K+j]; w > 0 {
				g := w * (1 - sigmoid(m.r[i]-m.r[j])) // −∂/∂r_i of w·(−log σ(r_i − r_j))
				m.grad[i] -= g
				m.grad[j] += g
			}
		}
	}
	mean := 0.0
	for i := range m.r {
		m.r[i] -= m.lr * m.grad[i] / float64(m.n)
		mean += m.r[i]
	}
	mean /= float64(K)
	for i := range m.r {
		m.r[i] -= mean
		if math.IsNaN(m.r[i]) || math.IsInf(m.r[i], 0) {
			return algo.Diverged("reward r_%d = %v after %d comparisons (lower lr)", i+1, m.r[i], m.n)
		}
	}
	return nil
}

// Rewards is the learned rewards, centred (not to be modified).
func (m *RewardModel) Rewards() []float64 { return m.r }

// Truth is the true rewards (not to be modified).
func (m *RewardModel) Truth() []float64 { return m.truth }

// Comparisons is the number of comparisons drawn.
func (m *RewardModel) Comparisons() int { return m.n }

// Loss is the mean pairwise loss of rewards r over every comparison so
// far (log 2 at r = 0, or before any comparison).
func (m *RewardModel) Loss(r []float64) float64 {
	if m.n == 0 {
		return math.Ln2
	}
	K := len(r)
	s := 0.0
	for i := range K {
		for j := range K {
			if w := m.wins[i*K+j]; w > 0 {
				s += w * PairLoss(r[i], r[j])
			}
		}
	}
	return s / float64(m.n)
}

// ExpectedLoss is the population loss of rewards r under the sampling of
// comparisons: a pair {i, j} drawn uniformly, i preferred with probability
// σ(r*_i − r*_j), so the mean over the K(K−1)/2 pairs of σ(Δ*)·(−log
// σ(Δ)) + σ(−Δ*)·(−log σ(−Δ)), Δ = r_i − r_j: log 2 at r = 0, and smallest,
// at the mean binary entropy of the true preferences, when r = r* + c.
func (m *RewardModel) ExpectedLoss(r []float64) float64 {
	K := len(r)
	s := 0.0
	for i := range K {
		for j := range K {
			if i != j {
				s += sigmoid(m.truth[i]-m.truth[j]) * PairLoss(r[i], r[j])
			}
		}
	}
	return 2 * s / float64(K*(K-1))
}

// KLTarget writes into dst the maximiser of E_π[r] − β KL(π‖π₀) over the
// simplex, π*(y) ∝ π₀(y)·exp(r(y)/β) (derived, [A21] (b)), computed in the
// log domain: β → ∞ gives π₀, β → 0 the argmax of r (ties split by π₀).
func KLTarget(r, pi0 []float64, beta float64, dst []float64) {
	top := math.Inf(-1)
	for i := range r {
		dst[i] = math.Log(pi0[i]) + r[i]/beta
		top = max(top, dst[i])
	}
	z := 0.0
	for i := range dst {
		dst[i] = math.Exp(dst[i] - top)
		z += dst[i]
	}
	for i := range dst {
		dst[i] /= z
	}
}

// KL is KL(p‖q) in nats (0 log 0 = 0).
func KL(p, q []float64) float64 {
	s := 0.0
	for i, pi := range p {
		if pi > 0 {
			s += pi * math.Log(pi/q[i])
		}
	}
	return s
}

// Policy maximises E_π[r] − β KL(π‖π_SFT) over distributions π on K
// responses by mirror ascent (exponentiated gradient) with step η:
//
//	π_i ← π_i · exp(η (r_i − β log(π_i/π_SFT,i))) / Z,
//
// whose fixed point is π* ∝ π_SFT·exp(r/β). In u = log(π/π_SFT) the step
// is u ← (1 − ηβ) u + η r + const: for a fixed r the distance to u* = r/β
// (up to a constant) shrinks by |1 − ηβ| a step, so ηβ in (0, 2) converges
// and ηβ = 1 lands in one step.
type Policy struct {
	sft, pi []float64
	beta    float64
	eta     float64
}

// NewPolicy starts at π = π_SFT (positive, summing to 1).
func NewPolicy(sft []float64, beta, eta float64) (*Policy, error) {
	sum := 0.0
	for _, p := range sft {
		if !(p > 0) {
			return nil, algo.BadParam("sft", p, "positive probabilities")
		}
		sum += p
	}
	switch {
	case len(sft) < 2 || math.Abs(sum-1) > 1e-9:
		return nil, algo.BadParam("sft", fmt.Sprintf("%d values summing to %g", len(sft), sum), "at least 2 summing to 1")
	case !(beta > 0) || math.IsInf(beta, 0):
		return nil, algo.BadParam("beta", beta, "finite and > 0")
	case !(eta > 0) || eta*beta >= 2:
		return nil, algo.BadParam("eta", eta, fmt.Sprintf("in (0, 2/β) = (0, %.4g): the step contracts by |1 − ηβ|", 2/beta))
	}
	return &Policy{sft: append([]float64(nil), sft...), pi: append([]float64(nil), sft...), beta: beta, eta: eta}, nil
}

// Step takes one mirror-ascent step against rewards r.
func (p *Policy) Step(r []float64) {
	top := math.Inf(-1)
	for i, pi := range p.pi {
		l := math.Log(pi)
		p.pi[i] = l + p.eta*(r[i]-p.beta*(l-math.Log(p.sft[i])))
		top = max(top, p.pi[i])
	}
	z := 0.0
	for i := range p.pi {
		p.pi[i] = math.Exp(p.pi[i] - top)
		z += p.pi[i]
	}
	for i := range p.pi {
		p.pi[i] /= z
	}
}

// Probs is π (not to be modified).
func (p *Policy) Probs() []float64 { return p.pi }

// SFT is π_SFT (not to be modified).
func (p *Policy) SFT() []float64 { return p.sft }
