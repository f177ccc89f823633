package optimsim

import "github.com/thelab/lab/sims"

// The metrics of the optimisation sims (sims.MetricDecl).
var (
	gdMetrics = []sims.MetricDecl{
		sims.Declare("f", "the objective f(x) at the iterate"),
		sims.Declare("gap", "f(x) − f*, the distance to the minimum value"),
		sims.Declare("grad_norm", "‖∇f(x)‖ at the iterate"),
	}
	majoriseMetrics = []sims.MetricDecl{
		sims.Declare("x", "the iterate"),
		sims.Declare("f", "the objective f(x) at the iterate"),
		sims.Declare("grad", "the derivative f′(x) at the iterate"),
		sims.Declare("model_gap", "least value of the quadratic model minus f on the grid: ≥ 0 while the model majorises f"),
		sims.Declare("lemma_fails", "steps at which the descent lemma's bound did not hold"),
	}
	ratesMetrics = []sims.MetricDecl{
		sims.Declare("eps", "the accuracy ε of the latest level reached"),
		sims.Declare("slope_nonconvex", "fitted slope of log(iterations) against log(1/ε), non-convex regime (theory: 2; undefined before two levels of ε)"),
		sims.Declare("slope_convex", "fitted slope of log(iterations) against log(1/ε), convex regime (theory: 1)"),
		sims.Declare("per_efold_strong", "iterations per e-fold of ε in the strongly convex regime (theory: κ)"),
		sims.Declare("slope_sgd", "fitted slope of log(error) against log(steps) for SGD (theory: −1)"),
		sims.Declare("slope_sgd_se", "standard error of slope_sgd over the SGD runs"),
		sims.Declare("capped", "regimes held at the iteration cap, catching up in later steps"),
	}
)
