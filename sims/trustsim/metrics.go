package trustsim

import "github.com/thelab/lab/sims"

// The metrics of the trustworthy-ML sims (sims.MetricDecl).
var (
	advTrainMetrics = []sims.MetricDecl{
		sims.DeclareAs("clean ε₀", "clean_first", "clean test accuracy of the network trained at the first ε of eps"),
		sims.DeclareAs("robust ε₀", "robust_first", "its test accuracy under the PGD attack"),
		sims.DeclareAs("clean ε₃", "clean_last", "clean test accuracy of the network trained at the last ε of eps"),
		sims.DeclareAs("robust ε₃", "robust_last", "its test accuracy under the PGD attack"),
		sims.Declare("epoch", "passes through the training set"),
		sims.Declare("min_gap", "least robust − clean batch loss seen (≥ 0: Δx = 0 is in the ball)"),
	}
	attackMetrics = []sims.MetricDecl{
		sims.Declare("eps", "the attack's budget ε"),
		sims.Declare("dist", "the perturbation's size ‖Δx‖ so far"),
		sims.Declare("objective", "the attack's objective at the current perturbation"),
		sims.Declare("p_true", "the model's probability of the true class at the perturbed input"),
		sims.Declare("class", "the class the model now predicts"),
		sims.Declare("flipped_at", "the step at which the prediction first changed (0: not yet)"),
	}
	poisoningMetrics = []sims.MetricDecl{
		sims.Declare("eps_d", "the poisoning budget: fraction of the training set the attacker adds"),
		sims.Declare("threshold", "the distance the target must be moved for the attack to succeed"),
		sims.Declare("distance", "how far the last poisoned fit moved the target"),
		sims.Declare("poison", "poison points added"),
		sims.Declare("reachable", "1 when the budget can reach the threshold, else 0"),
	}
	robustRegMetrics = []sims.MetricDecl{
		sims.Declare("lambda", "the lasso's penalty λ, the uncertainty set's radius"),
		sims.Declare("objective", "the lasso objective at the iterate"),
		sims.Declare("worst_case", "the worst-case loss over the uncertainty set, which the lasso objective equals"),
		sims.Declare("random_max", "the largest loss found by random perturbations in the set (≤ worst_case)"),
		sims.Declare("nonzeros", "nonzero coefficients"),
		sims.Declare("sweeps", "coordinate-descent sweeps made"),
		sims.Declare("ols_gap", "distance of the fit from least squares (λ = 0)"),
	}
	saliencyMetrics = []sims.MetricDecl{
		sims.Declare("activation", "activation maximisation: the neuron's activation at the current input"),
		sims.Declare("top", "the largest activation of the neuron on the data"),
		sims.Declare("shapley_x1", "attribution to x1 by Shapley values"),
		sims.Declare("flip_x1", "attribution to x1 by flipping it"),
		sims.Declare("grad_x1", "attribution to x1 by the gradient"),
	}
)
