package toy2d

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
)

// TestCoverageOfTheTargetItself: a sample of the target covers every mode,
// each with share 1/Modes within 4 standard errors (all points fall within
// the radius: 3 s.d. for the Gaussians, the box's circumcircle).
func TestCoverageOfTheTargetItself(t *testing.T) {
	const n = 20000
	for _, tg := range []Target{TwoModes, Ring, Boxes} {
		xy, _, err := Sample(tg, rand.New(rand.NewPCG(1, 2)), n)
		if err != nil {
			t.Fatal(err)
		}
		m := tg.Modes()
		c, share := Coverage(tg, xy, 0.5)
		if c != m {
			t.Errorf("%s: %d of %d modes covered", tg, c, m)
		}
		p := 1 / float64(m)
		for _, s := range share {
			// The mass within 3 s.d. of a 2-D Gaussian is 1 − e^{−9/2}.
			want := p
			if tg == Ring {
				want *= 1 - math.Exp(-4.5)
			}
			algotest.Near(t, string(tg)+" share", s, want, 4*math.Sqrt(p*(1-p)/n))
		}
	}
	// A generator collapsed on one mode of the ring covers 1 of 8.
	one := make([]float64, 200)
	for i := 0; i < len(one); i += 2 {
		one[i] = RingRadius
	}
	if c, _ := Coverage(Ring, one, 0.5); c != 1 {
		t.Errorf("collapsed: %d modes covered, want 1", c)
	}
}

func TestSampleValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	_, _, err := Sample(Ring, rng, 0)
	algotest.WantParam(t, err, "n")
	_, _, err = Sample("spiral", rng, 10)
	algotest.WantParam(t, err, "target")
}
