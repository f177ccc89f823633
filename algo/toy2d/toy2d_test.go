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

// TestPosteriorMeanTweedie: the mixture's posterior mean equals
// y + σ²∇log f_Y(y) with the score by central differences, and for one
// component the Gaussian E[X|Y] = (s²y + σ²m)/(s² + σ²).
func TestPosteriorMeanTweedie(t *testing.T) {
	means, s, ok := Ring.Mixture()
	if !ok {
		t.Fatal("ring is a mixture")
	}
	const sigma = 0.7
	v := s*s + sigma*sigma
	logf := func(y [2]float64) float64 {
		sum := 0.0
		for j := 0; j < len(means); j += 2 {
			dx, dy := y[0]-means[j], y[1]-means[j+1]
			sum += math.Exp(-(dx*dx + dy*dy) / (2 * v))
		}
		return math.Log(sum)
	}
	for _, y := range [][2]float64{{0, 0.3}, {1.5, 1}, {-2.5, 0.2}, {0.1, -3}} {
		const h = 1e-5
		g := [2]float64{
			(logf([2]float64{y[0] + h, y[1]}) - logf([2]float64{y[0] - h, y[1]})) / (2 * h),
			(logf([2]float64{y[0], y[1] + h}) - logf([2]float64{y[0], y[1] - h})) / (2 * h),
		}
		m := PosteriorMean(means, s, sigma, y)
		for i := range 2 {
			algotest.Near(t, "Tweedie", m[i], y[i]+sigma*sigma*g[i], 1e-8)
		}
	}
	m := PosteriorMean([]float64{1, -2}, 0.5, 0.9, [2]float64{0.3, 0.4})
	algotest.Near(t, "one Gaussian", m[0], (0.25*0.3+0.81*1)/(0.25+0.81), 1e-15)
}
