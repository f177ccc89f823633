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
	clusteringMetrics = []sims.MetricDecl{
		sims.Declare("clusters", "clusters found so far (DBSCAN) or now (the others: non-empty ones)"),
		sims.Declare("noise", "dbscan: points in no cluster, not yet reached while it runs, noise at the end"),
		sims.Declare("expanded", "dbscan: core points whose ε-neighbourhood has been expanded (one a step)"),
		sims.Declare("height", "agglomerative: the linkage distance of the last merge"),
		sims.Declare("J", "kmeans: the k-means objective on the points; spectral: on the embedding's rows"),
		sims.Declare("loglik", "em: the log-likelihood per point, which EM never lowers"),
		sims.DeclareAs("ARI", "ari", "adjusted Rand index of the labels against the set's true classes (noise counts as a cluster)"),
	}
	bernoulliMetrics = []sims.MetricDecl{
		sims.Declare("loglik", "the log-likelihood per image, log p(x|θ)/n"),
		sims.Declare("objective", "the log posterior per image (log-likelihood + the Beta prior's log density), which EM never lowers"),
		sims.Declare("purity", "share of the images whose most responsible component's majority digit is their own"),
		mIter,
	}
)
