package dpsim

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/dp"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// run steps s until it converges or has taken max steps, checking every
// 97th frame's metrics are finite; it returns the steps taken before
// convergence, or max.
func run(t *testing.T, s sims.Sim, max int) int {
	t.Helper()
	for i := 0; i < max; i++ {
		if _, converged := simtest.RunUntil(t, s, 1); converged {
			return i
		}
		if i%97 == 0 && !simtest.FiniteMetrics(t, s.Frame()) {
			t.Fatalf("step %d: metrics not finite", i)
		}
	}
	return max
}

func TestModes(t *testing.T) {
	if _, err := sims.NewCatalog(DP); err != nil {
		t.Fatal(err)
	}
	for _, mode := range modes {
		s := simtest.Build(t, DP, map[string]string{"mode": mode.String(), "n": "50"}, 1, nil)
		f0 := s.Frame()
		snap, _ := json.Marshal(f0)
		run(t, s, 300)
		if again, _ := json.Marshal(f0); string(again) != string(snap) {
			t.Errorf("%s: the first frame changed as the sim stepped", mode)
		}
		f := s.Frame()
		if f.Sim != "dp" || len(f.Charts) < 2 || len(f.Text) == 0 {
			t.Errorf("%s: frame %+v", mode, f)
		}
		if _, err := json.Marshal(s.Result()); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
	}
}

// TestDirichletMode: after n draws the running means are within 5 standard
// errors of α_k/α₀ (D1), and the run ends after exactly n draws.
func TestDirichletMode(t *testing.T) {
	s := simtest.Build(t, DP, map[string]string{"mode": "dirichlet", "alphas": "0.5,1,3", "n": "4000"}, 2, nil)
	if n := run(t, s, 10000); n != 4000 {
		t.Fatalf("converged after %d steps, want 4000", n)
	}
	r := s.Result()
	mean := r["mean"].([]float64)
	want, variance := dp.DirichletMoments([]float64{0.5, 1, 3})
	for k := range mean {
		if se := math.Sqrt(variance[k] / 4000); math.Abs(mean[k]-want[k]) > 5*se {
			t.Errorf("mean C_%d = %.4f, want %.4f ± %.2g", k+1, mean[k], want[k], 5*se)
		}
	}
}

// TestStickMode: each draw is broken until the rest is below tol; after n
// draws the mean of C_1 is within 5 standard errors of 1/(1+α), its s.d.
// being that of V ~ Beta(1, α), sqrt(α/((1+α)²(2+α))). The pane states the
// corrected product and the sum ΣC_k + rest = 1.
func TestStickMode(t *testing.T) {
	const alpha, n = 3.0, 1500
	s := simtest.Build(t, DP, map[string]string{"mode": "stick", "alpha": "3", "n": "1500", "tol": "1e-4"}, 3, nil)
	run(t, s, 1_000_000)
	r := s.Result()
	if r["draws"].(int) != n {
		t.Fatalf("%v draws, want %d", r["draws"], n)
	}
	m := r["mean_weights"].([]float64)[0]
	sd := math.Sqrt(alpha / ((1 + alpha) * (1 + alpha) * (2 + alpha)))
	if se := sd / math.Sqrt(n); math.Abs(m-1/(1+alpha)) > 5*se {
		t.Errorf("mean C_1 = %.4f, want %.4f ± %.2g", m, 1/(1+alpha), 5*se)
	}
	w := r["weights"].([]float64)
	total := r["rest"].(float64)
	for _, c := range w {
		total += c
	}
	if math.Abs(total-1) > 1e-12 || r["rest"].(float64) >= 1e-4 {
		t.Errorf("last draw: weights + rest = %.15g, rest %v", total, r["rest"])
	}
	text := strings.Join(s.Frame().Text, "\n")
	if !strings.Contains(text, "∏_{j<k}(1 − V_j)") || !strings.Contains(text, "typo") {
		t.Errorf("the pane does not state the corrected (4.15): %q", text)
	}
}

// TestCRPMode: the tables metric counts the tables, the expectation curve is
// Σ_{i<n} α/(α+i), and the customers sum to n.
func TestCRPMode(t *testing.T) {
	s := simtest.Build(t, DP, map[string]string{"mode": "crp", "alpha": "2", "n": "500"}, 4, nil)
	if n := run(t, s, 1000); n != 500 {
		t.Fatalf("converged after %d customers", n)
	}
	f := s.Frame()
	r := s.Result()
	want, _ := dp.TablesMoments(2, 500)
	if e, _ := f.Metric("expected"); math.Abs(e-want) > 1e-9 || r["expected_tables"].(float64) != e {
		t.Errorf("expected %v, want %v", e, want)
	}
	sizes := r["table_sizes"].([]int)
	total := 0
	for _, c := range sizes {
		total += c
	}
	if k, _ := f.Metric("tables"); total != 500 || int(k) != len(sizes) {
		t.Errorf("%d customers at %d tables, metric %v", total, len(sizes), k)
	}
	e, _ := f.Series("E[K_n]")
	kn, _ := f.Series("K_n")
	if len(e.Y) != len(kn.Y) || math.Abs(e.Y[len(e.Y)-1]-want) > 1e-9 {
		t.Errorf("expectation curve ends at %v, want %v", e.Y[len(e.Y)-1], want)
	}
}

// TestMixtureMode clusters a --data table of four well-separated clusters
// into four clusters that are the true ones; --data is refused by the other
// modes.
func TestMixtureMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	tab := &sims.Table{Name: "four.csv", Columns: []string{"u", "v"}}
	var truth []int
	for i := range 160 {
		c := i % 4
		tab.Rows = append(tab.Rows, []float64{float64(c%2)*8 + 0.4*rng.NormFloat64(), float64(c/2)*8 + 0.4*rng.NormFloat64()})
		truth = append(truth, c)
	}
	s := simtest.Build(t, DP, map[string]string{"mode": "dpmm", "sigma": "0.4", "tau": "6"}, 6, tab)
	for range 40 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	r := s.Result()
	if r["clusters"].(int) != 4 {
		t.Fatalf("%v clusters, want 4", r["clusters"])
	}
	labels := r["labels"].([]int)
	seen := map[int]int{}
	for i, l := range labels {
		if c, ok := seen[l]; ok && c != truth[i] {
			t.Fatalf("a cluster mixes true clusters %d and %d", c, truth[i])
		}
		seen[l] = truth[i]
	}
	if cc := s.Frame().Charts[0].(sims.CanvasChart); cc.XLabel != "u" || len(cc.Points[0].X) != 160 {
		t.Errorf("canvas %q, %d points", cc.XLabel, len(cc.Points[0].X))
	}
	v, _ := sims.Resolve(DP.Params, map[string]string{"mode": "crp"})
	if _, err := DP.Build(sims.Config{Values: v, Data: tab}); err == nil {
		t.Error("mode=crp accepted --data")
	}
	if _, err := sims.Resolve(DP.Params, map[string]string{"alpha": "0"}); err == nil {
		t.Error("alpha = 0 accepted")
	}
}
