package kernelsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestGeometryDemos runs every demo to its end and checks what its pane
// promises: each identity at rounding, the poly dimension counted equal to
// C(n+d−1, d) = 10626 at n = 5, d = 20, the Gaussian angle at r/σ = 4 near
// 90° (arccos e^−8 = 89.98°), the RKHS function inside its envelope.
func TestGeometryDemos(t *testing.T) {
	for _, c := range []struct {
		set   map[string]string
		steps int
		zero  []string // metrics at rounding
	}{
		{map[string]string{"demo": "cholesky"}, 20, []string{"inner_gap"}},
		{map[string]string{"demo": "rotation"}, 20, []string{"recon_err", "orth_err", "gram_err"}},
		{map[string]string{"demo": "poly"}, 19, []string{"kernel_gap"}},
		{map[string]string{"demo": "angle"}, 20, []string{"angle_gap"}},
		{nil, 20, []string{"norm2_gap", "repro_gap"}},
		{map[string]string{"sigma": "0.05"}, 20, []string{"norm2_gap", "repro_gap"}},
		{map[string]string{"sigma": "5"}, 20, []string{"norm2_gap", "repro_gap"}},
	} {
		for seed := uint64(2); seed <= 3; seed++ {
			s := simtest.Build(t, Geometry, c.set, seed, nil)
			if got := simtest.RunToEnd(t, s, 100); got != c.steps {
				t.Errorf("%v: ended after %d steps, want %d", c.set, got, c.steps)
			}
			f := s.Frame()
			simtest.FiniteMetrics(t, f)
			for _, name := range c.zero {
				if v := simtest.Metric(t, f, name); v > 1e-9 {
					t.Errorf("%v seed %d: %s = %.3g, want 0 up to rounding", c.set, seed, name, v)
				}
			}
		}
	}
	s := simtest.Build(t, Geometry, map[string]string{"demo": "poly"}, 1, nil)
	simtest.RunToEnd(t, s, 100)
	f := s.Frame()
	algotest.Near(t, "d", simtest.Metric(t, f, "d"), 20, 0)
	algotest.Near(t, "dim", simtest.Metric(t, f, "dim"), 10626, 0)
	algotest.Near(t, "dim_formula", simtest.Metric(t, f, "dim_formula"), 10626, 0)
	if v := simtest.Metric(t, f, "kernel_gap"); v > 1e-9 {
		t.Errorf("n = 5, d = 20: kernel_gap = %.3g", v)
	}

	s = simtest.Build(t, Geometry, map[string]string{"demo": "angle"}, 1, nil)
	simtest.RunToEnd(t, s, 100)
	f = s.Frame()
	algotest.Near(t, "θ at r/σ = 4 (degrees)", simtest.Metric(t, f, "theta_deg"), math.Acos(math.Exp(-8))*180/math.Pi, 1e-9)
	if th := simtest.Metric(t, f, "theta_deg"); th < 89.9 || th > 90 {
		t.Errorf("θ at r/σ = 4 is %.4g°, want just under 90°", th)
	}

	s = simtest.Build(t, Geometry, nil, 2, nil)
	for range 20 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		f := s.Frame()
		if r := simtest.Metric(t, f, "peak_ratio"); r > 1+1e-12 {
			t.Fatalf("max|f|/‖f‖_H = %v > 1: f left its envelope", r)
		}
		if n2 := simtest.Metric(t, f, "norm2"); n2 < 0 {
			t.Fatalf("‖f‖² = %v < 0", n2)
		}
	}
	// The empty function: the ratio is undefined, not a number.
	f = simtest.Build(t, Geometry, nil, 1, nil).Frame()
	for _, m := range f.Metrics {
		if m.Name == "peak_ratio" && m.Undefined == "" {
			t.Error("peak_ratio of f = 0 is defined")
		}
	}
	if _, err := sims.NewCatalog(Geometry); err != nil {
		t.Fatal(err)
	}
}
