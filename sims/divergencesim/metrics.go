package divergencesim

import "github.com/thelab/lab/sims"

// The metrics of the divergence sims (sims.MetricDecl).
var (
	divergenceMetrics = []sims.MetricDecl{
		sims.Declare("symbols", "coding: symbols drawn from p and coded so far"),
		sims.DeclareAs("H(p)", "entropy_p", "coding: entropy of p, nats: the least mean code length"),
		sims.DeclareAs("mean len p", "mean_len_p", "coding: mean length, in nats, of the symbols under p's own code"),
		sims.DeclareAs("H(p,q)", "cross_entropy", "coding: cross-entropy H(p, q), nats: the mean length under q's code"),
		sims.DeclareAs("mean len q", "mean_len_q", "coding: mean length, in nats, of the symbols under q's code"),
		sims.DeclareAs("KL(p‖q)", "kl_pq", "KL(p‖q), nats (coding: H(p, q) − H(p), the extra length of q's code)"),
		sims.DeclareAs("KL(q‖p)", "kl_qp", "KL(q‖p), nats: the other direction, not equal in general"),
		sims.Declare("n", "sequences: the index n of q_n (Ex 1.9) and 1/ε (Ex 1.10)"),
		sims.Declare("L1", "sequences: ‖p − q_n‖₁"),
		sims.Declare("KL", "sequences: KL(p‖q_n), nats"),
		sims.DeclareAs("ε", "eps", "sequences: ε = 1/n of Ex 1.10"),
		sims.DeclareAs("χ²", "chi2", "sequences: χ²(p_ε‖q_ε), which tends to 1"),
		sims.DeclareAs("KL_ε", "kl_eps", "sequences: KL(p_ε‖q_ε), which tends to 0"),
		sims.Declare("v", "gaussians: the variance v of q = N(0, v²) being swept"),
		sims.DeclareAs("quad err", "quad_err", "gaussians: largest error of the numerical KL against the closed form"),
		sims.Declare("N", "ml: data points drawn from p"),
		sims.DeclareAs("min KL", "min_kl", "ml: least KL(p‖q_θ) over the model, at θ*"),
		sims.DeclareAs("emp. KL(θ*)", "emp_kl_best", "ml: −(1/N) Σ log q_θ*(xᵢ) − H(p), the empirical KL at θ*"),
		sims.DeclareAs("emp. KL(θ̂)", "emp_kl_mle", "ml: the empirical KL at the maximum-likelihood θ̂ (at most the one at θ*)"),
		sims.DeclareAs("KL(p‖q_θ̂)", "kl_mle", "ml: the exact KL(p‖q_θ̂) at the maximum-likelihood θ̂ (at least min KL)"),
	}
	klFitMetrics = []sims.MetricDecl{
		sims.DeclareAs("KL(p‖q_fwd)", "kl_forward", "KL(p‖q) of the Gaussian fitted by the forward KL (mass-covering), nats"),
		sims.DeclareAs("KL(q_rev‖p)", "kl_reverse", "KL(q‖p) of the Gaussian fitted by the reverse KL (mode-seeking), nats"),
		sims.DeclareAs("|∇| fwd", "grad_forward", "norm of the forward fit's gradient"),
		sims.DeclareAs("|∇| rev", "grad_reverse", "norm of the reverse fit's gradient"),
	}
	klFlowMetrics = []sims.MetricDecl{
		sims.Declare("KL", "KL(q‖p) of the current Gaussian q, nats"),
		sims.DeclareAs("|∇KL|", "grad_kl", "norm of the KL's gradient in (μ, σ)"),
		sims.DeclareAs("μ", "mu", "q's mean"),
		sims.DeclareAs("σ", "sigma", "q's standard deviation"),
	}
)
