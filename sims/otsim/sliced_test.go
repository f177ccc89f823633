package otsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestSlicedFamous: at the default's Famous step (300 directions) the
// estimate is within 4 s.e. of the quadrature value over 360 angles, the
// band (±2 s.e.) is under 15% of the estimate, every slice and so the
// max-sliced value lies below W_p^p by the LP, and the quadrature value
// lies below c_{2,2}·W_2^2 = W_2^2/2.
func TestSlicedFamous(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		s := simtest.Build(t, Sliced, nil, seed, nil)
		simtest.Run(t, s, Sliced.Famous)
		f := s.Frame()
		est, se := simtest.Metric(t, f, "SW_p^p"), simtest.Metric(t, f, "s.e.")
		quad, w := simtest.Metric(t, f, "quadrature"), simtest.Metric(t, f, "W_p^p")
		if z := (est - quad) / se; math.Abs(z) > 4 {
			t.Errorf("seed %d: estimate %g, quadrature %g: %.2f s.e.", seed, est, quad, z)
		}
		if 2*se > 0.15*est {
			t.Errorf("seed %d: ±2 s.e. = %g is more than 15%% of the estimate %g", seed, 2*se, est)
		}
		if mx := simtest.Metric(t, f, "max-sliced"); mx > w*(1+1e-12) {
			t.Errorf("seed %d: max-sliced %g above W_2^2 = %g", seed, mx, w)
		}
		if quad > w/2*(1+1e-9) {
			t.Errorf("seed %d: SW_2^2 by quadrature %g above W_2^2/2 = %g", seed, quad, w/2)
		}
	}
}

// TestSlicedQuadrature: the curve over 360 angles is resolved: its mean
// agrees with one over 720 angles to 1e-3 relative (the curve has kinks
// where two projections swap order).
func TestSlicedQuadrature(t *testing.T) {
	s := simtest.Build(t, Sliced, map[string]string{"preset": "moons-ring", "n": "60", "m": "50", "p": "1"}, 3, nil).(*slSim)
	th := []float64{0, 0}
	sum := 0.0
	const k = 720
	for j := range k {
		phi := math.Pi * float64(j) / k
		th[0], th[1] = math.Cos(phi), math.Sin(phi)
		sum += s.s.Along(th)
	}
	algotest.Near(t, "quadrature", s.quad, sum/k, 1e-3*s.quad)
}

// TestSlicedBatch: with batch b a step draws b directions.
func TestSlicedBatch(t *testing.T) {
	s := simtest.Build(t, Sliced, map[string]string{"batch": "7", "preset": "boxes"}, 1, nil)
	simtest.Run(t, s, 3)
	algotest.Near(t, "directions", simtest.Metric(t, s.Frame(), "directions"), 21, 0)
}
