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
