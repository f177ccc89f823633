package gensim

import "github.com/thelab/lab/sims"

// The metrics of the generative sims (sims.MetricDecl).
var (
	fdivMetrics = []sims.MetricDecl{
		sims.Declare("D_f", "the f-divergence D_f(q‖p), exact"),
		sims.Declare("estimate", "the variational estimate Ĵ = mean A(V(x_i)) − mean B(V(y_j)) at the critic's current V, on the run's fixed samples"),
		sims.Declare("bound", "the variational lower bound E_q[A(V)] − E_p[B(V)] at the critic's current V, exact (by quadrature, no samples)"),
		sims.Declare("gap", "D_f minus the bound: what the critic has still to learn"),
		sims.Declare("grad", "norm of Ĵ's gradient in V's coefficients, at the current V"),
	}
	ganMetrics = []sims.MetricDecl{
		sims.Declare("L_D", "the discriminator's loss on its last batch, taken before its update: alternating, D's loss before its "+
			"last inner step; simultaneous, at the state before the update (undefined before the first step)"),
		sims.Declare("L_G", "the generator's loss on its last batch, taken before its update: alternating, G's loss after D's steps, "+
			"against a newer D than L_D's; simultaneous, at the same state as L_D (undefined before the first G-step)"),
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
		sims.Declare("NLL", "negative log-likelihood per point, nats: affine, of the data under the flow as it stands; "+
			"realnvp, of the last minibatch, before its update (undefined before the first step)"),
		sims.Declare("grad", "affine: norm of the NLL's gradient in (α, b) at the current flow"),
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
		sims.Declare("J", "pca: the linear autoencoder's mean squared reconstruction error at its current (D, E)"),
		sims.Declare("floor", "the least reconstruction error: PCA's (pca, nonlinear)"),
		sims.Declare("gap", "pca: J minus the floor"),
		sims.Declare("angle", "pca: largest principal angle between the learned subspace and PCA's, radians"),
		sims.Declare("grad", "pca: norm of J's gradient at the current (D, E)"),
		sims.Declare("network", "nonlinear: the network autoencoder's reconstruction error on the last minibatch, before its update "+
			"(undefined before the first step)"),
		sims.Declare("linear", "nonlinear: the linear autoencoder's reconstruction error on all the data, at its current (D, E)"),
		sims.Declare("loss", "denoise: the denoiser's mean squared error against the clean points on the last minibatch, before its update "+
			"(undefined before the first step)"),
		sims.Declare("bayes", "denoise: the error of Tweedie's E[X|Y], the best any denoiser does"),
		sims.Declare("to_tweedie", "denoise: mean squared distance between the denoiser's output and Tweedie's E[X|Y] on fixed noisy points; "+
			"measured every 10 steps while running (the notes say as of which step), at the current step when paused"),
	}
)
