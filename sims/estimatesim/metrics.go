package estimatesim

import "github.com/thelab/lab/sims"

// mleMetrics are both views' metrics (sims.MetricDecl): the streaming
// estimate's (n, the estimates hatNames names, loglik/n) and the sampling
// distribution's.
var mleMetrics = []sims.MetricDecl{
	sims.Declare("n", "stream: observations seen"),
	sims.DeclareAs("μ̂", "mu_hat", "stream, gaussian: the maximum-likelihood mean"),
	sims.DeclareAs("σ̂²", "sigma2_hat", "stream, gaussian and regression: the maximum-likelihood variance (divides by n)"),
	sims.DeclareAs("p̂", "p_hat", "stream, bernoulli: the maximum-likelihood success probability"),
	sims.DeclareAs("λ̂", "lambda_hat", "stream, exponential: the maximum-likelihood rate"),
	sims.DeclareAs("â", "a_hat", "stream, regression: the maximum-likelihood slope"),
	sims.DeclareAs("loglik/n", "loglik_per_n", "stream: the log-likelihood per observation at the estimate"),
	sims.Declare("replicates", "sampling: data sets drawn, one estimate each"),
	sims.DeclareAs("mean z", "mean_z", "sampling: mean of z = √n(θ̂ − θ) over the replicates (→ 0)"),
	sims.DeclareAs("var z", "var_z", "sampling: variance of z over the replicates (→ I⁻¹)"),
	sims.DeclareAs("I⁻¹", "inv_fisher", "sampling: the inverse Fisher information, z's asymptotic variance"),
	sims.DeclareAs("in ±1.96sd", "coverage_95", "sampling: fraction of the replicates with |z| ≤ 1.96·√I⁻¹ (→ 0.95)"),
}
