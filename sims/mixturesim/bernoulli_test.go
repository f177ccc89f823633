package mixturesim

import (
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestEMBernoulliDefault checks the pane's promise at its defaults (seed
// 1): the run converges (47 iterations, measured) with the log posterior
// never falling, the purity of the responsibilities rises from the start
// (0.59) to above 0.7 (0.78), the components' majority digits name at
// least 7 digits, and the means are drawn as K images of 16×16.
func TestEMBernoulliDefault(t *testing.T) {
	s := simtest.Build(t, EMBernoulli, nil, 1, nil)
	steps := simtest.RunToEnd(t, s, 500)
	f := s.Frame()
	bs := s.(*bmSim)
	if bs.falls > 0 || !bs.done || steps > 200 {
		t.Errorf("%d steps, converged %v, %d falls (worst %.2g)", steps, bs.done, bs.falls, bs.worst)
	}
	p := simtest.Metric(t, f, "purity")
	if p < 0.7 || p < bs.purity0+0.1 {
		t.Errorf("purity %.3f from %.3f", p, bs.purity0)
	}
	_, major := bs.em.Purity(bs.labels, 10, nil)
	seen := map[int]bool{}
	for _, m := range major {
		seen[m] = true
	}
	if len(seen) < 7 {
		t.Errorf("majority digits %v", major)
	}
	img, ok := f.Charts[f.Primary].(sims.ImageChart)
	if !ok || len(img.Images) != 10 || img.Images[0].W != 16 || len(img.Images[0].Pix) != 256 {
		t.Fatalf("primary chart %T", f.Charts[f.Primary])
	}
	for _, im := range img.Images {
		for _, v := range im.Pix {
			if !(v > 0 && v < 1) {
				t.Fatalf("a mean pixel at %g", v)
			}
		}
	}
}

// TestEMBernoulliMonotoneSettings checks EM's monotonicity in a few other
// settings: 8×8 images, a weak prior, the default hand, few components.
func TestEMBernoulliMonotoneSettings(t *testing.T) {
	for _, set := range []map[string]string{
		{"size": "8", "n": "300"},
		{"a": "1.05", "n": "300", "k": "6"},
		{"hand": "1", "n": "300", "k": "3"},
	} {
		s := simtest.Build(t, EMBernoulli, set, 2, nil)
		simtest.RunToEnd(t, s, 1000)
		if bs := s.(*bmSim); bs.falls > 0 || !bs.done {
			t.Errorf("%v: converged %v, %d falls (worst %.2g)", set, bs.done, bs.falls, bs.worst)
		}
	}
}
