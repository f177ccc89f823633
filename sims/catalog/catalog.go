// Package catalog lists every sim of the lab, in menu order.
package catalog

import (
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/linearsim"
	"github.com/thelab/lab/sims/mcmcsim"
	"github.com/thelab/lab/sims/mixturesim"
	"github.com/thelab/lab/sims/optimsim"
)

// All returns the full catalogue. It panics if two sims share a name or a
// default fails to validate: both are programming errors caught by the tests.
func All() *sims.Catalog {
	c, err := sims.NewCatalog(
		linearsim.Perceptron,
		linearsim.Linreg,
		linearsim.Logreg,
		linearsim.Softmax,
		linearsim.Losses,
		optimsim.GD,
		mixturesim.EMGMM,
		mcmcsim.MH,
	)
	if err != nil {
		panic(err)
	}
	return c
}
