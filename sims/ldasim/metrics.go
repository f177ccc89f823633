package ldasim

import "github.com/thelab/lab/sims"

// ldaMetrics are lda's metrics (sims.MetricDecl).
var ldaMetrics = []sims.MetricDecl{
	sims.Declare("sweep", "variational sweeps over the corpus"),
	sims.Declare("elbo", "the ELBO per word, which never falls"),
	sims.Declare("delta", "the last sweep's rise of the ELBO per word"),
	sims.Declare("topic_err", "mean distance between the fitted topics and the true ones (synthetic corpus)"),
}
