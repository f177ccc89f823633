package mixturesim

import "github.com/thelab/lab/sims"

// The metrics of the mixture sims (sims.MetricDecl).
var (
	mIter = sims.Declare("iter", "iterations of the current run")

	emgmmMetrics = []sims.MetricDecl{
		sims.Declare("loglik", "the log-likelihood per point, which EM never lowers"),
		sims.Declare("hard", "εI limit: mean over the points of the largest responsibility max_k γ_nk (→ 1: hard assignments)"),
		sims.Declare("agree", "εI limit: fraction of the points whose most responsible component is their k-means cluster"),
		sims.Declare("delta", "the last iteration's rise of the log-likelihood per point"),
		sims.Declare("elbo", "the ELBO per point at the current responsibilities"),
		sims.Declare("kl", "log-likelihood minus ELBO per point: KL(q‖p(z|x)), 0 after each E-step"),
		mIter,
		sims.Declare("run", "which of the restarts is running"),
	}
	kmeansMetrics = []sims.MetricDecl{
		sims.Declare("J", "the k-means objective: sum of squared distances to the assigned centres"),
		sims.DeclareAs("J/n", "J_per_n", "J per point"),
		sims.Declare("changed", "points whose assignment changed in the last iteration"),
		mIter,
	}
	ancestralMetrics = []sims.MetricDecl{
		sims.Declare("n", "mixture: draws made"),
		sims.Declare("z", "mixture: the component of the last draw (from 1); state space: the last latent z_t"),
		sims.Declare("tv", "mixture: total variation between the components' frequencies and π"),
		sims.Declare("t", "state space: time steps drawn"),
		sims.Declare("x", "state space: the last observation x_t"),
	}
)
