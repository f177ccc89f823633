package gpsim

import (
	"errors"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestBLRBumps: with Gaussian-bump features (seed 002 Ex 4.2) the
// weight-space posterior equals the function-space GP with kernel
// φ(x)ᵀφ(x')/α at every step (gp_diff at rounding), and the induced
// kernel matrix ΦΦᵀ/α has rank min(n, M) (Remark 4.11): its eigenvalues
// beyond the M-th are below 1e-10·λ_max.
func TestBLRBumps(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		m, n int
	}{
		{map[string]string{"features": "bumps"}, 8, 30},
		{map[string]string{"features": "bumps", "m": "3", "width": "0.5", "n": "12"}, 3, 12},
		{map[string]string{"features": "bumps", "m": "20", "width": "0.1", "n": "15"}, 20, 15},
	} {
		s := simtest.Build(t, BLR, c.set, 3, nil)
		steps := 0
		for {
			err := s.Step()
			f := s.Frame()
			if d := simtest.Metric(t, f, "gp_diff"); d > 1e-9 {
				t.Fatalf("%v: weight space and GP differ by %g", c.set, d)
			}
			for _, m := range f.Metrics {
				if m.Name == "gp_diff" && m.Value != 0 && !m.Negligible() {
					t.Fatalf("%v: gp_diff = %.2g at scale %.3g: above rounding", c.set, m.Value, m.Scale)
				}
			}
			if errors.Is(err, sims.ErrConverged) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			steps++
			if want := min(steps, c.m); int(simtest.Metric(t, f, "rank")) != want {
				t.Fatalf("%v: after %d points rank %v, want %d", c.set, steps, simtest.Metric(t, f, "rank"), want)
			}
		}
		if steps != c.n {
			t.Errorf("%v: %d steps, want %d", c.set, steps, c.n)
		}
		ev := s.Result()["spectrum"].([]float64)
		top := ev[len(ev)-1]
		for k, l := range ev[:len(ev)-min(c.m, c.n)] {
			if l > 1e-10*top {
				t.Errorf("%v: λ_%d = %.3g beyond rank M", c.set, k, l)
			}
		}
	}
}
