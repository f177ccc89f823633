package diffusionsim

import "github.com/thelab/lab/sims"

// The metrics of the diffusion sims (sims.MetricDecl).
var (
	mSigma   = sims.Declare("sigma", "the noise level σ of the current step")
	mMassErr = sims.Declare("mass_err", "largest error of a mode's share of the samples against the data's")
	mSpread  = "mean squared distance of the samples to their nearest mode"

	forwardMetrics = []sims.MetricDecl{
		sims.Declare("t", "the time of the forward (noising) process"),
		sims.Declare("mean", "the samples' mean at time t"),
		sims.Declare("m_t", "the exact mean at time t"),
		sims.Declare("var", "the samples' variance at time t"),
		sims.Declare("v_t", "the exact variance at time t"),
		mSigma,
	}
	diffusionMetrics = []sims.MetricDecl{
		mSigma,
		sims.Declare("var", "the samples' variance at this σ"),
		sims.Declare("var_exact", "the exact variance of the noised data at this σ"),
		sims.Declare("spread", mSpread),
		sims.Declare("spread_data", "the same spread for the data: what the samples should reach"),
		mMassErr,
	}
	scoreMatchMetrics = []sims.MetricDecl{
		sims.Declare("loss", "denoising score-matching loss E‖ε_θ(X + σε, σ) − ε‖² on the last minibatch, before its update (undefined before the first step)"),
		sims.Declare("held_out", "the same loss on held-out points: every 25 steps while running, at the step shown when paused (the notes say as of which step)"),
		sims.Declare("floor", "the least loss, that of the exact ε* = −σ∇log p_σ"),
		sims.Declare("gap", "held-out loss minus the floor: E‖ε_θ − ε*‖², the Fisher divergence"),
		sims.Declare("spread_learned", mSpread+", sampled with the learned ε_θ"),
		sims.Declare("spread_exact", mSpread+", sampled with the exact ε*"),
		mMassErr,
	}
)
