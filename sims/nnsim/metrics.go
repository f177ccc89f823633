package nnsim

import "github.com/thelab/lab/sims"

// The metrics of the network sims (sims.MetricDecl).
var (
	mEpoch    = sims.Declare("epoch", "passes made through the training set")
	mTestAcc  = sims.Declare("test_acc", "accuracy on the held-out test set")
	mTestLoss = sims.Declare("test_loss", "mean loss on the held-out test set")

	playgroundMetrics = []sims.MetricDecl{
		sims.Declare("train_loss", "mean loss on the training set"),
		mTestLoss, mTestAcc,
		sims.Declare("dead", "hidden ReLU units dead on every training point (output 0, no gradient)"),
		mEpoch,
	}
	digitsMetrics = []sims.MetricDecl{
		mEpoch,
		sims.Declare("train_acc", "accuracy on the training set"),
		mTestAcc, mTestLoss,
		sims.Declare("errors", "test digits misclassified"),
	}
	convMetrics = []sims.MetricDecl{
		sims.Declare("cells", "output cells computed so far"),
		sims.Declare("of", "output cells in all (out_h · out_w)"),
		sims.Declare("out_h", "height of the output: (H + 2·pad − k)/stride + 1"),
		sims.Declare("out_w", "width of the output: (W + 2·pad − k)/stride + 1"),
		sims.Declare("pad", "zeros added on each side of the input"),
		sims.Declare("value", "the output cell just computed: the window's sum of products with the kernel"),
	}
	dropoutMetrics = []sims.MetricDecl{
		sims.Declare("train_plain", "training loss of the network without dropout"),
		sims.Declare("test_plain", "test loss of the network without dropout"),
		sims.Declare("train_dropout", "training loss of the network trained with dropout (evaluated with every unit kept)"),
		sims.Declare("test_dropout", "test loss of the network trained with dropout"),
		sims.Declare("gap_plain", "test minus training loss without dropout: the overfitting"),
		sims.Declare("gap_dropout", "test minus training loss with dropout"),
	}
	universalMetrics = []sims.MetricDecl{
		sims.Declare("sup_trained", "sup |g − f| over [−1, 1] of the trained one-hidden-layer ReLU network"),
		sims.Declare("sup_constructive", "sup |g − f| of the network built by the construction (knots evenly spaced)"),
		sims.Declare("bound", "the construction's bound h² max|f″|/8, h = 2/k"),
	}
)

// optimizersMetrics is f − f* of each racer.
func optimizersMetrics() []sims.MetricDecl {
	out := make([]sims.MetricDecl, len(raceMethods))
	for i, m := range raceMethods {
		out[i] = sims.Declare(m.String(), "f − f* at "+m.String()+"'s iterate")
	}
	return out
}
