package estimatesim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/estimate"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestStreamPanes runs every model in stream mode: the estimate in the
// result is within 4 asymptotic standard errors of the truth, the pane has
// its three charts, and the likelihood integral of Remark 1.4 is shown; for
// the Bernoulli model it is checked against the Beta function
// ∫₀¹ p^k (1 − p)^{n−k} dp = B(k + 1, n − k + 1).
func TestStreamPanes(t *testing.T) {
	for _, model := range mleModels {
		s := simtest.Build(t, MLE, map[string]string{"model": model.String()}, 1, nil)
		const n = 3000
		simtest.Run(t, s, n)
		res := s.Result()
		mle, truth := res["mle"].([]float64), res["truth"].([]float64)
		m, _ := estimate.NewModel(model, truth[0], append(truth, 1)[1])
		inv := m.InverseFisher()
		for j := range mle {
			if math.Abs(mle[j]-truth[j]) > 4*math.Sqrt(inv[j]/n) {
				t.Errorf("%s: θ̂%d = %g, truth %g", model, j+1, mle[j], truth[j])
			}
		}
		f := s.Frame()
		if len(f.Charts) != 3 {
			t.Fatalf("%s: %d charts", model, len(f.Charts))
		}
		if txt := strings.Join(f.Text, "\n"); !strings.Contains(txt, "Remark 1.4") {
			t.Errorf("%s: notes %q", model, f.Text)
		}
		if model == "bernoulli" {
			ss := s.(*streamSim)
			st := ss.s.Stats()
			k := math.Round(st.Mean * float64(st.N))
			_, logInt := ss.likelihoodChart([2]float64{st.Mean})
			lb1, _ := math.Lgamma(k + 1)
			lb2, _ := math.Lgamma(float64(st.N) - k + 1)
			lb3, _ := math.Lgamma(float64(st.N) + 2)
			if beta := lb1 + lb2 - lb3; math.Abs(logInt-beta) > 1e-3 {
				t.Errorf("log ∫L dp = %g, log B(k+1, n−k+1) = %g", logInt, beta)
			}
		}
		for _, mt := range f.Metrics {
			if math.IsNaN(mt.Value) || math.IsInf(mt.Value, 0) {
				t.Errorf("%s: metric %s = %v", model, mt.Name, mt.Value)
			}
		}
	}
}

// TestSamplingPane replicates the Gaussian experiment and checks that the
// pane's metrics agree with the asymptotic law: mean of √n(μ̂ − μ) within 4
// s.e. of 0, its variance within 15% of I⁻¹ = σ², and two histograms (μ and
// σ²).
func TestSamplingPane(t *testing.T) {
	s := simtest.Build(t, MLE, map[string]string{"mode": "sampling", "n": "100"}, 2, nil)
	simtest.Run(t, s, 2000)
	f := s.Frame()
	mean, _ := f.Metric("mean z")
	v, _ := f.Metric("var z")
	inv, _ := f.Metric("I⁻¹")
	if inv != 4 || math.Abs(mean) > 4*math.Sqrt(4.0/2000) || math.Abs(v-4)/4 > 0.15 {
		t.Errorf("mean %g var %g I⁻¹ %g", mean, v, inv)
	}
	hists := 0
	for _, c := range f.Charts {
		if _, ok := c.(sims.HistChart); ok {
			hists++
		}
	}
	if hists != 2 {
		t.Errorf("%d histograms", hists)
	}
	if _, err := json.Marshal(s.Result()); err != nil {
		t.Error(err)
	}
}

func TestBadParams(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		name string
	}{
		{map[string]string{"model": "bernoulli", "theta1": "1.5"}, "theta1"},
		{map[string]string{"model": "exponential", "theta1": "-1"}, "theta1"},
		{map[string]string{"theta2": "0"}, "theta2"},
		{map[string]string{"n": "0"}, "n"},
		{map[string]string{"mode": "batch"}, "mode"},
	} {
		_, err := simtest.BuildErr(MLE, c.set, 1, nil)
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%v: error %v does not name %s", c.set, err, c.name)
		}
	}
}

func TestDeterministicImmutableNoAlloc(t *testing.T) {
	for _, mode := range []string{"stream", "sampling"} {
		res := func() string {
			s := simtest.Build(t, MLE, map[string]string{"mode": mode}, 9, nil)
			simtest.Run(t, s, 200)
			b, _ := json.Marshal(s.Result())
			return string(b)
		}
		if a, b := res(), res(); a != b {
			t.Errorf("%s: same seed, different results", mode)
		}
		s := simtest.Build(t, MLE, map[string]string{"mode": mode, "model": "regression"}, 1, nil)
		simtest.Run(t, s, 50)
		f := s.Frame()
		before, _ := json.Marshal(f)
		simtest.Run(t, s, 50)
		_ = s.Frame()
		if after, _ := json.Marshal(f); string(before) != string(after) {
			t.Errorf("%s: a frame changed after it was returned", mode)
		}
		if a := testing.AllocsPerRun(100, func() { _ = s.Step() }); a != 0 {
			t.Errorf("%s: Step allocates %v times", mode, a)
		}
	}
}
