package visim

import "github.com/thelab/lab/sims"

// The metrics of the variational-inference sims (sims.MetricDecl).
var (
	mELBO = sims.Declare("ELBO", "the evidence lower bound at the current q")

	viMetrics = []sims.MetricDecl{
		sims.DeclareAs("KL(q‖p)", "kl_qp", "gaussian: KL(q‖p) of the factorised q from the correlated Gaussian p"),
		sims.DeclareAs("s₁", "s1", "gaussian: q's standard deviation along x₁"),
		sims.DeclareAs("s₂", "s2", "gaussian: q's standard deviation along x₂"),
		sims.DeclareAs("σ²(1−ρ²)", "cond_var", "gaussian: p's conditional variance, what s₁² and s₂² converge to (too small: q under-covers)"),
		sims.DeclareAs("m₁", "m1", "gaussian: q's mean along x₁"),
		sims.DeclareAs("m₂", "m2", "gaussian: q's mean along x₂"),
		mELBO,
		sims.DeclareAs("log p(x)", "log_evidence", "mixture: the log evidence, which the ELBO approaches from below"),
		sims.Declare("gap", "mixture: log p(x) − ELBO = KL(q‖posterior)"),
		sims.Declare("updates", "mixture: coordinate updates made"),
		sims.Declare("iter", "bgmm: iterations made"),
		sims.DeclareAs("in use", "components_used", "bgmm: components whose expected weight E[π_k] is above 0.01"),
	}
	bbviMetrics = []sims.MetricDecl{
		sims.Declare("m", "q's mean"),
		sims.Declare("s", "q's standard deviation"),
		mELBO,
		sims.DeclareAs("var score", "var_score", "variance of one score-function estimate of ∇_m ELBO, over the last step's S gradient estimates "+
			"(at λ before its move; undefined before the first step)"),
		sims.DeclareAs("var reparam", "var_reparam", "variance of one reparameterisation estimate of ∇_m ELBO, over the last step's S gradient estimates "+
			"(at λ before its move; undefined before the first step)"),
		sims.Declare("ratio", "var score / var reparam of the last step's gradient estimates (at λ before its move): "+
			"how much noisier the score estimator is (undefined before the first step)"),
	}
)
