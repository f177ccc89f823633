package privacysim

import "github.com/thelab/lab/sims"

// The metrics of the privacy sims (sims.MetricDecl).
var (
	dpsgdMetrics = []sims.MetricDecl{
		sims.Declare("epoch", "passes of the σ run through the training set"),
		sims.DeclareAs("ε", "epsilon", "privacy spent by the σ run so far, ε at δ by the chosen accountant (the PRV accountant's upper bound by default; undefined when σ = 0: not private)"),
		sims.DeclareAs("α*", "rdp_order", "the Rényi order α at which the RDP accountant's ε is least (Balle et al.'s conversion; Mironov's with accountant=rdp-mironov)"),
		sims.Declare("clipped", "fraction of the σ run's last batch whose gradients were clipped"),
		sims.DeclareAs("acc σ", "acc_sigma", "test accuracy of the σ run (noise multiplier σ)"),
		sims.DeclareAs("acc σ=0", "acc_no_noise", "test accuracy of the σ = 0 run: clipping without noise"),
		sims.DeclareAs("ε PRV", "eps_prv", "the σ run's ε at δ by the PRV accountant, the upper end of its bracket (in a running pane as of a step at most a 64th of the steps back)"),
		sims.DeclareAs("ε Balle", "eps_balle", "the σ run's ε at δ by RDP with Balle et al.'s (2020) conversion, as Opacus reports it"),
		sims.DeclareAs("ε Mironov", "eps_mironov", "the σ run's ε at δ by RDP with Mironov's (2017) conversion, as TF Privacy's moments accountant reports it"),
	}
	rrMetrics = []sims.MetricDecl{
		sims.Declare("n", "respondents so far"),
		sims.DeclareAs("p̂", "p_hat", "the unbiased estimate of the true proportion from the randomized answers"),
		sims.DeclareAs("±2σ", "two_se", "twice p̂'s standard error"),
		sims.Declare("z", "(p̂ − p)/σ, the estimate's error in standard errors"),
		sims.DeclareAs("ε", "epsilon", "the mechanism's ε = log of the answer probabilities' ratio"),
		sims.Declare("ratio", "the empirical ratio of the two 'yes' rates, against e^ε (undefined while a rate is 0)"),
	}
	mRenyi = sims.DeclareAs("D_α", "renyi", "the Rényi divergence of order alpha between the outputs on neighbouring data sets, exact")

	mechanismsMetrics = []sims.MetricDecl{
		sims.Declare("releases", "releases k composed so far"),
		sims.DeclareAs("ε one", "eps_one", "ε of one release"),
		sims.DeclareAs("ε k·ε", "eps_basic", "ε of k releases by basic composition, k·ε"),
		sims.DeclareAs("ε RDP", "eps_rdp", "ε of k releases by Rényi-DP composition (tighter)"),
		mRenyi,
		sims.Declare("MC", "the same divergence by Monte Carlo (undefined before the first draw)"),
	}
)
