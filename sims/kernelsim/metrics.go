package kernelsim

import "github.com/thelab/lab/sims"

// The metrics of the kernel sims (sims.MetricDecl).
var (
	mAccuracy = sims.Declare("accuracy", "fraction of the training points classified correctly")

	gramMetrics = []sims.MetricDecl{
		sims.Declare("n", "points in the Gram matrix"),
		sims.Declare("lambda_min", "the Gram matrix's least eigenvalue (≥ 0 for a positive semi-definite kernel)"),
		sims.Declare("lambda_max", "the Gram matrix's largest eigenvalue"),
		sims.Declare("psd", "1 when the Gram matrix is positive semi-definite, to rounding; else 0"),
		sims.Declare("cs_excess", "largest K_ij² − K_ii K_jj relative to the largest K_ii K_jj: ≤ 0 (to rounding) when Cauchy–Schwarz holds"),
	}
	kernelPerceptronMetrics = []sims.MetricDecl{
		sims.Declare("epoch", "passes through the training set"),
		sims.Declare("mistakes", "updates made so far"),
		sims.Declare("epoch_mistakes", "mistakes in the current pass (0: a pass without one, converged)"),
		sims.DeclareAs("alpha>0", "support", "points with α_i > 0: the ones the classifier is built from"),
		mAccuracy,
	}
	ridgeMetrics = []sims.MetricDecl{
		sims.Declare("kappa", "condition number of K + λI"),
		sims.Declare("cg_error", "conjugate gradient's error ‖α − α*‖_A"),
		sims.Declare("gd_error", "gradient descent's error ‖α − α*‖_A"),
		sims.Declare("gd_J_gap", "gradient descent's objective above the optimum, J(α) − J(α*)"),
	}
	kpcaMetrics = []sims.MetricDecl{
		sims.Declare("lambda1", "the iteration's estimate of the centred kernel matrix's largest eigenvalue over N: the first component's variance"),
		sims.Declare("lambda2", "its estimate of the second eigenvalue over N"),
		sims.Declare("explained", "fraction of the variance in feature space the first two components hold (exact eigenvalues)"),
		sims.Declare("residual", "the eigen-iteration's residual"),
	}
	svmMetrics = []sims.MetricDecl{
		sims.Declare("dual", "the dual objective, which SMO raises"),
		sims.Declare("gap", "duality gap: primal minus dual objective"),
		sims.Declare("kkt", "largest violation of the KKT conditions"),
		sims.Declare("violation", "the violation of the pair SMO picked last"),
		sims.Declare("sv", "support vectors: points with α_i > 0"),
		mAccuracy,
	}
	svmPrimalMetrics = []sims.MetricDecl{
		sims.Declare("P", "the primal objective at the iterate"),
		sims.Declare("best", "the least primal objective so far (subgradient steps are not monotone)"),
		sims.DeclareAs("D*", "dual_opt", "the optimal value D* = P*, from a dual solve: the target"),
		sims.Declare("rel_gap", "(best − D*)/|D*|: the relative distance of the best iterate from the optimum"),
		sims.Declare("t_k", "the current step size"),
	}
	geometryMetrics = []sims.MetricDecl{
		sims.Declare("points", "demo=cholesky, rotation: the points so far"),
		sims.Declare("inner_M", "demo=cholesky: ⟨x,y⟩_M = xᵀMy of the last two points"),
		sims.Declare("inner_gap", "demo=cholesky: largest |xᵀMy − ⟨Ux,Uy⟩| over all pairs: 0 up to rounding"),
		sims.Declare("recon_err", "demo=rotation: ‖X̂ − XQ‖_F, X̂ rebuilt from K = XXᵀ, Q by Procrustes: 0 up to rounding"),
		sims.Declare("orth_err", "demo=rotation: largest |QᵀQ − I| entry: 0 up to rounding"),
		sims.Declare("gram_err", "demo=rotation: largest |X̂X̂ᵀ − K| entry: 0 up to rounding"),
		sims.Declare("d", "demo=poly: the degree d of (xᵀy)^d"),
		sims.Declare("dim", "demo=poly: monomials of degree d in n variables, counted"),
		sims.Declare("dim_formula", "demo=poly: C(n+d−1, d), the notes' feature dimension"),
		sims.Declare("kernel_gap", "demo=poly: |(xᵀy)^d − ⟨φ(x),φ(y)⟩| relative to (‖x‖‖y‖)^d: 0 up to rounding"),
		sims.DeclareAs("r/σ", "r_sigma", "demo=angle: the distance ‖x − y‖/σ of the current pair"),
		sims.Declare("theta", "demo=angle: the angle arccos k(x,y) between φ(x) and φ(y) in H, in radians"),
		sims.Declare("theta_deg", "demo=angle: the same angle in degrees (→ 90 far apart)"),
		sims.Declare("angle_gap", "demo=angle: largest |θ − arccos exp(−r²/2)| so far: 0 up to rounding"),
		sims.Declare("atoms", "demo=rkhs: the atoms α_i k(x_i,·) of f"),
		sims.Declare("norm2", "demo=rkhs: ‖f‖²_H, kept by the update ‖f + a k(c,·)‖² = ‖f‖² + 2a f(c) + a² k(c,c)"),
		sims.Declare("norm2_gap", "demo=rkhs: |‖f‖²_H − αᵀKα|, the update against the Gram matrix: 0 up to rounding"),
		sims.Declare("repro_gap", "demo=rkhs: largest |f(x) − ⟨f, k(x,·)⟩_H| at the check points: 0 up to rounding"),
		sims.Declare("peak_ratio", "demo=rkhs: max over the line of |f(x)|/‖f‖_H, ≤ 1 = √k(x,x) (undefined for f = 0)"),
	}
)
