package linearsim

import (
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/sims"
)

// The metrics of the linear models' sims (sims.MetricDecl).
var (
	mAccuracy = sims.Declare("accuracy", "fraction of the training points classified correctly")
	mEpoch    = sims.Declare("epoch", "passes made through the training set")
	mMistakes = sims.Declare("mistakes", "updates made so far: points found on the wrong side")
	mGradNorm = sims.Declare("grad_norm", "‖∇J(w)‖, the norm of the objective's gradient at the iterate")
	mLoss     = sims.Declare("loss", "the objective J(w) being minimised, at the iterate")
	mWNorm    = sims.Declare("w_norm", "‖w‖, the norm of the weights (the bias left out)")
	mCond     = sims.Declare("cond", "condition number of the least-squares problem (undefined when it is singular)")

	perceptronMetrics = []sims.MetricDecl{
		mEpoch, mMistakes,
		sims.Declare("errors", "training points the current w misclassifies"),
		mAccuracy,
		sims.Declare("bound", "Theorem 2.8's bound (C/γ)² on the number of mistakes (undefined when the data are not separable)"),
		sims.DeclareAs("loss GD", "loss_gd", "update=gd-sgd: the perceptron loss L(w̃) = (1/n)Σ max(0, −y⟨x̃,w̃⟩) of full-batch GD"),
		sims.DeclareAs("loss SGD", "loss_sgd", "update=gd-sgd: the perceptron loss L(w̃) of SGD"),
		sims.DeclareAs("errors GD", "errors_gd", "update=gd-sgd: training points GD's w̃ misclassifies (≤ 0 counts)"),
		sims.DeclareAs("errors SGD", "errors_sgd", "update=gd-sgd: training points SGD's w̃ misclassifies (≤ 0 counts)"),
	}
	linregMetrics = []sims.MetricDecl{
		mLoss,
		sims.Declare("mse", "mean squared error on the training set (the loss without its ridge term)"),
		mGradNorm, mWNorm, mCond,
	}
	interpMetrics = []sims.MetricDecl{
		sims.Declare("points", "training points fitted so far"),
		sims.Declare("train_mse_interp", "training MSE of the minimum-norm interpolant"),
		sims.Declare("test_mse_interp", "test MSE of the minimum-norm interpolant"),
		sims.Declare("train_mse_ridge", "training MSE of the ridge fit"),
		sims.Declare("test_mse_ridge", "test MSE of the ridge fit"),
		mCond,
	}
	logregMetrics  = []sims.MetricDecl{mLoss, mGradNorm, mAccuracy, mWNorm}
	softmaxMetrics = []sims.MetricDecl{mLoss, mGradNorm, mAccuracy}
	logitsMetrics  = []sims.MetricDecl{
		sims.Declare("T", "the softmax temperature"),
		sims.Declare("entropy", "entropy of the softmax distribution, in nats"),
		sims.Declare("logsumexp", "log Σ exp(z_i/T), computed stably"),
		sims.Declare("max_prob", "the largest softmax probability"),
	}
)

// lossesMetrics are p and, for every convex loss, the minimiser of its
// conditional risk.
func lossesMetrics() []sims.MetricDecl {
	out := []sims.MetricDecl{sims.Declare("p", "P(y = +1 | x), the probability the risk is taken at")}
	for _, l := range linear.Losses {
		if l.Convex() {
			// shown as ŷ* hinge: the header's numbers are minimisers, not losses
			out = append(out, sims.DeclareAs(minimiserName(l), string(l), "ŷ minimising p ℓ(ŷ) + (1 − p) ℓ(−ŷ) under the "+string(l)+" loss"))
		}
	}
	return out
}
