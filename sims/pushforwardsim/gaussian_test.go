package pushforwardsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// TestGaussianIdentities: at its Famous step each identity that holds has
// its sample moments within 4 standard errors of the claimed law (max
// |z|), and the slice's mean and sd within 4 standard errors of (c)'s
// (the slice's own width widens the sd by about 1%, well inside); the sum
// of dependent draws leaves (a)'s law by far more than that.
func TestGaussianIdentities(t *testing.T) {
	for _, id := range []string{"conditional", "marginal", "sum", "linear"} {
		s := simtest.Build(t, Gaussian, map[string]string{"identity": id}, 1, nil)
		simtest.Run(t, s, Gaussian.Famous)
		f := s.Frame()
		if z := simtest.Metric(t, f, "max |z|"); z > 4 {
			t.Errorf("%s: max |z| = %.2f after %d draws", id, z, Gaussian.Famous)
		}
		if id != "conditional" {
			continue
		}
		n := simtest.Metric(t, f, "in slice")
		m, cm := simtest.Metric(t, f, "slice mean"), simtest.Metric(t, f, "(c) mean")
		sd, csd := simtest.Metric(t, f, "slice sd"), simtest.Metric(t, f, "(c) sd")
		if n < 150 {
			t.Errorf("%g draws in the slice after a minute", n)
		}
		if z := (m - cm) / (csd / math.Sqrt(n)); math.Abs(z) > 4 {
			t.Errorf("slice mean %g against (c)'s %g: z = %.1f", m, cm, z)
		}
		if z := (sd - csd) / (csd / math.Sqrt(2*n)); math.Abs(z) > 4 {
			t.Errorf("slice sd %g against (c)'s %g: z = %.1f", sd, csd, z)
		}
	}
	s := simtest.Build(t, Gaussian, map[string]string{"identity": "sum-dependent"}, 1, nil)
	simtest.Run(t, s, Gaussian.Famous)
	if z := simtest.Metric(t, s.Frame(), "max |z|"); z < 10 {
		t.Errorf("dependent sum: max |z| = %.2f, want (a) visibly broken", z)
	}
}
