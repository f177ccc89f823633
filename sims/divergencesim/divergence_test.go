package divergencesim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/divergence"
	"github.com/thelab/lab/sims/simtest"
)

// TestCodingView checks the coding view against the closed forms: the
// metrics H(p), H(p,q), KL both ways, and the mean code length under p
// within 4 Monte Carlo standard errors of H(p); with a zero in q where
// p > 0 the KL(p‖q) metric is left out and the notes say ∞.
func TestCodingView(t *testing.T) {
	s := simtest.Build(t, Divergence, nil, 1, nil)
	simtest.RunUntil(t, s, 5000)
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	p, q := []float64{0.1, 0.2, 0.4, 0.3}, []float64{0.25, 0.25, 0.25, 0.25}
	for name, want := range map[string]float64{
		"H(p)": divergence.Entropy(p), "H(p,q)": math.Log(4), "KL(p‖q)": divergence.KL(p, q), "KL(q‖p)": divergence.KL(q, p),
	} {
		if got, ok := f.Metric(name); !ok || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	lp, _ := f.Metric("mean len p")
	sd := 0.0
	for _, pi := range p {
		d := -math.Log(pi) - divergence.Entropy(p)
		sd += pi * d * d
	}
	if math.Abs(lp-divergence.Entropy(p)) > 4*math.Sqrt(sd/5000) {
		t.Errorf("mean length %g, H(p) %g", lp, divergence.Entropy(p))
	}
	z := simtest.Build(t, Divergence, map[string]string{"q": "0.5,0.5,0,0"}, 1, nil)
	simtest.RunUntil(t, z, 100)
	g := z.Frame()
	simtest.FiniteMetrics(t, g)
	if _, ok := g.Metric("KL(p‖q)"); ok {
		t.Error("an infinite KL(p‖q) shown as a metric")
	}
	if txt := strings.Join(g.Text, "\n"); !strings.Contains(txt, "= ∞") {
		t.Errorf("notes %q", g.Text)
	}
	if _, err := json.Marshal(z.Result()); err != nil {
		t.Error(err)
	}
}

// TestSequencesView checks the last index's metrics against the closed
// forms and the limits of Remark 1.12, and that the notes report a
// closed-form-vs-quadrature gap below 1e-9.
func TestSequencesView(t *testing.T) {
	s := simtest.Build(t, Divergence, map[string]string{"view": "sequences", "max_n": "100000"}, 1, nil)
	simtest.RunUntil(t, s, 1000)
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	n, _ := f.Metric("n")
	l1, _ := f.Metric("L1")
	kl, _ := f.Metric("KL")
	chi2, _ := f.Metric("χ²")
	kle, _ := f.Metric("KL_ε")
	seq := divergence.StepSequence{N: n}
	if math.Abs(n-100000) > 1e-6 || l1 != seq.L1() || kl != seq.KL() || l1 > 1e-4 || math.Abs(kl-1) > 1e-4 || math.Abs(chi2-1) > 1e-4 || kle > 1e-3 {
		t.Errorf("n %g L1 %g KL %g χ² %g KL_ε %g", n, l1, kl, chi2, kle)
	}
	if txt := strings.Join(f.Text, "\n"); !strings.Contains(txt, "densities: gap") || strings.Contains(txt, "e-0") {
		t.Errorf("notes %q", f.Text)
	}
}

// TestGaussiansView sweeps v and checks Ex 1.11's values at v = 2 in the
// result, and the quadrature check in the metrics.
func TestGaussiansView(t *testing.T) {
	s := simtest.Build(t, Divergence, map[string]string{"view": "gaussians"}, 1, nil)
	simtest.RunUntil(t, s, 1000)
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	if e, _ := f.Metric("quad err"); e > 1e-6 {
		t.Errorf("quadrature error %g", e)
	}
	res := s.Result()
	v, fw, rv := res["v"].([]float64), res["kl_pq"].([]float64), res["kl_qp"].([]float64)
	for i := range v {
		if math.Abs(v[i]-2) < 1e-9 {
			if math.Abs(fw[i]-0.318147) > 5e-7 || math.Abs(rv[i]-0.806853) > 5e-7 {
				t.Errorf("v = 2: %g, %g", fw[i], rv[i])
			}
			return
		}
	}
	t.Errorf("v = 2 not on the grid %v", v)
}

// TestMLView checks the ml view: after 20 000 points the empirical KL at θ*
// is within 4 s.e. of min KL, and the exact KL of the MLE is at least min KL.
func TestMLView(t *testing.T) {
	s := simtest.Build(t, Divergence, map[string]string{"view": "ml", "d": "3"}, 2, nil)
	simtest.RunUntil(t, s, 20000)
	f := s.Frame()
	simtest.FiniteMetrics(t, f)
	res := s.Result()
	best, emp, se, kl := res["min_kl"].(float64), res["empirical_kl_best"].(float64), res["se"].(float64), res["kl_mle"].(float64)
	if math.Abs(emp-best) > 4*se || kl < best || math.Abs(best-0.462) > 1e-3 {
		t.Errorf("min KL %g, empirical %g ± %g, KL(MLE) %g", best, emp, se, kl)
	}
}

func TestDivergenceBadParams(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		name string
	}{
		{map[string]string{"p": "0.5,0.5,0.5,0"}, "p"},
		{map[string]string{"q": "0.1,0.1,0.1,0.1"}, "q"},
		{map[string]string{"p": "1,0"}, "p"},
		{map[string]string{"max_n": "2"}, "max_n"},
		{map[string]string{"view": "ml", "d": "-1"}, "d"},
	} {
		_, err := simtest.BuildErr(Divergence, c.set, 1, nil)
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%v: error %v does not name %s", c.set, err, c.name)
		}
	}
}

func TestDivergenceDeterministicImmutable(t *testing.T) {
	for _, view := range []string{"coding", "sequences", "gaussians", "ml"} {
		res := func() string {
			s := simtest.Build(t, Divergence, map[string]string{"view": view}, 3, nil)
			simtest.RunUntil(t, s, 300)
			b, _ := json.Marshal(s.Result())
			return string(b)
		}
		if a, b := res(), res(); a != b {
			t.Errorf("%s: same seed, different results", view)
		}
		s := simtest.Build(t, Divergence, map[string]string{"view": view}, 1, nil)
		simtest.RunUntil(t, s, 40)
		f := s.Frame()
		before, _ := json.Marshal(f)
		simtest.RunUntil(t, s, 40)
		_ = s.Frame()
		if after, _ := json.Marshal(f); string(before) != string(after) {
			t.Errorf("%s: a frame changed after it was returned", view)
		}
	}
}
