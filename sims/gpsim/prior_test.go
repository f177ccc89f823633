package gpsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestGPPriorFamous: at its defaults, by the step the spec declares for its
// famous result (a minute in a pane), on each side the draws' empirical
// correlation with f(0) lies on the kernel's: its largest gap is within
// 4.5 standard errors (the largest of some tens of nearly independent
// normal deviations), at least half the grid lies inside the ±2 s.e. band
// (95% on average; the left side's gaps are one smooth curve, whose
// stretches leave the band together: 64% at seed 3), and
// the s.e. has shrunk to 1/√300; the left (ℓ = 4) Gram matrix needed
// jitter, within the policy's bounds.
func TestGPPriorFamous(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		s := simtest.Build(t, GPPrior, nil, seed, nil)
		for range GPPrior.Famous {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		f := s.Frame()
		if f.Step != GPPrior.Famous {
			t.Fatalf("step %d", f.Step)
		}
		sim := s.(*gpPriorSim)
		for i := range sim.sides {
			fit := sim.sides[i].fit()
			if fit.z > 4.5 || fit.inside < 0.5 {
				t.Errorf("seed %d, %s: largest gap %.3g = %.2f s.e., %.0f%% inside ±2 s.e.", seed, sideName(i), fit.dev, fit.z, 100*fit.inside)
			}
			t.Logf("seed %d, %s: largest gap %.3g = %.2f s.e., %.0f%% inside ±2 s.e.", seed, sideName(i), fit.dev, fit.z, 100*fit.inside)
			se := simtest.Metric(t, f, "s.e. "+sideName(i))
			if math.Abs(se-1/math.Sqrt(300)) > 0.003 {
				t.Errorf("s.e. %v, want about 1/√300", se)
			}
		}
		if j := simtest.Metric(t, f, "jitter left"); !(j >= gp.JitterStart && j <= gp.JitterMax) {
			t.Errorf("jitter left %v", j)
		}
	}
}

// TestGPPriorZoo: every kernel of the zoo, alone, summed and multiplied,
// draws from the start: step 0 has the dev metrics undefined, and after 50
// draws they are finite, the paths stay in a band of a few σ, and the
// kernel's correlation at the reference is 1; the periodic kernel's
// correlation returns to 1 a period away.
func TestGPPriorZoo(t *testing.T) {
	var sets []map[string]string
	for _, k := range gp.Families {
		sets = append(sets, map[string]string{"kernel": k.String(), "n": "60"})
	}
	sets = append(sets,
		map[string]string{"kernel": "se", "combine": "sum", "second": "periodic", "n": "60"},
		map[string]string{"kernel": "matern32", "combine": "product", "second": "rq", "n": "60"})
	for _, set := range sets {
		s := simtest.Build(t, GPPrior, set, 3, nil)
		f := s.Frame()
		for _, m := range f.Metrics {
			if (m.Name == "dev left" || m.Name == "s.e. right") && m.Undefined == "" {
				t.Errorf("%v: %s defined at step 0", set, m.Name)
			}
		}
		for range 50 {
			if err := s.Step(); err != nil {
				t.Fatalf("%v: %v", set, err)
			}
		}
		f = s.Frame()
		sim := s.(*gpPriorSim)
		for _, m := range f.Metrics {
			if m.Undefined != "" || math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
				t.Errorf("%v: metric %s = %v (%s)", set, m.Name, m.Value, m.Undefined)
			}
		}
		for i := range sim.sides {
			if fit := sim.sides[i].fit(); fit.rho[0] != 1 || math.Abs(fit.corr[0]-1) > 1e-15 {
				t.Errorf("%v: correlation at x₀ %v, kernel %v", set, fit.corr[0], fit.rho[0])
			}
			for _, path := range sim.sides[i].fan {
				for _, y := range path {
					if math.Abs(y) > 6*math.Sqrt(sim.variance) {
						t.Fatalf("%v: a draw at %v, σ² = %v", set, y, sim.variance)
					}
				}
			}
		}
	}
	// x_max = 10 on 101 points puts x = 2.5, the period, on the grid.
	s := simtest.Build(t, GPPrior, map[string]string{"kernel": "periodic", "n": "101"}, 1, nil)
	rho := s.(*gpPriorSim).sides[1].prior.KernelCorr(nil)
	if math.Abs(rho[25]-1) > 1e-12 || rho[12] > 0.01 {
		t.Errorf("periodic ρ(p) = %v, ρ(p/2) = %v", rho[25], rho[12])
	}
}

// TestGPPriorResult: the result carries both sides' curves, and says why
// they are missing before the first draw.
func TestGPPriorResult(t *testing.T) {
	s := simtest.Build(t, GPPrior, map[string]string{"n": "20"}, 1, nil)
	res := s.Result()
	if u, ok := res["undefined"].(map[string]string); !ok || u["dev_left"] == "" {
		t.Errorf("step 0: undefined %v", res["undefined"])
	}
	s.Step()
	res = s.Result()
	if _, ok := res["undefined"]; ok {
		t.Errorf("after a draw: undefined %v", res["undefined"])
	}
	if c := res["corr_right"].([]float64); len(c) != 20 || c[0] != 1 {
		t.Errorf("corr_right %v", c)
	}
	if _, err := sims.AppendResultJSON(nil, res); err != nil {
		t.Error(err)
	}
}
