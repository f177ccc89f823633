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
)
