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
	}
)
