package mcmcsim

import "github.com/thelab/lab/sims"

// The metrics of the samplers (sims.MetricDecl): every sampler's
// (chainSim.metrics) and each one's own.
var (
	chainMetrics = []sims.MetricDecl{
		sims.Declare("acceptance", "fraction of the proposals accepted, over all chains"),
		sims.Declare("ess", "the smallest bulk effective sample size over the coordinates (shown as — while R̂ ≥ 1.01)"),
		sims.Declare("mean", "the running mean of the samples (1-D target)"),
		sims.Declare("mean_x", "the running mean of the samples' x"),
		sims.Declare("mean_y", "the running mean of the samples' y"),
		sims.Declare("rhat", "the largest split R̂ over the coordinates (→ 1 as the chains mix)"),
	}
	mhMetrics    = chainMetrics
	malaMetrics  = chainMetrics
	gibbsMetrics = append(append([]sims.MetricDecl(nil), chainMetrics...),
		sims.Declare("max_log_alpha", "the largest log acceptance ratio a Gibbs update would have under MH: ≥ 0, always accepted"))
	hmcMetrics = append(append([]sims.MetricDecl(nil), chainMetrics...),
		sims.Declare("mean_abs_dH", "mean |ΔH|, the energy error of the leapfrog trajectories"),
		sims.Declare("divergent", "trajectories whose energy error blew up (divergent transitions)"))
	langevinMetrics = append(append([]sims.MetricDecl(nil), chainMetrics...),
		sims.Declare("var_x_ula", "variance of x under the unadjusted Langevin chains (biased by the step)"),
		sims.Declare("var_x_mala", "variance of x under MALA, which the Metropolis correction makes exact"),
		sims.Declare("var_x_exact", "the target's variance of x"))
	nutsMetrics = append(append([]sims.MetricDecl(nil), chainMetrics...),
		sims.DeclareAs("ε", "eps", "chain 1's step size: the dual-averaging iterate during the warm-up, then the fixed ε̄"),
		sims.Declare("depth", "chain 1's last tree depth: the number of doublings of its trajectory"),
		sims.Declare("leapfrogs", "chain 1's last tree's leapfrog steps (gradient evaluations), at most 2^depth − 1"),
		sims.Declare("accept_stat", "mean acceptance statistic (mean of min(1, e^−ΔH) over each tree's points) of every chain after the warm-up, of the warm-up while it lasts: → δ"),
		sims.Declare("divergent", "iterations after the warm-up, every chain, whose tree met an energy error > 1000 (divergences)"))
	mcErrorMetrics = []sims.MetricDecl{
		sims.Declare("S", "samples per estimate"),
		sims.Declare("rmse_iid", "root mean squared error of the mean of S independent samples"),
		sims.Declare("rmse_mh", "root mean squared error of the mean of S Metropolis–Hastings samples"),
		sims.Declare("slope_iid", "fitted slope of log RMSE against log S for independent samples (theory: −½; undefined until there are enough checkpoints)"),
		sims.Declare("slope_mh", "the same slope for MH (−½ too, with a larger constant)"),
	}
	adaptiveMetrics = append(append([]sims.MetricDecl(nil), chainMetrics...),
		sims.Declare("prop_err", "chain 1's proposal covariance C against the optimal 2.38²/d Σ: ‖C/s_d − Σ‖_F/‖Σ‖_F (→ 0 as the history grows)"),
		sims.Declare("prop_corr", "the correlation of chain 1's proposal (2-D target): → the target's"))
	svgdMetrics = []sims.MetricDecl{
		sims.Declare("mean", "the particles' mean (1-D target)"),
		sims.Declare("var", "the particles' variance, over n (1-D target)"),
		sims.Declare("mean_x", "the particles' mean of x"),
		sims.Declare("mean_y", "the particles' mean of y"),
		sims.Declare("var_x", "the particles' variance of x, over n"),
		sims.Declare("var_y", "the particles' variance of y, over n"),
		sims.DeclareAs("‖φ‖", "phi_norm", "root mean square over the particles of ‖φ(x_i)‖, the size of the next move (→ 0 at a fixed point)"),
		sims.DeclareAs("KSD²", "ksd2", "squared kernelized Stein discrepancy of the particles (V-statistic) under the current kernel: ‖φ‖² in its RKHS"),
		sims.Declare("h", "the RBF kernel's bandwidth: med²/log n, or the fixed h"),
	}
)
