package visim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// TestGaussianModel runs CAVI on the correlated target to convergence: the
// variances shown equal σ²(1 − ρ²), the means 0, the KL its minimum
// −½ log(1 − ρ²), and the KL gap series never rises.
func TestGaussianModel(t *testing.T) {
	for _, rho := range []string{"0.9", "-0.5", "0"} {
		s := simtest.Build(t, VI, map[string]string{"rho": rho}, 1, nil)
		if _, ok := simtest.RunUntil(t, s, 5000); !ok {
			t.Fatalf("ρ=%s: no convergence", rho)
		}
		f := s.Frame()
		simtest.FiniteMetrics(t, f)
		r := simtest.Float(rho)
		s1, _ := f.Metric("s₁")
		s2, _ := f.Metric("s₂")
		kl, _ := f.Metric("KL(q‖p)")
		m1, _ := f.Metric("m₁")
		if math.Abs(s1-(1-r*r)) > 1e-14 || math.Abs(s2-(1-r*r)) > 1e-14 || math.Abs(kl+0.5*math.Log(1-r*r)) > 1e-9 || math.Abs(m1) > 1e-8 {
			t.Errorf("ρ=%s: s %g %g, KL %g, m₁ %g", rho, s1, s2, kl, m1)
		}
		gap, _ := f.Series("KL − KL*")
		for i := 1; i < len(gap.Y); i++ {
			if gap.Y[i] > gap.Y[i-1]+1e-12 {
				t.Fatalf("ρ=%s: KL rose at update %d", rho, i)
			}
		}
	}
}

// TestMixtureModel checks that one sweep closes the ELBO's gap to log p(x)
// and that the ELBO series never falls.
func TestMixtureModel(t *testing.T) {
	s := simtest.Build(t, VI, map[string]string{"model": "mixture"}, 2, nil)
	if _, ok := simtest.RunUntil(t, s, 1000); !ok {
		t.Fatal("no convergence")
	}
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	if gap, _ := f.Metric("gap"); gap > 1e-9 || gap < -1e-9 {
		t.Errorf("gap %g after convergence", gap)
	}
	e, _ := f.Series("ELBO")
	for i := 1; i < len(e.Y); i++ {
		if e.Y[i] < e.Y[i-1]-1e-9 {
			t.Fatalf("ELBO fell at step %d", i)
		}
	}
}

// TestBGMMModel runs the Bayesian GMM to convergence on well-separated
// clusters: the ELBO trace never falls, and with a small α₀ the weight sits
// on as many components as there are clusters.
func TestBGMMModel(t *testing.T) {
	s := simtest.Build(t, VI, map[string]string{"model": "bgmm", "k": "5", "clusters": "3", "sep": "6", "n": "300"}, 3, nil)
	if _, ok := simtest.RunUntil(t, s, 4000); !ok {
		t.Fatal("no convergence")
	}
	res := s.Result()
	tr := res["elbo_trace"].([]float64)
	for i := 1; i < len(tr); i++ {
		if tr[i] < tr[i-1]-1e-9*math.Abs(tr[i-1]) {
			t.Fatalf("ELBO fell at iteration %d: %g → %g", i, tr[i-1], tr[i])
		}
	}
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	if used, _ := f.Metric("in use"); used != 3 {
		t.Errorf("%g components in use, want 3 (weights %v)", used, res["weights"])
	}
}

func TestVIBadParams(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		name string
	}{
		{map[string]string{"rho": "1"}, "rho"},
		{map[string]string{"model": "bgmm", "k": "11"}, "k"},
		{map[string]string{"model": "bgmm", "alpha0": "0"}, "alpha0"},
		{map[string]string{"model": "bgmm", "n": "5"}, "n"},
		{map[string]string{"m0": "1"}, "m0"},
	} {
		_, err := simtest.BuildErr(VI, c.set, 1, nil)
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%v: error %v does not name %s", c.set, err, c.name)
		}
	}
}

func TestVIDeterministicImmutable(t *testing.T) {
	for _, model := range []string{"gaussian", "mixture", "bgmm"} {
		res := func() string {
			s := simtest.Build(t, VI, map[string]string{"model": model}, 4, nil)
			simtest.RunUntil(t, s, 30)
			b, _ := json.Marshal(s.Result())
			return string(b)
		}
		if a, b := res(), res(); a != b {
			t.Errorf("%s: same seed, different results", model)
		}
		s := simtest.Build(t, VI, map[string]string{"model": model}, 1, nil)
		simtest.RunUntil(t, s, 3)
		f := s.Frame()
		before, _ := json.Marshal(f)
		simtest.RunUntil(t, s, 3)
		_ = s.Frame()
		if after, _ := json.Marshal(f); string(before) != string(after) {
			t.Errorf("%s: a frame changed after it was returned", model)
		}
	}
}
