// Package catalog lists every sim of the lab, in menu order.
package catalog

import (
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/classifysim"
	"github.com/thelab/lab/sims/divergencesim"
	"github.com/thelab/lab/sims/estimatesim"
	"github.com/thelab/lab/sims/mcmcsim"
	"github.com/thelab/lab/sims/mixturesim"
	"github.com/thelab/lab/sims/optimsim"
	"github.com/thelab/lab/sims/pushforwardsim"
	"github.com/thelab/lab/sims/visim"
)

// All returns the full catalogue. It panics if two sims share a name or a
// default fails to validate: both are programming errors caught by the tests.
func All() *sims.Catalog {
	c, err := sims.NewCatalog(
		optimsim.GD,
		// Seed 002 chapter 1: push-forward, likelihood, information.
		pushforwardsim.Pushforward,
		estimatesim.MLE,
		classifysim.Classifier,
		divergencesim.Divergence,
		divergencesim.KLFlow,
		divergencesim.KLFit,
		// Chapters 2–3: mixtures, sampling, variational inference.
		mixturesim.EMGMM,
		mcmcsim.MH,
		visim.VI,
		visim.BBVI,
	)
	if err != nil {
		panic(err)
	}
	return c
}
