package classifysim

import "github.com/thelab/lab/sims"

// classifierMetrics are classifier's metrics (sims.MetricDecl).
var classifierMetrics = []sims.MetricDecl{
	sims.Declare("n", "training points seen"),
	sims.Declare("accuracy", "accuracy of the fitted generative classifier on test points"),
	sims.Declare("bayes", "accuracy of the Bayes classifier with the true parameters: the best possible"),
	sims.DeclareAs("‖A‖", "quad_norm", "Frobenius norm of the decision rule's quadratic term A (0: a linear boundary)"),
}

// classifiersMetrics are classifiers' metrics: the accuracies of every
// model, then each model's own.
var classifiersMetrics = []sims.MetricDecl{
	sims.DeclareAs("train acc", "train_acc", "accuracy on the training points (those taken in so far, for naive-bayes)"),
	sims.DeclareAs("test acc", "test_acc", "accuracy on as many held-out points of the same law"),
	sims.DeclareAs("OOB acc", "oob_acc", "forest: out-of-bag accuracy, each training point scored by the trees whose bootstrap missed it"),
	sims.Declare("trees", "forest: trees grown"),
	sims.Declare("depth", "tree: its depth; forest: the deepest tree's (the root's depth is 0)"),
	sims.Declare("leaves", "tree: its leaves; forest: the mean leaves a tree"),
	sims.Declare("k", "knn: the neighbours that vote"),
	sims.Declare("n", "naive-bayes: training points taken in"),
	sims.Declare("grad_norm", "logistic: ‖∇f‖ of the regularised mean log-loss at the current (w, b)"),
	sims.Declare("sv", "svm: support vectors, the training points with α > 0"),
	sims.Declare("kkt", "svm: the maximal KKT violation m(α) − M(α); SMO stops when it is at most 1e-3"),
	sims.Declare("loss", "mlp: mean logistic loss on the training points"),
}
