package scene

import (
	"fmt"
	"math"
)

// Claims of the scenes of seed 001 (classic, deep and trustworthy ML).
func init() {
	register(map[string]Claim{
		"spiral-features": {Steps: 1000, Check: func(r []Result) error {
			return all(below(r[0], "test_acc", 0.8), above(r[1], "test_acc", 0.9))
		}},
		"momentum-ill-conditioned": {Steps: 400, Check: func(r []Result) error {
			return all(
				below(r[1], "grad_norm", 1e-7),
				above(r[0], "grad_norm", 1e-3),
			)
		}},
		// §2 (Thm 2.8): both converge under their bounds; the thin
		// margin's bound is 20× larger and it takes 10× the mistakes.
		"perceptron-margin": {Steps: 900, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				less001(r[0], "mistakes", "bound"),
				less001(r[1], "mistakes", "bound"),
				ratio(r[1], r[0], "bound", 20),
				ratio(r[1], r[0], "mistakes", 10),
			)
		}},
		// §3: both interpolants fit exactly; at equispaced nodes the test
		// MSE is far above ridge's, at Chebyshev nodes it is small.
		"interpolation-runge": {Steps: 16, Check: func(r []Result) error {
			return all(
				below(r[0], "train_mse_interp", 1e-20),
				below(r[1], "train_mse_interp", 1e-20),
				above(r[0], "test_mse_interp", 1),
				below(r[0], "test_mse_ridge", 0.03),
				below(r[1], "test_mse_interp", 0.02),
			)
		}},
		// §4: separable data, ‖w‖ grows and GD never converges;
		// overlapping classes converge to a finite w.
		"logistic-separable": {Steps: 2000, Check: func(r []Result) error {
			return all(
				running001(r[0]),
				near(r[0], "accuracy", 1, 0),
				below(r[0], "loss", 1e-3),
				above(r[0], "grad_norm", 1e-4),
				above(r[0], "w_norm", 3),
				converged(r[1]),
				near(r[1], "w_norm", 1.3, 0.1),
			)
		}},
		// §6 (Thm 6.3): the calibrated losses' ŷ* has the sign of 2p − 1,
		// the perceptron loss's is 0.
		"losses-calibration": {Steps: 60, Check: func(r []Result) error {
			var errs []error
			for i, sign := range []float64{1, -1} {
				for _, l := range []string{"ŷ* hinge", "ŷ* logistic", "ŷ* squared", "ŷ* exponential"} {
					errs = append(errs, above(signed001(r[i], sign), l, 0.1))
				}
				errs = append(errs, near(r[i], "ŷ* perceptron", 0, 1e-12))
			}
			return all(errs...)
		}},
		// §8: GD converges; SGD with a constant step sits at its noise
		// floor, SGD with t ∝ 1/k goes far below it.
		"sgd-step-size": {Steps: 3000, Check: func(r []Result) error {
			return all(
				converged(r[0]),
				above(r[1], "gap", 0.01),
				below(r[2], "gap", 0.005),
				ratio(r[1], r[2], "gap", 10),
			)
		}},
		// §9 (Remark 9.2): linear activations stay near 60% on the
		// circle, tanh learns it.
		"circle-needs-nonlinearity": {Steps: 1000, Check: func(r []Result) error {
			return all(
				below(r[0], "test_acc", 0.7),
				above(r[1], "test_acc", 0.95),
			)
		}},
		// §9: the plain net memorises (train loss ≈ 0); dropout's gap is
		// at most two thirds of the plain one's (about half).
		"dropout-gap": {Steps: 2000, Check: func(r []Result) error {
			return all(
				below(r[0], "train_plain", 0.01),
				above(r[0], "train_dropout", 0.05),
				ratioWithin(r[0], "gap_plain", "gap_dropout", 1.5),
			)
		}},
		// §9 (Thm 9.4): the construction is under its bound, 4 → 16
		// units cuts its error 10×, and the trained 16 get under 0.05.
		"universal-width": {Steps: 1500, Check: func(r []Result) error {
			return all(
				less001(r[0], "sup_constructive", "bound"),
				less001(r[1], "sup_constructive", "bound"),
				ratio(r[0], r[1], "sup_constructive", 10),
				below(r[1], "sup_trained", 0.05),
			)
		}},
		// §10: output sizes 3, 5 and 2 per side; valid ends on the
		// notes' last entry 4.
		"conv-padding-stride": {Steps: 30, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]), converged(r[2]),
				near(r[0], "out_h", 3, 0), near(r[0], "out_w", 3, 0), near(r[0], "value", 4, 0),
				near(r[1], "out_h", 5, 0), near(r[1], "out_w", 5, 0), near(r[1], "pad", 1, 0),
				near(r[2], "out_h", 2, 0), near(r[2], "out_w", 2, 0),
			)
		}},
		// §17: FGSM leaves the point correct, PGD flips it at step 8.
		"fgsm-vs-pgd": {Steps: 40, Check: func(r []Result) error {
			return all(
				above(r[0], "p_true", 0.55),
				undefined(r[0], "flipped_at"),
				below(r[1], "p_true", 0.4),
				near(r[1], "flipped_at", 8, 0),
				near(r[1], "dist", 0.3, 1e-9),
			)
		}},
		// §17: plain training: clean ≈ 1, robust near 0.6; at ε = 0.3:
		// robust > 0.75, clean a little lower.
		"adversarial-training": {Steps: 700, Check: func(r []Result) error {
			return all(
				above(r[0], "clean ε₀", 0.97),
				below(r[0], "robust ε₀", 0.7),
				above(r[0], "robust ε₃", 0.75),
				less001(r[0], "clean ε₃", "clean ε₀"),
				above(r[0], "clean ε₃", 0.9),
			)
		}},
		// §18: the 60° target is reached exactly past its threshold; the
		// 150° one's threshold is beyond ε_d = 1 and it is not reached.
		"poisoning-threshold": {Steps: 200, Check: func(r []Result) error {
			return all(
				near(r[0], "threshold", 0.57, 0.01),
				less001(r[0], "threshold", "eps_d"),
				near(r[0], "reachable", 1, 0),
				below(r[0], "distance", 1e-9),
				above(r[1], "threshold", 10),
				near(r[1], "reachable", 0, 0),
				above(r[1], "distance", 1),
			)
		}},
		// §19: after 4 epochs ε ≈ 7.5 at σ = 0.01 by the PRV accountant
		// (above 8 by Mironov's RDP conversion), under 1 at σ = 0.04, and
		// the noisier run is at least 5 points less accurate.
		"dp-sgd-noise": {Steps: 200, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "ε", 7.5, 0.25),
				above(r[0], "ε Mironov", 8),
				below(r[1], "ε", 1),
				exceeds(r[0], r[1], "acc σ", 0.05),
			)
		}},
		// §19: ε = ln 3 and ln(5/3); both estimates within 3σ of p; the
		// less private survey's ±2σ is at most 0.55 of the other's.
		"randomized-response-epsilon": {Steps: 3000, Check: func(r []Result) error {
			return all(
				near(r[0], "ε", math.Log(3), 1e-12),
				near(r[1], "ε", math.Log(5.0/3), 1e-12),
				near(r[0], "z", 0, 3),
				near(r[1], "z", 0, 3),
				ratio(r[1], r[0], "±2σ", 1.8),
			)
		}},
		// §20: by step 400 every estimator is within 0.1 of the exact
		// values, its error at least 3 times below its error at step 4.
		"shapley-estimators": {Steps: 400, Check: func(r []Result) error {
			var errs []error
			for _, x := range r {
				for _, m := range []string{"permutation", "Algorithm 3", "KernelSHAP"} {
					errs = append(errs, seriesBelow001(x, m, 0.1), seriesDrop001(x, m, 4, 3))
				}
			}
			return all(errs...)
		}},
	})
}

