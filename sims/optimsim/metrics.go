package optimsim

import "github.com/thelab/lab/sims"

// The metrics of the optimisation sims (sims.MetricDecl).
var (
	gdMetrics = []sims.MetricDecl{
		sims.Declare("f", "the objective f(x) at the iterate"),
		sims.Declare("gap", "f(x) − f*, the distance to the minimum value"),
		sims.Declare("grad_norm", "‖∇f(x)‖ at the iterate"),
		sims.Declare("evals", "sgd, batches: gradient evaluations ∇f_i spent, B per update (batches: granted to every run)"),
		sims.DeclareAs("gap B=1", "gap_b1", "batches: f − f* of the run with B = 1"),
		sims.DeclareAs("gap B=8", "gap_b8", "batches: f − f* of the run with B = 8"),
		sims.DeclareAs("gap B=64", "gap_b64", "batches: f − f* of the run with B = 64 (undefined when n ≤ 64)"),
		sims.DeclareAs("gap GD", "gap_gd", "batches: f − f* of the full-batch run, B = n"),
	}
	dualityMetrics = []sims.MetricDecl{
		sims.DeclareAs("α", "alpha", "the multiplier α_k of the constraint"),
		sims.Declare("w", "the Lagrangian's minimiser w(α) = a + α/2"),
		sims.DeclareAs("θ_D", "dual", "the dual function θ_D(α) = min_w L(w, α) = α(c − a) − α²/4"),
		sims.DeclareAs("p*", "p_star", "the primal optimum max(c − a, 0)²: θ_D never passes it (weak duality) and reaches it (strong duality)"),
		sims.Declare("gap", "p* − θ_D(α): ≥ 0 always, 0 at α*"),
		sims.Declare("g", "the constraint c − w(α): ≤ 0 when w(α) is admissible (KKT)"),
		sims.DeclareAs("α·g", "alpha_g", "complementary slackness α g(w(α)): 0 at the optimum (KKT)"),
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
