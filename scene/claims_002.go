package scene

import (
	"fmt"
	"math"
)

// Claims of the scenes of seed 002 (probabilistic generative models,
// optimal transport, sequence models).
func init() {
	register(map[string]Claim{
		"mh-hmc-banana": {Steps: 2000, Check: func(r []Result) error {
			return ratio(r[1], r[0], "ess", 5)
		}},
		"sinkhorn-underflow": {Steps: 1000, Check: func(r []Result) error {
			return all(
				diverged(r[0]),
				converged(r[1]),
				below(r[1], "err", 1e-9),
			)
		}},
		"kl-forward-reverse": {Steps: 1000, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "KL(q_rev‖p)", math.Ln2, 0.01),
				below(r[1], "KL(q_rev‖p)", 0.1),
			)
		}},
		"mle-asymptotics": {Steps: 600, Check: func(r []Result) error {
			return all(
				near(r[0], "I⁻¹", 4, 1e-12),
				above(r[0], "var z", 8),
				below(r[0], "in ±1.96sd", 0.9),
				near(r[1], "var z", 4, 0.6),
				above(r[1], "in ±1.96sd", 0.92),
			)
		}},
		"em-kmeans-limit": {Steps: 200, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]), converged(r[2]),
				below(r[1], "hard", 0.5),
				below(r[1], "agree", 0.8),
				above(r[2], "hard", 0.999),
				above(r[2], "agree", 0.99),
			)
		}},
		"em-collapse": {Steps: 200, Check: func(r []Result) error {
			return all(
				diverged(r[0]),
				converged(r[1]),
			)
		}},
		"gibbs-correlation": {Steps: 2000, Check: func(r []Result) error {
			return all(
				above(r[0], "acceptance", 1-1e-12),
				above(r[1], "acceptance", 1-1e-12),
				ratio(r[0], r[1], "ess", 20),
			)
		}},
		"vi-mean-field": {Steps: 1000, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "s₁", 0.75, 1e-6),
				near(r[0], "s₂", 0.75, 1e-6),
				near(r[1], "s₁", 0.0975, 1e-6),
				near(r[1], "s₂", 0.0975, 1e-6),
				moreSteps(r[1], r[0], 4),
			)
		}},
		"bbvi-score-reparam": {Steps: 2000, Check: func(r []Result) error {
			return all(
				above(r[0], "ratio", 100),
				above(r[1], "ratio", 100),
				exceeds(r[1], r[0], "ELBO", 0.5),
			)
		}},
		"dp-crp-alpha": {Steps: 1000, Check: func(r []Result) error {
			return all(
				tablesNearExpected(r[0]),
				tablesNearExpected(r[1]),
				ratio(r[1], r[0], "tables", 5),
			)
		}},
		"sinkhorn-blur": {Steps: 2500, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				ratioOf(r[0], "cost", "lp", 1.005, math.Inf(1)),
				ratioOf(r[1], "cost", "lp", 1, 1.001),
				exceeds(r[0], r[1], "entropy", 0.5),
				moreSteps(r[1], r[0], 4),
			)
		}},
		"ot-geodesic-mixture": {Steps: 100, Check: func(r []Result) error {
			return all(
				near(r[0], "t", 0.5, 1e-9),
				near(r[0], "sd", 0.75, 0.01),
				near(r[1], "sd", 1.5/math.Sqrt(12), 0.01),
				ratioOf(r[0], "mix_sd", "sd", 3, math.Inf(1)),
				ratioOf(r[1], "mix_sd", "sd", 3, math.Inf(1)),
			)
		}},
		"gan-modes": {Steps: 600, Check: func(r []Result) error {
			return all(
				near(r[0], "modes", 2, 0),
				below(r[1], "modes", 5.5),
			)
		}},
		"ngram-rnn": {Steps: 150, Check: func(r []Result) error {
			return all(
				converged(r[0]),
				near(r[0], "held-out nats/char", 0.56, 0.04),
				ratioAcross(r[1], "held-out", r[0], "held-out nats/char", 0, 0.9),
				ratioOf(r[1], "held-out", "best k-gram", 0, 0.9),
			)
		}},
		"attention-causal": {Steps: 24, Check: func(r []Result) error {
			// Query i of T = 5 sees i + 1 keys: its row entropy is at most log(i+1).
			bound := 0.0
			for i := 1; i <= 5; i++ {
				bound += math.Log(float64(i)) / 5
			}
			return all(
				above(r[0], "mean row entropy", 1.3),
				below(r[1], "mean row entropy", bound),
			)
		}},
	})
}

// ratioOf checks that one metric of a pane over another is in [lo, hi].
func ratioOf(r Result, num, den string, lo, hi float64) error {
	return ratioAcross(r, num, r, den, lo, hi)
}

// ratioAcross checks that a's metric num over b's metric den is in [lo, hi].
func ratioAcross(a Result, num string, b Result, den string, lo, hi float64) error {
	vn, vd, err := metrics2(a, num, b, den)
	if err != nil {
		return err
	}
	if q := vn / vd; !(q >= lo && q <= hi) {
		return fmt.Errorf("%s's %s / %s's %s = %g / %g = %g, want in [%g, %g]", a.Frame.Sim, num, b.Frame.Sim, den, vn, vd, q, lo, hi)
	}
	return nil
}

// moreSteps checks that a ran at least k times as many steps as b (both
// stopping when they converge).
func moreSteps(a, b Result, k float64) error {
	if !(float64(a.Steps) >= k*float64(b.Steps)) {
		return fmt.Errorf("%s ran %d steps, want at least %g × %s's %d", a.Frame.Sim, a.Steps, k, b.Frame.Sim, b.Steps)
	}
	return nil
}

// tablesNearExpected checks a CRP's tables against E[K_n]: within three
// Poisson standard deviations √E (K_n's variance is below its mean).
func tablesNearExpected(r Result) error {
	e, err := r.Metric("expected")
	if err != nil {
		return err
	}
	return near(r, "tables", e, 3*math.Sqrt(e))
}
