package mcmc

import (
	"math"

	"github.com/thelab/lab/algo/target"
)

// The lab knows what a practitioner does not: the exact law its chains
// sample. Comparing the chains' estimates with the truth, in units of
// their Monte Carlo standard errors, shows a failure that R̂ and the ESS
// cannot: chains that agree with each other (R̂ ≈ 1) while none has explored
// a region of the target — random-walk Metropolis does not enter the funnel's
// mouth often enough, so fewer of its draws lie beyond the exact 99%
// quantile of y than 1%, by many standard errors.

// ExactZ is how many standard errors from the exact value an estimate may
// stand before it is flagged: with a valid standard error, |Z| > 4 has
// probability 6·10⁻⁵.
const ExactZ = 4

// minTailCount is the least ESS·min(p, 1 − p) for which a quantile's
// coverage is checked: the normal approximation of a binomial count wants
// about ten effective draws on the rarer side (with one, a count of five
// would be "4 s.e." 0.4% of the time).
const minTailCount = 10

// Truth holds the exact values that a coordinate's Summary estimates: its
// mean and its quantiles at QuantileProbs (NaN when the target has no
// Marginals).
type Truth struct {
	Mean      float64
	Quantiles [len(QuantileProbs)]float64
}

// TruthOf returns coordinate i's exact mean and quantiles under t (the
// quantiles by bisection on the marginal CDF: a few milliseconds).
func TruthOf(t target.Target, i int) Truth {
	tr := Truth{Mean: t.Mean()[i]}
	for k, p := range QuantileProbs {
		tr.Quantiles[k], _ = target.Quantile(t, i, p)
	}
	return tr
}

// Deviation is an estimate against its exact value, Z = (Estimate −
// Exact)/SE. For the mean the estimate is the chains' mean and SE its
// MCSE. For a quantile q_p (P = p, Q = q_p) the estimate is the coverage,
// the fraction of the draws at most the exact q_p, against p, with
// SE = √(p(1 − p)/ESS_p), ESS_p that of the indicator at the chains' own
// p-quantile: a count, so the check holds for heavy tails, where a
// quantile's own MCSE (from the spacing of a few order statistics) is too
// noisy to test against.
type Deviation struct {
	P, Q                float64 // NaN for the mean
	Estimate, SE, Exact float64
	Z                   float64
}

// Flagged reports |Z| > ExactZ.
func (d Deviation) Flagged() bool { return math.Abs(d.Z) > ExactZ }

// Check returns the deviations of the chains' mean and coverage of the
// exact quantiles (those known, and with ESS·min(p, 1 − p) ≥ 10) from the
// truth; s is the chains' Summary. A standard error of 0 gives Z = ±Inf
// unless the estimate is exact.
func (tr Truth) Check(s *Summary, chains [][]float64) []Deviation {
	out := []Deviation{deviation(math.NaN(), math.NaN(), s.Mean, s.MCSEMean, tr.Mean)}
	total := 0
	for _, c := range chains {
		total += len(c)
	}
	for k, q := range s.Quantiles {
		exact := tr.Quantiles[k]
		if math.IsNaN(exact) || q.ESS*math.Min(q.P, 1-q.P) < minTailCount {
			continue
		}
		below := 0
		for _, c := range chains {
			for _, v := range c {
				if v <= exact {
					below++
				}
			}
		}
		cover := float64(below) / float64(total)
		out = append(out, deviation(q.P, exact, cover, math.Sqrt(q.P*(1-q.P)/q.ESS), q.P))
	}
	return out
}

func deviation(p, q, est, se, exact float64) Deviation {
	z := 0.0
	if d := est - exact; d != 0 {
		z = d / se
	}
	return Deviation{P: p, Q: q, Estimate: est, SE: se, Exact: exact, Z: z}
}
