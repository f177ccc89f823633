package shapleysim

import "github.com/thelab/lab/sims"

// shapleyMetrics are shapley's metrics (sims.MetricDecl).
var shapleyMetrics = []sims.MetricDecl{
	sims.Declare("players", "players of the game"),
	sims.DeclareAs("u([n])", "grand_value", "the value of the grand coalition, which the Shapley values share out"),
	sims.Declare("coalitions", "coalitions enumerated for the exact values"),
	sims.Declare("perms", "permutations sampled by the Monte Carlo estimator"),
	sims.Declare("evals", "evaluations of u made by the estimators"),
}
