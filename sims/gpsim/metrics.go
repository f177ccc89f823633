package gpsim

import "github.com/thelab/lab/sims"

// The metrics of the Gaussian-process sims (sims.MetricDecl).
var (
	mLogML = sims.Declare("log_ml", "the log marginal likelihood log p(y | X, θ)")

	gpMetrics = []sims.MetricDecl{
		sims.Declare("n", "observations conditioned on"),
		mLogML,
		sims.Declare("mean_sd", "the posterior standard deviation averaged over the chart's grid"),
		sims.Declare("max_sd", "the largest posterior standard deviation over the chart's grid"),
		sims.Declare("jitter", "diagonal jitter the Cholesky factorisation needed"),
	}
	gpFitMetrics = []sims.MetricDecl{
		mLogML,
		sims.Declare("lengthscale", "the kernel's fitted lengthscale"),
		sims.Declare("variance", "the kernel's fitted signal variance"),
		sims.Declare("noise", "the fitted noise variance"),
		sims.Declare("grad", "norm of log_ml's gradient in the log hyperparameters"),
	}
	blrMetrics = []sims.MetricDecl{
		sims.Declare("n", "observations conditioned on"),
		sims.Declare("w0", "posterior mean of the intercept"),
		sims.Declare("w1", "posterior mean of the slope"),
		sims.Declare("batch_diff", "largest |sequential − batch| difference of the posterior mean of (w0, w1): 0 up to rounding"),
		sims.Declare("gp_diff", "largest |BLR − GP| difference of the predictive mean and variance over the chart's grid: 0 up to rounding"),
		sims.Declare("rank", "features=bumps: the rank of K = ΦΦᵀ/α on the observed inputs (eigenvalues above 1e-10·λ_max; at most 60 inputs): ≤ M"),
	}
	gpPriorMetrics = []sims.MetricDecl{
		sims.Declare("draws", "sample paths drawn on each side (one a step)"),
		sims.DeclareAs("dev left", "dev_left", "largest |ρ̂(x) − ρ(x)| over the grid, ρ̂ the left draws' empirical correlation of f(x) with f(0), "+
			"ρ the kernel's k(0,x)/√(k(0,0)k(x,x)) (undefined before the first draw)"),
		sims.DeclareAs("s.e. left", "se_left", "largest standard error (1 − ρ²)/√draws of the left empirical correlation over the grid: dev left stays within a few of it"),
		sims.DeclareAs("dev right", "dev_right", "dev left for the right draws (ell_right)"),
		sims.DeclareAs("s.e. right", "se_right", "s.e. left for the right draws"),
		sims.DeclareAs("jitter left", "jitter_left", "diagonal jitter the Cholesky factorisation of the left Gram matrix needed (0: none)"),
		sims.DeclareAs("jitter right", "jitter_right", "jitter left for the right Gram matrix"),
	}
)
