// Package catalog lists every sim of the lab, in menu order.
package catalog

import (
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/gpsim"
	"github.com/thelab/lab/sims/kernelsim"
	"github.com/thelab/lab/sims/mcmcsim"
	"github.com/thelab/lab/sims/mixturesim"
	"github.com/thelab/lab/sims/optimsim"
	"github.com/thelab/lab/sims/rffsim"
)

// All returns the full catalogue. It panics if two sims share a name or a
// default fails to validate: both are programming errors caught by the tests.
func All() *sims.Catalog {
	c, err := sims.NewCatalog(
		optimsim.GD,
		mixturesim.EMGMM,
		mcmcsim.MH,
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
	)
	if err != nil {
		panic(err)
	}
	return c
}
