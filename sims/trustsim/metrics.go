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
		sims.Declare("eps", "the attack's budget ε: the radius of the ball the perturbation stays in"),
		sims.Declare("dist", "the perturbation's size ‖x − x₀‖ in the attack's norm"),
		sims.DeclareAs("best ‖δ‖", "best_dist", "the least ‖x − x₀‖ of a fooling point found so far, in the attack's norm (undefined until one fools)"),
		sims.DeclareAs("FGSM ε", "fgsm_eps", "the least ε at which one FGSM step from x₀ fools, by line search along its direction (undefined if none up to the largest ε)"),
		sims.Declare("objective", "the loss the attack ascends (targeted: descends) at the current point; cw: its objective ‖δ‖₂² + c·max(g, 0)"),
		sims.Declare("p_true", "the model's probability of the example's true class at the current point"),
		sims.Declare("class", "the class the model now predicts"),
		sims.Declare("flipped_at", "the first step whose point is misclassified (undefined until one is)"),
		sims.Declare("c", "cw: the constant c of the current round of its binary search (undefined for the other methods)"),
		sims.Declare("round", "cw: the round of the binary search on c, from 1 (undefined for the other methods)"),
	}
	poisoningMetrics = []sims.MetricDecl{
		sims.Declare("eps_d", "the poisoning fraction ε_d: poison copies per clean example"),
		sims.Declare("threshold", "Example 18.2's bound ⟨w, g(μ; w)⟩/W(1/e): below it no poison reaches the target"),
		sims.Declare("distance", "distance from the defender's retrained parameter to the attacker's target"),
		sims.Declare("poison", "poison copies added so far"),
		sims.Declare("reachable", "1 when the attacker's point at this ε_d makes the target the retrained optimum, else 0"),
	}
	robustRegMetrics = []sims.MetricDecl{
		sims.Declare("lambda", "the penalty λ of the √-Lasso, the radius of the column perturbations"),
		sims.Declare("objective", "the √-Lasso objective F at the iterate"),
		sims.Declare("worst_case", "the loss under the worst column perturbation of radius λ, which equals F"),
		sims.Declare("random_max", "the largest loss found under random feasible perturbations (≤ worst_case)"),
		sims.Declare("nonzeros", "nonzero coefficients"),
		sims.Declare("sweeps", "coordinate-descent sweeps made"),
		sims.Declare("ols_gap", "at λ = 0: max_j |w_j − w_OLS,j|, the distance from least squares"),
	}
	saliencyMetrics = []sims.MetricDecl{
		sims.Declare("activation", "the hidden unit's activation at the input grown by gradient ascent, as shown (step 0: the grey start)"),
		sims.Declare("top", "the unit's largest activation over the test digits"),
		sims.Declare("shapley_x1", "OR example at x = (1, 1): x₁'s Shapley value (½: the credit split evenly)"),
		sims.Declare("flip_x1", "OR example: the change when x₁ alone is switched off (0: flips see nothing)"),
		sims.Declare("grad_x1", "OR example: the smooth OR's gradient in x₁ (≈ 0 at sharp k: gradients see nothing)"),
	}
)
