// Package dp holds the engines of the Dirichlet-process chapter (seed 002
// §4.2, L1582–1703, a section the notes flag as a draft): Dirichlet draws by
// normalised Gammas, the stick-breaking construction of a DP, the Chinese
// restaurant process (the DP's predictive), and a DP mixture of Gaussians
// fitted by collapsed Gibbs sampling.
package dp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/stat/distuv"
)

// CheckAlpha returns an error naming param unless every α_k is a finite
// number > 0 and there are at least two.
func CheckAlpha(param string, alpha []float64) error {
	if len(alpha) < 2 {
		return algo.BadParam(param, fmt.Sprintf("%d values", len(alpha)), "at least 2 values")
	}
	for k, a := range alpha {
		if !(a > 0) || math.IsInf(a, 0) {
			return algo.BadParam(param, a, fmt.Sprintf("finite and > 0 (value %d)", k+1))
		}
	}
	return nil
}

// Dirichlet writes a draw from Dir(α) into dst (len(alpha) values) by
// normalised Gammas: V_k ~ Gamma(α_k, 1) independently and C_k = V_k / Σ_j V_j
// (eq 4.14 with Remark 4.3, seed 002 L1637–1643). E[C_k] = α_k/α₀ and
// Var[C_k] = α_k(α₀ − α_k)/(α₀²(α₀ + 1)), α₀ = Σ α. The Gammas come from
// gonum's distuv.Gamma on the caller's rng; α is not checked here (see
// CheckAlpha). With very small α every Gamma can underflow to zero; the draw
// is then the vertex of the largest log-Gamma, which is where the
// distribution's mass is.
func Dirichlet(rng *rand.Rand, alpha, dst []float64) {
	sum := 0.0
	for k, a := range alpha {
		dst[k] = distuv.Gamma{Alpha: a, Beta: 1, Src: rng}.Rand()
		sum += dst[k]
	}
	if sum > 0 {
		for k := range alpha {
			dst[k] /= sum
		}
		return
	}
	best := 0
	for k := range alpha {
		if alpha[k] > alpha[best] {
			best = k
		}
		dst[k] = 0
	}
	dst[best] = 1
}

// DirichletMoments returns E[C_k] and Var[C_k] of Dir(α).
func DirichletMoments(alpha []float64) (mean, variance []float64) {
	a0 := 0.0
	for _, a := range alpha {
		a0 += a
	}
	mean = make([]float64, len(alpha))
	variance = make([]float64, len(alpha))
	for k, a := range alpha {
		mean[k] = a / a0
		variance[k] = a * (a0 - a) / (a0 * a0 * (a0 + 1))
	}
	return mean, variance
}

// Categorical draws an index with probability p[k] / Σ p (p ≥ 0, not all 0).
func Categorical(rng *rand.Rand, p []float64) int {
	total := 0.0
	for _, v := range p {
		total += v
	}
	u := rng.Float64() * total
	last := 0
	for k, v := range p {
		if v > 0 {
			last = k
			if u -= v; u < 0 {
				return k
			}
		}
	}
	return last // rounding left u ≥ 0: the last index with mass
}