// less001 checks that r's metric a is below its metric b.
func less001(r Result, a, b string) error {
	va, vb, err := metrics2(r, a, r, b)
	if err != nil {
		return err
	}
	if !(va < vb) {
		return fmt.Errorf("%s's %s = %g, want below its %s = %g", r.Frame.Sim, a, va, b, vb)
	}
	return nil
}

// running001 checks that r made all its steps: it neither converged nor
// stopped on an error.
func running001(r Result) error {
	if r.Err != nil {
		return fmt.Errorf("%s stopped after %d steps (%v), want it still running", r.Frame.Sim, r.Steps, r.Err)
	}
	return nil
}

// signed001 is r with every metric multiplied by sign (to check a sign with
// above).
func signed001(r Result, sign float64) Result {
	ms := append(r.Frame.Metrics[:0:0], r.Frame.Metrics...)
	for i := range ms {
		ms[i].Value *= sign
	}
	r.Frame.Metrics = ms
	return r
}

// last001 is the last value of r's series of that name (in any line chart).
func last001(r Result, series string) (float64, error) {
	s, ok := r.Frame.Series(series)
	if !ok || len(s.Y) == 0 {
		return 0, fmt.Errorf("%s has no series %q", r.Frame.Sim, series)
	}
	return s.Y[len(s.Y)-1], nil
}

// seriesBelow001 checks that r's series ends below x.
func seriesBelow001(r Result, series string, x float64) error {
	v, err := last001(r, series)
	if err == nil && !(v < x) {
		err = fmt.Errorf("%s's %s ends at %g, want below %g", r.Frame.Sim, series, v, x)
	}
	return err
}

// seriesDrop001 checks that r's series, one value a step, ends at least
// k times below its value at step n.
func seriesDrop001(r Result, series string, n int, k float64) error {
	s, ok := r.Frame.Series(series)
	if !ok || len(s.Y) != r.Steps || n < 1 || n > len(s.Y) {
		return fmt.Errorf("%s has no series %q of %d values, one a step", r.Frame.Sim, series, r.Steps)
	}
	at, end := s.Y[n-1], s.Y[len(s.Y)-1]
	if !(at >= k*end) {
		return fmt.Errorf("%s's %s is %g at step %d and %g at %d, want it %g times smaller", r.Frame.Sim, series, at, n, end, len(s.Y), k)
	}
	return nil
}
