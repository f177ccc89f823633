package pushforwardsim

import "github.com/thelab/lab/sims"

// pushforwardMetrics are pushforward's metrics (sims.MetricDecl).
var pushforwardMetrics = []sims.MetricDecl{
	sims.Declare("draws", "samples X drawn and pushed forward to Y = T(X)"),
	sims.DeclareAs("P(Y<c)", "p_below", "fraction of the pushed-forward samples below c"),
	sims.Declare("exact", "P(Y < c) computed from the push-forward density"),
	sims.DeclareAs("χ²/df", "chi2_per_df", "χ² of the samples' histogram against the exact density, per degree of freedom (≈ 1)"),
	sims.DeclareAs("p-value", "p_value", "the χ² test's p-value: small when the samples disagree with the density"),
}

// gaussianMetrics are gaussian's metrics.
var gaussianMetrics = []sims.MetricDecl{
	sims.Declare("draws", "samples drawn by x = Lz + μ"),
	sims.DeclareAs("max |z|", "max_z", "the largest of the sample means' and covariances' errors against the claimed law, in standard errors: about 2 or less when the identity holds"),
	sims.DeclareAs("in slice", "in_slice", "conditional: the draws whose x₁ falls in the slice"),
	sims.DeclareAs("slice mean", "slice_mean", "conditional: the mean of x₂ over the slice's draws"),
	sims.DeclareAs("(c) mean", "c_mean", "conditional: the mean of x₂ | x₁ at the slice by identity (c)"),
	sims.DeclareAs("slice sd", "slice_sd", "conditional: the standard deviation of x₂ over the slice's draws"),
	sims.DeclareAs("(c) sd", "c_sd", "conditional: the standard deviation of x₂ | x₁ by identity (c)"),
}
