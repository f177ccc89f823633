package gensim

import "github.com/thelab/lab/sims"

// The metrics of the generative sims (sims.MetricDecl).
var (
	fdivMetrics = []sims.MetricDecl{
		sims.Declare("D_f", "the f-divergence D_f(P‖Q), exact"),
		sims.Declare("estimate", "the variational estimate E_P[T] − E_Q[f*(T)] of the critic T so far"),
		sims.Declare("bound", "the variational lower bound at the critic's current parameters, on fresh samples"),
		sims.Declare("gap", "D_f minus the bound: what the critic has still to learn"),
		sims.Declare("grad", "norm of the critic's gradient"),
	}
	ganMetrics = []sims.MetricDecl{
		sims.Declare("L_D", "the discriminator's loss on the last batch"),
		sims.Declare("L_G", "the generator's loss on the last batch"),
		sims.Declare("modes", "modes of the target with a share of the generated samples (mode collapse leaves some at none)"),
	}
	vaeMetrics = []sims.MetricDecl{
		sims.Declare("neg_elbo", "−ELBO per example on the last batch: reconstruction plus KL, nats"),
		sims.Declare("recon", "reconstruction term −E_q[log p(x|z)] per example, nats"),
		sims.Declare("KL", "KL(q(z|x) ‖ p(z)) per example, nats (toy view: of q from the posterior)"),
		sims.Declare("log_p", "toy view: log p(x), the evidence the ELBO bounds"),
		sims.Declare("ELBO", "toy view: the evidence lower bound at the current q"),
	}
	flowMetrics = []sims.MetricDecl{
		sims.Declare("a", "affine: the fitted scale of x = a z + b"),
		sims.Declare("b", "affine: the fitted shift of x = a z + b"),
		sims.Declare("sd", "affine: the data's standard deviation, a's target"),
		sims.Declare("mean", "affine: the data's mean, b's target; icdf: the mean of the draws (no value for a Cauchy law)"),
		sims.Declare("NLL", "negative log-likelihood of the data per point under the flow, nats"),
		sims.Declare("grad", "affine: norm of the NLL's gradient"),
		sims.Declare("layers", "realnvp: coupling layers of the flow"),
		sims.Declare("z1", "triangular: first coordinate of the inverse image z being solved for"),
		sims.Declare("z2", "triangular: second coordinate of z"),
		sims.Declare("residual", "triangular: ‖T(z) − x‖ at the current z"),
		sims.Declare("halvings1", "triangular: step halvings of the first coordinate's Newton solve"),
		sims.Declare("halvings2", "triangular: step halvings of the second coordinate's Newton solve"),
		sims.Declare("logdet", "triangular: log det ∇T(z), the sum of the diagonal's logs"),
		sims.Declare("n", "icdf: draws X = Q(U) made"),
		sims.Declare("KS", "icdf: Kolmogorov–Smirnov distance D_n between the draws and F"),
		sims.Declare("sqrt_n_KS", "icdf: √n·D_n, which stays O(1) when the draws follow F"),
	}
	autoencoderMetrics = []sims.MetricDecl{
		sims.Declare("J", "pca: the linear autoencoder's mean squared reconstruction error"),
		sims.Declare("floor", "the least reconstruction error: PCA's (pca, nonlinear)"),
		sims.Declare("gap", "pca: J minus the floor"),
		sims.Declare("angle", "pca: largest principal angle between the learned subspace and PCA's, radians"),
		sims.Declare("grad", "pca: norm of J's gradient"),
		sims.Declare("network", "nonlinear: the network autoencoder's reconstruction error"),
		sims.Declare("linear", "nonlinear: the linear autoencoder's reconstruction error"),
		sims.Declare("loss", "denoise: the denoiser's mean squared error against the clean points"),
		sims.Declare("bayes", "denoise: the error of Tweedie's E[X|Y], the best any denoiser does"),
		sims.Declare("to_tweedie", "denoise: mean distance between the denoiser's output and Tweedie's"),
	}
)
