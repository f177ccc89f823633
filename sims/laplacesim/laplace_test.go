package laplacesim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"gonum.org/v1/gonum/mathext"
)

// TestChiSquarePane is the oracle at the sim level: χ²(10) gives
// q = N(8, 16); the pane's KL(p‖q) is the closed form
// −H(χ²₁₀) + ½ log(32π) + 24/32 and KL(q‖p) is infinite (null), with q's
// mass Φ(−2) on z ≤ 0 reported.
func TestChiSquarePane(t *testing.T) {
	s := simtest.Build(t, Laplace, nil, 1, nil)
	f := s.Frame()
	if len(f.Charts) != 3 || f.Step != 0 {
		t.Fatalf("first frame: %d charts, step %d", len(f.Charts), f.Step)
	}
	simtest.RunToEnd(t, s, 100)
	res := s.Result()
	mode, cov := res["mode"].([]float64), res["cov"].([][]float64)
	if math.Abs(mode[0]-8) > 1e-9 || math.Abs(cov[0][0]-16) > 1e-7 || res["converged"] != true {
		t.Errorf("q = N(%v, %v), want N(8, 16)", mode, cov)
	}
	lg, _ := math.Lgamma(5)
	h := 5 + math.Ln2 + lg - 4*mathext.Digamma(5)
	want := -h + 0.5*math.Log(32*math.Pi) + 24.0/32
	if kl := res["kl_pq"].(float64); math.Abs(kl-want) > 1e-5 {
		t.Errorf("KL(p‖q) = %.6f, closed form %.6f", kl, want)
	}
	if res["kl_qp"] != nil {
		t.Errorf("KL(q‖p) = %v, want null (infinite)", res["kl_qp"])
	}
	if m := res["q_mass_where_p_is_zero"].(float64); math.Abs(m-0.02275) > 5e-4 {
		t.Errorf("q's mass on z ≤ 0: %.5f, want Φ(−2) = 0.02275", m)
	}
	f = s.Frame()
	txt := strings.Join(f.Text, "\n")
	for _, w := range []string{"N(8, 16)", "KL(q‖p) = ∞", "mean 10"} {
		if !strings.Contains(txt, w) {
			t.Errorf("text lacks %q: %q", w, txt)
		}
	}
	if g, ok := f.Series("|∇ log p|"); !ok || g.Y[len(g.Y)-1] > 1e-10 {
		t.Errorf("gradient curve %v", g.Y)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Error(err)
	}
}

func TestExample34Pane(t *testing.T) {
	s := simtest.Build(t, Laplace, map[string]string{"model": "logistic"}, 1, nil)
	if n := simtest.RunToEnd(t, s, 100); n > 8 {
		t.Errorf("%d Newton steps", n)
	}
	res := s.Result()
	if m := res["mode"].([]float64)[0]; math.Abs(m-1.20534628) > 1e-8 {
		t.Errorf("mode %.9f, catalogue 1.20534628", m)
	}
	if v := res["cov"].([][]float64)[0][0]; math.Abs(v-0.56095) > 5e-6 {
		t.Errorf("Laplace variance %.6f, catalogue 0.56095", v)
	}
	if kl := res["kl_qp"]; kl == nil || !(kl.(float64) > 0) {
		t.Errorf("KL(q‖p) = %v, want finite > 0", kl)
	}
}

func TestLogistic2DPane(t *testing.T) {
	table := &sims.Table{Name: "t.csv", Columns: []string{"x", "label"}}
	for i, x := range []float64{-2.5, -1.7, -1.2, -0.4, -0.1, 0.3, 0.6, 1.1, 1.8, 2.4, -0.8, 0.9} {
		y := 0.0
		if x > 0 == (i%5 != 0) {
			y = 1
		}
		table.Rows = append(table.Rows, []float64{x, y})
	}
	for _, data := range []*sims.Table{nil, table} {
		s := simtest.Build(t, Laplace, map[string]string{"model": "logistic2d"}, 1, data)
		simtest.RunToEnd(t, s, 100)
		f := s.Frame()
		if len(f.Charts) != 4 {
			t.Fatalf("%d charts", len(f.Charts))
		}
		cv, ok := f.Charts[0].(sims.CanvasChart)
		if !ok || cv.Heat == nil || len(cv.Paths) != 3 || len(cv.Paths[0].X) == 0 {
			t.Fatalf("chart 0 %T: not the posterior with q's ellipses and Newton's path", f.Charts[0])
		}
		res := s.Result()
		if g := res["grad_norm"].(float64); g > 1e-10 {
			t.Errorf("gradient %g at the end", g)
		}
		if kl := res["kl_pq"].(float64); !(kl > 0 && kl < 1) {
			t.Errorf("KL(p‖q) %g", kl)
		}
		for _, m := range f.Metrics {
			if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
				t.Errorf("metric %s = %v", m.Name, m.Value)
			}
		}
	}
}

func TestLaplaceBadConfig(t *testing.T) {
	for _, set := range []map[string]string{{"k": "2"}, {"tau": "0"}, {"model": "probit"}, {"n": "1"}, {"z0": "1"}} {
		if _, err := sims.Resolve(Laplace.Params, set); err == nil {
			t.Errorf("%v accepted", set)
		}
	}
	vals, _ := sims.Resolve(Laplace.Params, map[string]string{"z0": "-1,0"})
	if _, err := Laplace.Build(sims.Config{Values: vals}); err == nil || !strings.Contains(err.Error(), "z0") {
		t.Errorf("a start outside χ²'s support: %v", err)
	}
	if _, err := Laplace.Build(sims.Config{Data: &sims.Table{}}); err == nil {
		t.Error("--data accepted for model=chi2")
	}
	bad := &sims.Table{Name: "b.csv", Columns: []string{"x", "label"}, Rows: [][]float64{{1, 0}, {2, 1}, {3, 2}}}
	vals, _ = sims.Resolve(Laplace.Params, map[string]string{"model": "logistic2d"})
	if _, err := Laplace.Build(sims.Config{Values: vals, Data: bad}); err == nil {
		t.Error("three classes accepted")
	}
}

func TestLaplaceFramesAreImmutable(t *testing.T) {
	s := simtest.Build(t, Laplace, map[string]string{"model": "logistic2d"}, 1, nil)
	s.Step()
	f := s.Frame()
	before, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	simtest.RunToEnd(t, s, 100)
	s.Frame()
	if after, _ := json.Marshal(f); string(before) != string(after) {
		t.Error("a frame changed after it was returned")
	}
}
