package gensim

import (
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestFDivCatalogueKL: the catalogue's q = N(1, 1), p = N(0, 2²) (the
// defaults, with 5000 samples each): D_f = KL = 0.4431472, the true bound
// at the ascent's V rises to within 1% of it by step fdAscent and never
// above, for every divergence. The ascent has converged by step 75 on
// seed 1 (the bound's deficit then stays at 0.05–0.13% of D_f to step
// 300), so the later steps would check the same V again. Reverse KL
// runs with the widths swapped: with p wider than q the sample bound
// rewards a V that dives in p's tails, where q's samples are too few to
// see E_q[e^{−V}] explode, and the true bound at the sample optimum falls
// far below KL(p‖q).
func TestFDivCatalogueKL(t *testing.T) {
	for _, k := range []string{"kl", "reverse", "js", "hellinger"} {
		set := map[string]string{"divergence": k, "n": "5000", "m": "5000"}
		if k == "reverse" {
			set["sq"], set["sp"] = "2", "1"
		}
		s := simtest.Build(t, FDiv, set, 1, nil)
		d := simtest.Metric(t, s.Frame(), "D_f")
		if k == "kl" {
			algotest.Near(t, "KL", d, 0.4431472, 1e-7)
		}
		for range fdAscent {
			simtest.Run(t, s, 1)
			if b := simtest.Metric(t, s.Frame(), "bound"); b > d+1e-9 {
				t.Fatalf("%s: bound %g above D_f %g", k, b, d)
			}
		}
		if b := simtest.Metric(t, s.Frame(), "bound"); b < 0.99*d {
			t.Errorf("%s: bound %g after %d steps, D_f = %g", k, b, fdAscent, d)
		}
	}
}

// fdAscent is the steps of TestFDivCatalogueKL's ascent.
const fdAscent = 100
