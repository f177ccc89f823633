// Package divergence holds the information-theoretic quantities of seed 002
// §1.5–1.6 and the engines that show them at work: entropy, cross-entropy,
// Kullback–Leibler, L1 and χ² divergences of discrete and continuous
// distributions (closed forms and quadrature), the KL between Gaussians
// (eq 1.38), the notes' sequences that converge in one divergence and not in
// another (Ex 1.9, 1.10), and the optimisers that minimise a KL: the KL
// gradient flow between two Gaussians (Ex 1.12) and the forward and reverse
// KL fits of a Gaussian to a multimodal target (Suggested exercise 4).
//
// Everything is in nats (natural logarithms). 0·log 0 = 0, and a divergence
// that is undefined because absolute continuity fails (Def 1.4–1.5,
// L412–445) is +Inf, never NaN.
package divergence

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
)

// CheckPMF returns a ParamError naming name unless p is a probability
// vector: at least one entry, every entry finite and ≥ 0, summing to one
// within 1e-9.
func CheckPMF(name string, p []float64) error {
	const allowed = "non-negative numbers summing to 1"
	if len(p) == 0 {
		return algo.BadParam(name, p, allowed)
	}
	s := 0.0
	for _, v := range p {
		if !(v >= 0) || math.IsInf(v, 0) {
			return algo.BadParam(name, p, allowed)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-9 {
		return algo.BadParam(name, p, fmt.Sprintf("%s (they sum to %g)", allowed, s))
	}
	return nil
}

// Entropy returns H(p) = −Σ_x p(x) log p(x) (eq 1.19), in nats. It lies in
// [0, log K] for K outcomes, log K exactly for the uniform (1.22–1.23).
func Entropy(p []float64) float64 {
	h := 0.0
	for _, v := range p {
		h -= stable.XLogY(v, v)
	}
	return h
}

// CrossEntropy returns H(p, q) = −Σ_x p(x) log q(x) (eq 1.25): the mean code
// length of symbols from p coded for q. It is +Inf when q(x) = 0 < p(x).
func CrossEntropy(p, q []float64) float64 {
	h := 0.0
	for i, v := range p {
		h -= stable.XLogY(v, q[i])
	}
	return h
}

// KL returns KL(p‖q) = Σ_x p(x) log(p(x)/q(x)) (Def 1.6), ≥ 0 and zero iff
// p = q. It is +Inf unless p ≪ q (q(x) = 0 < p(x) somewhere, L445). It is
// summed term by term rather than as H(p, q) − H(p) (eq 1.32), which would
// cancel catastrophically when p ≈ q.
func KL(p, q []float64) float64 {
	d := 0.0
	for i, v := range p {
		if v == 0 {
			continue
		}
		if q[i] == 0 {
			return math.Inf(1)
		}
		d += v * (math.Log(v) - math.Log(q[i]))
	}
	return math.Max(d, 0) // rounding can leave −1e-17 when p = q
}

// L1 returns Σ_x |p(x) − q(x)| (§1.6, L451).
func L1(p, q []float64) float64 {
	d := 0.0
	for i, v := range p {
		d += math.Abs(v - q[i])
	}
	return d
}

// Chi2 returns χ²(p‖q) = Σ_x (p(x) − q(x))²/q(x) (§1.6, L453); +Inf when
// q(x) = 0 ≠ p(x).
func Chi2(p, q []float64) float64 {
	d := 0.0
	for i, v := range p {
		e := v - q[i]
		if e == 0 {
			continue
		}
		if q[i] == 0 {
			return math.Inf(1)
		}
		d += e * e / q[i]
	}
	return d
}

// BernoulliEntropy returns H = −θ log θ − (1 − θ) log(1 − θ) (Ex 1.7, Fig
// 1.3), maximal, log 2, at θ = ½.
func BernoulliEntropy(theta float64) float64 {
	return -stable.XLogY(theta, theta) - stable.XLogY(1-theta, 1-theta)
}
