package gpsim

import "github.com/thelab/lab/sims"

// The metrics of the Gaussian-process sims (sims.MetricDecl).
var (
	mLogML = sims.Declare("log_ml", "the log marginal likelihood log p(y | X, θ)")

	gpMetrics = []sims.MetricDecl{
		sims.Declare("n", "observations conditioned on"),
		mLogML,
		sims.Declare("mean_sd", "the posterior standard deviation averaged over the plotted range"),
		sims.Declare("max_sd", "the largest posterior standard deviation over the plotted range"),
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
		sims.Declare("batch_diff", "largest difference between the sequential and the batch posterior means"),
		sims.Declare("gp_diff", "largest difference between the posterior predictive mean and the equivalent GP's"),
	}
)
