package mixturesim

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
)

func build(t *testing.T, set map[string]string, data *sims.Table, seed uint64) sims.Sim {
	t.Helper()
	v, err := sims.Resolve(EMGMM.Params, set)
	if err != nil {
		t.Fatal(err)
	}
	s, err := EMGMM.Build(sims.Config{Values: v, Seed: seed, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runToEnd steps s until it converges, failing on any other error or when it
// has not converged within max steps.
func runToEnd(t *testing.T, s sims.Sim, max int) int {
	t.Helper()
	for i := 0; i < max; i++ {
		err := s.Step()
		if errors.Is(err, sims.ErrConverged) {
			return i
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	t.Fatalf("no convergence in %d steps", max)
	return max
}

func TestCatalog(t *testing.T) {
	if _, err := sims.NewCatalog(EMGMM); err != nil {
		t.Fatal(err)
	}
}

// TestDefaults builds the sim with its defaults, checks the first Frame,
// runs to convergence and checks the Result: the loglik trace never falls
// (eq 2.37, relative slack 1e-9), the weights sum to 1 and the covariances
// are symmetric positive definite.
func TestDefaults(t *testing.T) {
	s, err := EMGMM.Build(sims.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Frame()
	if f.Sim != "em-gmm" || f.Step != 0 {
		t.Fatalf("first frame: Sim %q, Step %d", f.Sim, f.Step)
	}
	if len(f.Metrics) == 0 || f.Metrics[0].Name != "loglik" {
		t.Fatalf("loglik is not the first metric: %+v", f.Metrics)
	}
	cc, ok := f.Charts[0].(sims.CanvasChart)
	if !ok {
		t.Fatalf("chart 0 is %T, want a CanvasChart", f.Charts[0])
	}
	if n := len(cc.Points[0].X); n != 400 {
		t.Fatalf("%d points, want the default 400", n)
	}
	for _, c := range cc.Points[0].Classes {
		if c != -1 {
			t.Fatal("points are classified before the first E-step")
		}
	}
	if len(cc.Legend) != 3 || len(cc.Paths) != 6 || !cc.Paths[1].Dotted || cc.Paths[0].Dotted {
		t.Fatalf("legend %q, %d paths", cc.Legend, len(cc.Paths))
	}
	if _, ok := f.Charts[1].(sims.LineChart); !ok {
		t.Fatalf("chart 1 is %T, want a LineChart", f.Charts[1])
	}

	steps := runToEnd(t, s, EMGMM.Steps*10)
	f = s.Frame()
	if f.Step != steps {
		t.Errorf("Frame.Step = %d after %d successful steps", f.Step, steps)
	}
	for _, c := range f.Charts[0].(sims.CanvasChart).Points[0].Classes {
		if c < 0 || c >= 3 {
			t.Fatalf("class %d out of 0..2", c)
		}
	}
	r := s.Result()
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("Result is not JSON-encodable: %v", err)
	}
	tr := r["loglik_trace"].([]float64)
	if len(tr) != r["iterations"].(int)+1 || len(tr) < 3 {
		t.Fatalf("trace of %d values after %v iterations", len(tr), r["iterations"])
	}
	for i := 1; i < len(tr); i++ {
		if tr[i] < tr[i-1]-1e-9*math.Abs(tr[i-1]) {
			t.Fatalf("loglik fell at iteration %d: %.15g → %.15g", i, tr[i-1], tr[i])
		}
	}
	if ll, _ := f.Metric("loglik"); ll != tr[len(tr)-1] || r["loglik"].(float64) != ll {
		t.Errorf("loglik metric %v, result %v, trace end %v", ll, r["loglik"], tr[len(tr)-1])
	}
	w := r["weights"].([]float64)
	covs := r["covariances"].([][][]float64)
	sum := 0.0
	for j, wj := range w {
		sum += wj
		c := covs[j]
		if c[0][1] != c[1][0] || !(c[0][0] > 0) || !(c[0][0]*c[1][1]-c[0][1]*c[1][0] > 0) {
			t.Errorf("Σ_%d = %v is not symmetric positive definite", j+1, c)
		}
	}
	if math.Abs(sum-1) > 1e-12 || len(r["means"].([][]float64)) != 3 {
		t.Errorf("weights %v sum to %v", w, sum)
	}
	if !strings.Contains(strings.Join(f.Text, "\n"), "holds") {
		t.Errorf("text does not report the monotonicity check: %q", f.Text)
	}
}

// TestPhases checks that steps alternate E and M, that the loglik metric moves
// only at M-steps and that after an E-step the ELBO equals the loglik (2.34).
func TestPhases(t *testing.T) {
	s := build(t, map[string]string{"k": "4", "clusters": "3"}, nil, 2)
	prev, _ := s.Frame().Metric("loglik")
	for i := 1; i <= 20; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		f := s.Frame()
		ll, _ := f.Metric("loglik")
		elbo, ok := f.Metric("elbo")
		if !ok {
			t.Fatal("no elbo metric after an E-step")
		}
		if i%2 == 1 { // E-step
			if !strings.HasPrefix(f.Text[0], "E-step") || ll != prev || elbo != ll {
				t.Fatalf("step %d: text %q, loglik %v → %v, elbo %v", i, f.Text[0], prev, ll, elbo)
			}
		} else if !strings.HasPrefix(f.Text[0], "M-step") || elbo > ll+1e-12 || elbo < prev-1e-12 {
			t.Fatalf("step %d: text %q, want log p(θ_old) %v ≤ L %v ≤ log p(θ_new) %v", i, f.Text[0], prev, elbo, ll)
		}
		prev = ll
	}
}

// TestTable checks that a --data table is used: its first two columns become
// the points, whatever n and clusters say.
func TestTable(t *testing.T) {
	sample, err := mixture.Blobs(rand.New(rand.NewPCG(9, 9)), 120, 2, mixture.DefaultSep)
	if err != nil {
		t.Fatal(err)
	}
	tab := &sims.Table{Name: "test.csv", Columns: []string{"u", "v", "label"}}
	for i, p := range sample.Points {
		tab.Rows = append(tab.Rows, []float64{p[0], p[1], float64(sample.Labels[i])})
	}
	s := build(t, map[string]string{"k": "2", "n": "5000"}, tab, 1)
	cc := s.Frame().Charts[0].(sims.CanvasChart)
	ps := cc.Points[0]
	if len(ps.X) != 120 {
		t.Fatalf("%d points, want the table's 120", len(ps.X))
	}
	for i, r := range tab.Rows {
		if ps.X[i] != r[0] || ps.Y[i] != r[1] {
			t.Fatalf("point %d is (%v, %v), want (%v, %v)", i, ps.X[i], ps.Y[i], r[0], r[1])
		}
	}
	if cc.XLabel != "u" || cc.YLabel != "v" {
		t.Errorf("axis labels %q, %q; want the column names", cc.XLabel, cc.YLabel)
	}
	runToEnd(t, s, 2000)
	// Two well-separated clusters: the fit recovers the labels up to a swap.
	cls := s.Frame().Charts[0].(sims.CanvasChart).Points[0].Classes
	agree := 0
	for i, c := range cls {
		if c == sample.Labels[i] {
			agree++
		}
	}
	if agree != 120 && agree != 0 {
		t.Errorf("%d of 120 points agree with the true labels, want all up to a swap", agree)
	}
}

// TestBadConfig checks errors, never panics: a one-column table, a ragged
// one, a table with fewer rows than k, and a floor between 0 and MinReg.
func TestBadConfig(t *testing.T) {
	one := &sims.Table{Name: "one.csv", Columns: []string{"x"}, Rows: [][]float64{{1}, {2}, {3}}}
	v, _ := sims.Resolve(EMGMM.Params, nil)
	if _, err := EMGMM.Build(sims.Config{Values: v, Data: one}); err == nil || !strings.Contains(err.Error(), "two") {
		t.Errorf("one-column table: got %v", err)
	}
	ragged := &sims.Table{Name: "ragged.csv", Columns: []string{"x", "y"}, Rows: [][]float64{{1, 2}, {2}, {3, 1}}}
	if _, err := EMGMM.Build(sims.Config{Values: v, Data: ragged}); err == nil {
		t.Error("ragged table accepted")
	}
	few := &sims.Table{Name: "few.csv", Columns: []string{"x", "y"}, Rows: [][]float64{{1, 2}, {2, 1}}}
	_, err := EMGMM.Build(sims.Config{Values: v, Data: few})
	var pe *algo.ParamError
	if !errors.As(err, &pe) || pe.Name != "k" {
		t.Errorf("k = 3 on 2 rows: got %v, want an error naming k", err)
	}
	v, err = sims.Resolve(EMGMM.Params, map[string]string{"reg": "1e-12"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EMGMM.Build(sims.Config{Values: v}); !errors.As(err, &pe) || pe.Name != "reg" {
		t.Errorf("reg = 1e-12: got %v, want an error naming reg", err)
	}
	if _, err := sims.Resolve(EMGMM.Params, map[string]string{"k": "11"}); err == nil {
		t.Error("k = 11 accepted")
	}
}

// TestFramesImmutable checks that a Frame is not changed by later steps.
func TestFramesImmutable(t *testing.T) {
	s := build(t, nil, nil, 3)
	for range 3 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	f := s.Frame()
	snap, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := s.Step(); err != nil && !errors.Is(err, sims.ErrConverged) {
			t.Fatal(err)
		}
	}
	again, _ := json.Marshal(f)
	if string(snap) != string(again) {
		t.Fatal("an old Frame changed when the sim stepped on")
	}
}

// TestDeterministic: the same seed gives the same run; changing k keeps the
// generated data.
func TestDeterministic(t *testing.T) {
	a, b := build(t, nil, nil, 5), build(t, nil, nil, 5)
	runToEnd(t, a, 2000)
	runToEnd(t, b, 2000)
	if !reflect.DeepEqual(a.Result(), b.Result()) {
		t.Fatal("two runs with seed 5 differ")
	}
	c := build(t, map[string]string{"k": "5"}, nil, 5)
	pa := a.Frame().Charts[0].(sims.CanvasChart).Points[0]
	pc := c.Frame().Charts[0].(sims.CanvasChart).Points[0]
	if !reflect.DeepEqual(pa.X, pc.X) || !reflect.DeepEqual(pa.Y, pc.Y) {
		t.Fatal("changing k changed the generated data")
	}
}

// TestCollapse: with reg = 0 and many components on few points, the run ends
// with ErrDiverged (a collapsed component, Remark 2.10), not a panic.
func TestCollapse(t *testing.T) {
	tab := &sims.Table{Name: "tiny.csv", Columns: []string{"x", "y"},
		Rows: [][]float64{{0, 0}, {1, 0}, {0, 1}, {5, 5}, {5.5, 5}, {9, 0}}}
	s := build(t, map[string]string{"k": "6", "reg": "0", "tol": "0"}, tab, 1)
	for i := 0; i < 2000; i++ {
		err := s.Step()
		if errors.Is(err, sims.ErrDiverged) {
			_ = s.Frame() // the last good frame is still drawable
			return
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	t.Fatal("no collapse with reg = 0 and k = n")
}
