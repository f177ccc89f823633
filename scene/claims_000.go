package scene

import (
	"fmt"
	"math"
)

// Claims of the scenes of seed 000 (automatic differentiation, neural
// networks, diffusion, kernels).
func init() {
	register(map[string]Claim{
		"ad-forward-reverse": {Steps: 10, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "tangent", 7, 1e-12),
				near(r[1], "adjoint", 7, 1e-12),
				near(r[0], "f", 12, 1e-12),
				near(r[1], "f", 12, 1e-12),
			)
		}},
		"ad-tape-memory": {Steps: 30, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				below(r[0], "peak", 1.5),
				above(r[1], "peak", 12.5),
				agree000(r[0], "tangent", r[1], "adjoint", 1e-12),
			)
		}},
		"jacobian-columns-rows": {Steps: 10, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "passes", 8, 0),
				near(r[1], "passes", 2, 0),
				below(r[0], "fd_err", 1e-9),
				below(r[1], "fd_err", 1e-9),
			)
		}},
		"hessian-runs-scaling": {Steps: 40, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "runs_fof", 9, 0),
				near(r[1], "runs_fof", 36, 0),
				near(r[0], "runs_ror", 3, 0),
				near(r[1], "runs_ror", 6, 0),
				near(r[0], "diff", 0, 0),
				near(r[1], "diff", 0, 0),
			)
		}},
		"implicit-heron-lp": {Steps: 9, Check: func(r []Result) error {
			return all(
				below(r[0], "ift_err", 1e-12),
				above(r[0], "unrolled_err", 1e-7),
				near(r[1], "b1", 6.25, 1e-12),
				above(r[1], "miss", 0.1),
			)
		}},
		"coloring-arrowhead": {Steps: 30, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "colours", 2, 0),
				near(r[0], "passes", 2, 0),
				near(r[0], "found", 19, 0),
				below(r[0], "err", 1e-12),
				near(r[1], "colours", 7, 0),
				near(r[1], "dense", 7, 0),
				near(r[1], "found", 19, 0),
			)
		}},
		"residual-deep-sigmoid": {Steps: 1500, Check: func(r []Result) error {
			return all(
				above(r[0], "train_loss", 0.65),
				below(r[0], "test_acc", 0.6),
				below(r[1], "train_loss", 0.05),
				above(r[1], "test_acc", 0.95),
			)
		}},
		"rnn-rho-gradients": {Steps: 20, Check: func(r []Result) error {
			return all(
				below(r[0], "‖∂h_50/∂h_0‖", 1e-3),
				above(r[1], "‖∂h_50/∂h_0‖", 100),
			)
		}},
		"attention-sqrt-dk": {Steps: 24, Check: func(r []Result) error {
			return all(
				above(r[0], "mean row entropy", 0.5),
				below(r[1], "mean row entropy", 0.01),
			)
		}},
		"langevin-step-bias": {Steps: 3000, Check: func(r []Result) error {
			return all(
				above(r[0], "var_x_ula", 0.95), below(r[0], "var_x_ula", 1.2),
				above(r[1], "var_x_ula", 1.7), below(r[1], "var_x_ula", 2.3),
				above(r[0], "var_x_mala", 0.85), below(r[0], "var_x_mala", 1.15),
				above(r[1], "var_x_mala", 0.85), below(r[1], "var_x_mala", 1.15),
			)
		}},
		"score-matching-gap": {Steps: 1550, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				ratioWithin(r[0], "gap", "floor", 0.1), // the gaps are measured above a floor that is there
				ratio(r[0], r[1], "gap", 2),
				above(r[1], "gap", 0),
				ratioWithin(r[1], "spread_exact", "spread_learned", 1/4.0),
				ratioWithin(r[0], "spread_learned", "spread_exact", 10),
			)
		}},
		"ddim-ddpm-same-ring": {Steps: 110, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				ratioWithin(r[0], "spread", "spread_data", 0.85), ratioWithin(r[0], "spread_data", "spread", 1/1.15),
				ratioWithin(r[1], "spread", "spread_data", 0.85), ratioWithin(r[1], "spread_data", "spread", 1/1.15),
				below(r[0], "mass_err", 0.03), below(r[1], "mass_err", 0.03),
			)
		}},
		"guidance-oversharpens": {Steps: 110, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "var", 0.09, 0.01),
				below(r[1], "var", 0.045),
				ratioWithin(r[1], "spread", "var", 3), // off the mode: E‖x − mode‖² ≫ the variance
			)
		}},
		"bpe-abracadabra": {Steps: 200, Check: func(r []Result) error {
			return all(
				converged(r[0]), converged(r[1]),
				near(r[0], "merges", 3, 0),
				near(r[0], "tokens", 5, 0),
				near(r[0], "n_voc", 259, 0),
				above(r[1], "bytes/token", 6),
				above(r[1], "n_voc", 400),
			)
		}},
		"tweedie-denoiser": {Steps: 1000, Check: func(r []Result) error {
			return all(
				below(r[0], "to_tweedie", 0.1*0.3),
				below(r[1], "to_tweedie", 0.1*1),
			)
		}},
		"rff-rate-any-dimension": {Steps: 2048, Check: func(r []Result) error {
			return all(
				ratioWithin(r[0], "err_iid", "theory_iid", 0.7), ratioWithin(r[0], "theory_iid", "err_iid", 0.7),
				ratioWithin(r[1], "err_iid", "theory_iid", 0.7), ratioWithin(r[1], "theory_iid", "err_iid", 0.7),
				below(r[0], "err_iid", 0.05), below(r[1], "err_iid", 0.05),
			)
		}},
	})
}

// agree000 checks that a's metric ma and b's metric mb agree to within tol.
func agree000(a Result, ma string, b Result, mb string, tol float64) error {
	va, vb, err := metrics2(a, ma, b, mb)
	if err != nil {
		return err
	}
	if !(math.Abs(va-vb) <= tol) {
		return fmt.Errorf("%s's %s = %g and %s's %s = %g differ by more than %g", a.Frame.Sim, ma, va, b.Frame.Sim, mb, vb, tol)
	}
	return nil
}
