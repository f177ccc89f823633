// Package privacy holds the engines of differential privacy (seed 001
// §19, L1627–L1706): randomized response, the Laplace and Gaussian
// mechanisms with their Rényi divergences and hypothesis-test regions, a
// Rényi-DP accountant for the subsampled Gaussian mechanism, and DP-SGD
// (per-example clipping and Gaussian noise) on the lab's networks.
//
// The notes use ε both for the privacy level and for the noise vector
// (catalogue E32): here the privacy level is eps and the noise is z.
package privacy

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// RandomizedResponse is the coin-flip survey of Example 19.2 (seed 001
// L1640–L1654), generalised by the probability Honest of answering
// truthfully: each respondent answers the truth with probability Honest,
// and otherwise answers yes or no by a fair coin. Honest = ½ is the notes'
// two coins, so
//
//	Pr[yes | cheater] = (1 + Honest)/2 = ¾,   Pr[yes | not] = (1 − Honest)/2 = ¼,
//
// the answer's likelihood ratio is (1 + Honest)/(1 − Honest) = 3 and the
// mechanism is (ln 3, 0)-DP. The share of yeses p′ = (1 − Honest)/2 +
// Honest·p is inverted by the unbiased p̂ = (p̂′ − (1 − Honest)/2)/Honest,
// with Var p̂ = p′(1 − p′)/(n Honest²); for Honest = ½, p̂ = 2(p̂′ − ¼).
// p̂ is not clamped: it can leave [0, 1] for small n (a display clamps it).
// One respondent per Step.
type RandomizedResponse struct {
	p, honest float64
	rng       *rand.Rand
	n         int
	yes       int
	// by the respondent's true answer: respondents and their yeses
	n1, yes1, n0, yes0 int
}

// NewRandomizedResponse validates the true share p in [0, 1] and the
// honesty probability in (0, 1).
func NewRandomizedResponse(p, honest float64, rng *rand.Rand) (*RandomizedResponse, error) {
	if !(p >= 0 && p <= 1) {
		return nil, algo.BadParam("p", p, "in [0, 1]")
	}
	if !(honest > 0 && honest < 1) {
		return nil, algo.BadParam("honest", honest, "in (0, 1): 1 would be no privacy, 0 no information")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	return &RandomizedResponse{p: p, honest: honest, rng: rng}, nil
}

// RREpsilon is the privacy level ln((1 + h)/(1 − h)) of randomized
// response with honesty probability h (ln 3 for h = ½).
func RREpsilon(honest float64) float64 { return math.Log((1 + honest) / (1 - honest)) }

// Step asks one respondent: the truth with probability p, then the coins.
func (r *RandomizedResponse) Step() error {
	truth := r.rng.Float64() < r.p
	answer := truth
	if r.rng.Float64() >= r.honest {
		answer = r.rng.Float64() < 0.5
	}
	r.n++
	if truth {
		r.n1++
	} else {
		r.n0++
	}
	if answer {
		r.yes++
		if truth {
			r.yes1++
		} else {
			r.yes0++
		}
	}
	return nil
}

// N is the number of respondents so far.
func (r *RandomizedResponse) N() int { return r.n }

// YesShare is p̂′, the share of yeses (0 before anyone answered).
func (r *RandomizedResponse) YesShare() float64 {
	if r.n == 0 {
		return 0
	}
	return float64(r.yes) / float64(r.n)
}

// Estimate is the unbiased p̂ = (p̂′ − (1 − h)/2)/h, not clamped.
func (r *RandomizedResponse) Estimate() float64 {
	return (r.YesShare() - (1-r.honest)/2) / r.honest
}

// StdErr is the standard deviation √(p′(1 − p′)/n)/h of p̂ at the true p′.
func (r *RandomizedResponse) StdErr() float64 {
	pp := r.YesProb()
	return math.Sqrt(pp*(1-pp)/float64(max(r.n, 1))) / r.honest
}

// YesProb is p′ = (1 − h)/2 + h·p, the chance of a yes.
func (r *RandomizedResponse) YesProb() float64 { return (1-r.honest)/2 + r.honest*r.p }

// YesGiven returns the empirical Pr[yes | true answer yes] and Pr[yes |
// true answer no] (NaN while a group is empty): they tend to (1 ± h)/2.
func (r *RandomizedResponse) YesGiven() (cheater, honest float64) {
	return ratio(r.yes1, r.n1), ratio(r.yes0, r.n0)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}
