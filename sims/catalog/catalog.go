// Package catalog lists every sim of the lab, in menu order: by the notes'
// topics.
package catalog

import (
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/adsim"
	"github.com/thelab/lab/sims/classifysim"
	"github.com/thelab/lab/sims/divergencesim"
	"github.com/thelab/lab/sims/dpsim"
	"github.com/thelab/lab/sims/estimatesim"
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
	"github.com/thelab/lab/sims/pushforwardsim"
	"github.com/thelab/lab/sims/rffsim"
	"github.com/thelab/lab/sims/trustsim"
	"github.com/thelab/lab/sims/visim"
)

// All returns the full catalogue. It panics if two sims share a name or a
// default fails to validate: both are programming errors caught by the tests.
func All() *sims.Catalog {
	c, err := sims.NewCatalog(
		// Seed 001 §2–4, 6, 8: linear models and gradient methods.
		linearsim.Perceptron,
		linearsim.Linreg,
		linearsim.Interp,
		linearsim.Logreg,
		linearsim.Softmax,
		linearsim.Logits,
		linearsim.Losses,
		optimsim.GD,
		optimsim.Majorise,
		optimsim.Rates,
		// Seed 001 §9–10, seed 000 chapter 2, seed 002 §6.1: neural networks.
		nnsim.Playground,
		nnsim.Digits,
		nnsim.Conv,
		// Seed 002 chapter 1: push-forward, likelihood, information.
		pushforwardsim.Pushforward,
		estimatesim.MLE,
		classifysim.Classifier,
		divergencesim.Divergence,
		divergencesim.KLFlow,
		divergencesim.KLFit,
		// Chapter 2: mixtures and EM.
		mixturesim.KMeans,
		mixturesim.EMGMM,
		mixturesim.Ancestral,
		// Chapter 3: sampling and variational inference.
		mcmcsim.MH,
		mcmcsim.Gibbs,
		mcmcsim.HMC,
		mcmcsim.MALA,
		mcmcsim.Langevin,
		mcmcsim.MCErrorSim,
		laplacesim.Laplace,
		visim.VI,
		visim.BBVI,
		ldasim.LDA,
		// Chapter 4: Dirichlet processes.
		dpsim.DP,
		// Chapter 5: optimal transport.
		otsim.Assignment,
		otsim.LP,
		otsim.OneD,
		otsim.Gauss,
		otsim.Sinkhorn,
		otsim.Distances,
		otsim.Geodesic,
		otsim.Barycenter,
		// Seeds 001 §5–7, 003, 004 and 002 §4.3–4.5: kernels, SVMs, random
		// features, Gaussian processes.
		kernelsim.SVM,
		kernelsim.SVMPrimal,
		kernelsim.Perceptron,
		kernelsim.Ridge,
		kernelsim.KPCA,
		kernelsim.Gram,
		rffsim.RFF,
		rffsim.Bochner,
		gpsim.GP,
		gpsim.GPFit,
		gpsim.BLR,
		// Seed 000 chapter 1: automatic differentiation.
		adsim.Graph,
		adsim.Jacobian,
		adsim.Hessian,
		adsim.Implicit,
		adsim.Coloring,
		adsim.GradCheck,
		// Seed 001 §17–20: trustworthy machine learning.
		trustsim.RobustReg,
		trustsim.Poisoning,
		trustsim.Attack,
		trustsim.AdvTrain,
		trustsim.Saliency,
	)
	if err != nil {
		panic(err)
	}
	return c
}
