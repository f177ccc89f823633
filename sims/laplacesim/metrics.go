package laplacesim

import "github.com/thelab/lab/sims"

// laplaceMetrics are laplace's metrics (sims.MetricDecl).
var laplaceMetrics = []sims.MetricDecl{
	sims.Declare("iter", "Newton iterations towards the posterior mode"),
	sims.Declare("z", "1-D: the current iterate"),
	sims.Declare("b", "2-D: the iterate's intercept"),
	sims.Declare("w", "2-D: the iterate's slope"),
	sims.Declare("grad_norm", "norm of the log posterior's gradient at the iterate (0 at the mode)"),
	sims.Declare("kl_pq", "KL(p‖q) from the posterior p to its Laplace approximation q"),
}
