package classifysim

import "github.com/thelab/lab/sims"

// classifierMetrics are classifier's metrics (sims.MetricDecl).
var classifierMetrics = []sims.MetricDecl{
	sims.Declare("n", "training points seen"),
	sims.Declare("accuracy", "accuracy of the fitted generative classifier on test points"),
	sims.Declare("bayes", "accuracy of the Bayes classifier with the true parameters: the best possible"),
	sims.DeclareAs("‖A‖", "quad_norm", "Frobenius norm of the decision rule's quadratic term A (0: a linear boundary)"),
}
