// Package catalog lists every sim of the lab, in menu order: in families
// by the notes' topics.
package catalog

import (
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/adsim"
	"github.com/thelab/lab/sims/classifysim"
	"github.com/thelab/lab/sims/diffusionsim"
	"github.com/thelab/lab/sims/divergencesim"
	"github.com/thelab/lab/sims/dpsim"
	"github.com/thelab/lab/sims/estimatesim"
	"github.com/thelab/lab/sims/gensim"
	"github.com/thelab/lab/sims/gpsim"
	"github.com/thelab/lab/sims/kernelsim"
	"github.com/thelab/lab/sims/laplacesim"
	"github.com/thelab/lab/sims/ldasim"
	"github.com/thelab/lab/sims/linearsim"
	"github.com/thelab/lab/sims/mcmcsim"
	"github.com/thelab/lab/sims/mixturesim"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/optimsim"
	"github.com/thelab/lab/sims/otsim"
	"github.com/thelab/lab/sims/privacysim"
	"github.com/thelab/lab/sims/pushforwardsim"
	"github.com/thelab/lab/sims/rffsim"
	"github.com/thelab/lab/sims/seqsim"
	"github.com/thelab/lab/sims/shapleysim"
	"github.com/thelab/lab/sims/trustsim"
	"github.com/thelab/lab/sims/visim"
)

// All returns the full catalogue. It panics if two sims share a name or a
// default fails to validate: both are programming errors caught by the tests.
func All() *sims.Catalog {
	c, err := sims.NewFamilies(
		// Seed 001 §2–4: linear models.
		sims.Family{Name: "linear models",
			About: "perceptron, least squares, ridge, logistic and softmax regression, classification losses",
			Specs: []*sims.Spec{
				linearsim.Perceptron,
				linearsim.Linreg,
				linearsim.Interp,
				linearsim.Logreg,
				linearsim.Softmax,
				classifysim.Classifiers,
				linearsim.Logits,
				linearsim.Losses,
			}},
		// Seed 001 §8 and seed 002 §6.1: gradient methods and optimisers.
		sims.Family{Name: "optimisation",
			About: "gradient descent, momentum, Nesterov, Adam, Newton, SGD, convergence rates",
			Specs: []*sims.Spec{
				optimsim.GD,
				optimsim.Majorise,
				optimsim.Duality,
				optimsim.Rates,
				nnsim.Optimizers,
			}},
		// Seed 001 §9–12, seed 000 chapter 2, seed 002 ch. 7: neural
		// networks and sequence models.
		sims.Family{Name: "networks and sequences",
			About: "neural networks, MLP, CNN, dropout, universal approximation, language models, tokenisation, attention, transformers, RNN",
			Specs: []*sims.Spec{
				nnsim.Playground,
				nnsim.Digits,
				nnsim.Conv,
				nnsim.Dropout,
				nnsim.Universal,
				seqsim.NGram,
				seqsim.BPE,
				seqsim.Attention,
				seqsim.RNN,
				seqsim.TinyGPT,
				seqsim.Seq2Seq,
				seqsim.TransformerCost,
				seqsim.Reward,
			}},
		// Seed 000 chapter 3, seed 001 §13–15, seed 002 chapter 1 and §6.2–6.3:
		// generative models, diffusion, push-forward and information.
		sims.Family{Name: "generative models",
			About: "GAN, VAE, autoencoders, normalising flows, diffusion, score matching, f-divergences, push-forward, maximum likelihood, KL divergence",
			Specs: []*sims.Spec{
				gensim.FDiv,
				gensim.Flow,
				gensim.Autoencoder,
				gensim.GAN,
				gensim.VAE,
				diffusionsim.Forward,
				diffusionsim.Diffusion,
				diffusionsim.ScoreMatch,
				pushforwardsim.Pushforward,
				pushforwardsim.Gaussian,
				estimatesim.MLE,
				classifysim.Classifier,
				divergencesim.Divergence,
				divergencesim.KLFlow,
				divergencesim.KLFit,
			}},
		// Seed 002 chapters 2–4: mixtures and EM, sampling and variational
		// inference, Dirichlet processes.
		sims.Family{Name: "inference and sampling",
			About: "k-means, EM, mixtures, MCMC, Metropolis–Hastings, Gibbs, HMC, Langevin, Laplace approximation, variational inference, topic models, Dirichlet process",
			Specs: []*sims.Spec{
				mixturesim.KMeans,
				mixturesim.EMGMM,
				mixturesim.Clustering,
				mixturesim.EMBernoulli,
				mixturesim.Ancestral,
				mcmcsim.MH,
				mcmcsim.AdaptiveMH,
				mcmcsim.Gibbs,
				mcmcsim.HMC,
				mcmcsim.NUTS,
				mcmcsim.SVGD,
				mcmcsim.MALA,
				mcmcsim.Langevin,
				mcmcsim.MCErrorSim,
				laplacesim.Laplace,
				visim.VI,
				visim.BBVI,
				ldasim.LDA,
				dpsim.DP,
			}},
		// Seed 002 chapter 5: optimal transport.
		sims.Family{Name: "optimal transport",
			About: "Wasserstein distances, Monge and Kantorovich, assignment, Sinkhorn, barycentres, geodesics",
			Specs: []*sims.Spec{
				otsim.Assignment,
				otsim.LP,
				otsim.OneD,
				otsim.Gauss,
				otsim.Sinkhorn,
				otsim.Distances,
				otsim.Geodesic,
				otsim.Barycenter,
				otsim.Sliced,
				otsim.Unbalanced,
				otsim.Partial,
				otsim.Gromov,
			}},
		// Seeds 001 §5–7, 003, 004 and 002 §4.3–4.5: kernels, SVMs, random
		// features, Gaussian processes.
		sims.Family{Name: "kernels and GPs",
			About: "SVM, kernel methods, Gram matrices, random features, GPs, Bayesian linear regression",
			Specs: []*sims.Spec{
				kernelsim.SVM,
				kernelsim.SVMPrimal,
				kernelsim.Perceptron,
				kernelsim.Ridge,
				kernelsim.KPCA,
				kernelsim.Gram,
				kernelsim.Geometry,
				rffsim.RFF,
				rffsim.Bochner,
				rffsim.Fourier,
				rffsim.LinearAttention,
				rffsim.Models,
				rffsim.GramSchmidt,
				gpsim.GP,
				gpsim.GPFit,
				gpsim.BLR,
				gpsim.GPPrior,
			}},
		// Seed 000 chapter 1: automatic differentiation.
		sims.Family{Name: "automatic differentiation",
			About: "AD, computation graphs, forward and reverse mode, Jacobians, Hessians, implicit differentiation, gradient checks",
			Specs: []*sims.Spec{
				adsim.Graph,
				adsim.Jacobian,
				adsim.Hessian,
				adsim.Implicit,
				adsim.Coloring,
				adsim.GradCheck,
			}},
		// Seed 001 §17–20: trustworthy machine learning.
		sims.Family{Name: "trustworthy ML",
			About: "robustness, data poisoning, adversarial examples and training, saliency, differential privacy, Shapley values",
			Specs: []*sims.Spec{
				trustsim.RobustReg,
				trustsim.Poisoning,
				trustsim.Attack,
				trustsim.AdvTrain,
				trustsim.Saliency,
				privacysim.RandomizedResponse,
				privacysim.Mechanisms,
				privacysim.DPSGD,
				shapleysim.Shapley,
			}},
	)
	if err != nil {
		panic(err)
	}
	return c
}
