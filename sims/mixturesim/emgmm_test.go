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
	"github.com/thelab/lab/algo/pca"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

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

	steps := simtest.RunToEnd(t, s, EMGMM.Steps*10)
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
	s := simtest.Build(t, EMGMM, map[string]string{"k": "4", "clusters": "3"}, 2, nil)
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

// TestGapBelowResolutionReadsZero: the gap KL(q‖p(z|x,θ)) that an M-step
// opens near convergence can be smaller than what the arithmetic resolves
// at its scale (N·|log p|: each mean is summed over the N points, so its
// rounding reaches N·ε·|log p|); the metric is then Negligible and the note
// says ≈ 0, not the digits (the default dashboard's pane, seed 2 at step 4,
// read kl 3.428e-13 when init=kmeans was the default), while the gap of an
// earlier M-step keeps its value.
func TestGapBelowResolutionReadsZero(t *testing.T) {
	s := simtest.Build(t, EMGMM, map[string]string{"init": "kmeans"}, 2, nil)
	gap := func(step int) (sims.Metric, string) {
		simtest.Run(t, s, step-s.Frame().Step)
		f := s.Frame()
		var kl sims.Metric
		for _, m := range f.Metrics {
			if m.Name == "kl" {
				kl = m
			}
		}
		for _, line := range f.Text {
			if strings.HasPrefix(line, "per point:") {
				return kl, line
			}
		}
		t.Fatalf("step %d: no per-point note in %q", step, f.Text)
		return kl, ""
	}
	if kl, note := gap(2); kl.Value < 1e-10 || kl.Negligible() || strings.Contains(note, "≈ 0") {
		t.Errorf("first M-step: kl %g (scale %g), note %q: a gap the arithmetic resolves", kl.Value, kl.Scale, note)
	}
	if kl, note := gap(4); kl.Value == 0 || !kl.Negligible() || !strings.Contains(note, "KL(q‖p) ≈ 0 ") {
		t.Errorf("second M-step: kl %g (scale %g), note %q: want rounding, ≈ 0", kl.Value, kl.Scale, note)
	}
}

// TestTable checks that a --data table is used: its columns but the one
// named label become the points, whatever n and clusters say.
func TestTable(t *testing.T) {
	sample, err := mixture.Blobs(rand.New(rand.NewPCG(9, 9)), 120, 2, mixture.DefaultSep)
	if err != nil {
		t.Fatal(err)
	}
	tab := &sims.Table{Name: "test.csv", Columns: []string{"u", "v", "label"}}
	for i, p := range sample.Points {
		tab.Rows = append(tab.Rows, []float64{p[0], p[1], float64(sample.Labels[i])})
	}
	s := simtest.Build(t, EMGMM, map[string]string{"k": "2", "n": "5000"}, 1, tab)
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
	simtest.RunToEnd(t, s, 2000)
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
	s := simtest.Build(t, EMGMM, nil, 3, nil)
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
	a, b := simtest.Build(t, EMGMM, nil, 5, nil), simtest.Build(t, EMGMM, nil, 5, nil)
	simtest.RunToEnd(t, a, 2000)
	simtest.RunToEnd(t, b, 2000)
	if !reflect.DeepEqual(a.Result(), b.Result()) {
		t.Fatal("two runs with seed 5 differ")
	}
	c := simtest.Build(t, EMGMM, map[string]string{"k": "5"}, 5, nil)
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
	s := simtest.Build(t, EMGMM, map[string]string{"k": "6", "reg": "0", "tol": "0"}, 1, tab)
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

// TestDemos checks that each demo presets its parameters, and that a value
// the user types wins over the preset.
func TestDemos(t *testing.T) {
	cases := []struct {
		demo string
		want map[string]string
	}{
		{"fit", map[string]string{"k": "3", "n": "400", "reg": "1e-06", "cov": "full"}},
		{"collapse", map[string]string{"k": "6", "n": "30", "reg": "0", "cov": "full"}},
		{"kmeans-limit", map[string]string{"k": "3", "n": "400", "cov": "spherical-fixed"}},
	}
	for _, c := range cases {
		v, err := sims.Resolve(EMGMM.Params, map[string]string{"demo": c.demo})
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range c.want {
			if got := v.Text(name); got != want {
				t.Errorf("demo=%s: %s = %s, want %s", c.demo, name, got, want)
			}
		}
	}
	v, err := sims.Resolve(EMGMM.Params, map[string]string{"demo": "collapse", "reg": "0.001"})
	if err != nil || emReg.Get(v) != 0.001 {
		t.Errorf("a typed reg lost to the demo's: %v, %v", emReg.Get(v), err)
	}
}

// TestStaircase checks the ELBO charts frame by frame (item B3): the
// staircase's last points are the log p and L(q, θ) of the metrics; after an
// E-step the gap KL = log p − L is zero (eq 2.34); after an M-step
// log p(θ_old) ≤ L(q, θ_new) ≤ log p(θ_new) (2.36–2.37), and the gap chart's
// KL is at most its rise of log p (Δ log p = (L − log p_old) + KL ≥ KL). Slack
// 1e-9 relative to |log p|, as in the engine's tests; it runs for both
// covariance modes.
func TestStaircase(t *testing.T) {
	for _, set := range []map[string]string{{"k": "4"}, {"demo": "kmeans-limit", "eps": "0.3"}} {
		s := simtest.Build(t, EMGMM, set, 4, nil)
		prev, _ := s.Frame().Metric("loglik")
		for i := 1; i <= 40; i++ {
			if err := s.Step(); errors.Is(err, sims.ErrConverged) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			f := s.Frame()
			ll, _ := f.Metric("loglik")
			elbo, _ := f.Metric("elbo")
			kl, _ := f.Metric("kl")
			slack := 1e-9 * math.Abs(ll)
			lp, _ := f.Series("log p(x|θ)")
			lq, _ := f.Series("L(q,θ)")
			if len(lp.Y) != i || lp.Y[i-1] != ll || lq.Y[i-1] != elbo {
				t.Fatalf("%v step %d: staircase has %d points ending (%v, %v); metrics (%v, %v)", set, i, len(lp.Y), lp.Y[len(lp.Y)-1], lq.Y[len(lq.Y)-1], ll, elbo)
			}
			if math.Abs(kl-(ll-elbo)) > slack || kl < -slack {
				t.Fatalf("%v step %d: kl %v, log p − L = %v", set, i, kl, ll-elbo)
			}
			if i%2 == 1 {
				if math.Abs(kl) > slack {
					t.Fatalf("%v step %d (E): KL = %v, want 0", set, i, kl)
				}
				continue
			}
			if elbo < prev-slack || ll < elbo-slack {
				t.Fatalf("%v step %d (M): log p_old %v, L %v, log p_new %v", set, i, prev, elbo, ll)
			}
			rise, _ := f.Series("Δ log p")
			gap, _ := f.Series("KL(q‖p(z|x,θ))")
			if n := len(gap.Y); n != i/2 || gap.Y[n-1] != kl || math.Abs(rise.Y[n-1]-(ll-prev)) > slack || gap.Y[n-1] > rise.Y[n-1]+slack {
				t.Fatalf("%v step %d: gap chart %v ≤ %v, want KL %v ≤ Δ %v", set, i, gap.Y, rise.Y, kl, ll-prev)
			}
			prev = ll
		}
	}
}

// TestRestarts: with restarts = 4 the runs follow one another, each from its
// own start, and the sim ends on the best: its log-likelihood is the largest
// of the runs', and the Result says which it was.
func TestRestarts(t *testing.T) {
	s := simtest.Build(t, EMGMM, map[string]string{"restarts": "4", "k": "4", "sep": "2"}, 3, nil)
	simtest.RunToEnd(t, s, 20000)
	r := s.Result()
	finals := r["run_logliks"].([]float64)
	if len(finals) != 4 || r["restarts"].(int) != 4 {
		t.Fatalf("%d runs of %v", len(finals), r["restarts"])
	}
	best := r["best_run"].(int) - 1
	for i, l := range finals {
		if l > finals[best] {
			t.Errorf("run %d has log p %v > best run %d's %v", i+1, l, best+1, finals[best])
		}
	}
	if ll, _ := s.Frame().Metric("loglik"); ll != finals[best] || r["loglik"].(float64) != ll {
		t.Errorf("final loglik %v, best %v", ll, finals[best])
	}
	distinct := map[float64]bool{}
	for _, l := range finals {
		distinct[l] = true
	}
	if len(distinct) < 2 {
		t.Errorf("four restarts all reached %v: the starts are not distinct", finals)
	}
	if _, ok := s.Frame().Series("run 1"); !ok {
		if _, ok := s.Frame().Series("run 1 (best)"); !ok {
			t.Error("no per-run log-likelihood curve")
		}
	}
}

// TestKMeansLimit: in the εI limit (item B4) the pane's agreement with the
// k-means run from the same start is 1 at every E-step, and the
// responsibilities are hard; at a large ε they are soft.
func TestKMeansLimit(t *testing.T) {
	for _, c := range []struct {
		eps          string
		hardAtLeast  float64
		hardAtMost   float64
		agreeAtLeast float64
	}{{"1e-5", 0.9999, 1, 1}, {"2", 0, 0.9, 0}} {
		s := simtest.Build(t, EMGMM, map[string]string{"demo": "kmeans-limit", "eps": c.eps}, 2, nil)
		for i := 0; i < 400; i++ {
			err := s.Step()
			if errors.Is(err, sims.ErrConverged) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			f := s.Frame()
			agree, ok1 := f.Metric("agree")
			hard, ok2 := f.Metric("hard")
			if !ok1 || !ok2 {
				t.Fatalf("eps=%s: no agree/hard metrics", c.eps)
			}
			if agree < c.agreeAtLeast || hard < c.hardAtLeast {
				t.Fatalf("eps=%s step %d: agree %v, hard %v", c.eps, i, agree, hard)
			}
			if i > 4 && hard > c.hardAtMost {
				t.Fatalf("eps=%s step %d: hard %v, want ≤ %v", c.eps, i, hard, c.hardAtMost)
			}
		}
		r := s.Result()
		if r["cov"] != "spherical-fixed" {
			t.Errorf("result cov %v", r["cov"])
		}
		for _, w := range r["weights"].([]float64) {
			if w != 1.0/3 {
				t.Errorf("weights %v, want fixed 1/3", r["weights"])
			}
		}
	}
}

// TestCollapseDemo is item B5's demo: with demo=collapse (reg = 0) the
// log-likelihood climbs monotonically until a component collapses; the run
// then ends as diverged, and the last frame names the collapsed component
// and the remedy. With reg = 1e-3 the same start stays finite.
func TestCollapseDemo(t *testing.T) {
	s := simtest.Build(t, EMGMM, map[string]string{"demo": "collapse"}, 1, nil)
	var err error
	for i := 0; i < 2000 && err == nil; i++ {
		err = s.Step()
	}
	if !errors.Is(err, sims.ErrDiverged) {
		t.Fatalf("demo=collapse: got %v, want ErrDiverged", err)
	}
	f := s.Frame()
	if cc := f.Charts[0].(sims.CanvasChart); !strings.Contains(cc.Title, "collapsed") {
		t.Errorf("canvas title %q does not say collapsed", cc.Title)
	}
	text := strings.Join(f.Text, "\n")
	if !strings.Contains(text, "reg > 0") || !strings.Contains(text, "Remark 2.10") {
		t.Errorf("no remedy in the notes: %q", text)
	}
	r := s.Result()
	if _, ok := r["collapsed_component"]; !ok {
		t.Errorf("result has no collapsed_component: %v", r)
	}
	tr := r["loglik_trace"].([]float64)
	for i := 1; i < len(tr); i++ {
		if tr[i] < tr[i-1] {
			t.Fatalf("log-likelihood fell at %d on the way to the collapse: %v", i, tr)
		}
	}
	if len(tr) < 3 || tr[len(tr)-1]-tr[0] < 1 {
		t.Errorf("log-likelihood trace %v: want a climb of more than a nat per point", tr)
	}

	s = simtest.Build(t, EMGMM, map[string]string{"demo": "collapse", "reg": "1e-3"}, 1, nil)
	simtest.RunToEnd(t, s, 5000)
}

func TestKMeansSim(t *testing.T) {
	if _, err := sims.NewCatalog(KMeans); err != nil {
		t.Fatal(err)
	}
	s, err := KMeans.Build(sims.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	prev := math.Inf(1)
	steps := 0
	for ; steps < 1000; steps++ {
		err := s.Step()
		if errors.Is(err, sims.ErrConverged) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		f := s.Frame()
		j, ok := f.Metric("J")
		if !ok || j > prev*(1+1e-12) {
			t.Fatalf("step %d: J %v after %v", steps, j, prev)
		}
		prev = j
		if f.Step != steps+1 {
			t.Fatalf("Frame.Step %d after %d steps", f.Step, steps+1)
		}
	}
	if steps == 1000 {
		t.Fatal("kmeans did not converge")
	}
	f := s.Frame()
	if !strings.Contains(strings.Join(f.Text, "\n"), "converged") {
		t.Errorf("notes do not say converged: %q", f.Text)
	}
	r := s.Result()
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	if r["inertia"].(float64) != prev || len(r["centers"].([][]float64)) != 3 {
		t.Errorf("result %v", r)
	}
	// The same seed and data as em-gmm: identical points.
	e := simtest.Build(t, EMGMM, nil, 1, nil)
	pa := f.Charts[0].(sims.CanvasChart).Points[0]
	pe := e.Frame().Charts[0].(sims.CanvasChart).Points[0]
	if !reflect.DeepEqual(pa.X, pe.X) {
		t.Error("kmeans and em-gmm draw different data from the same seed")
	}
	// Bad k.
	v, _ := sims.Resolve(KMeans.Params, nil)
	few := &sims.Table{Name: "few.csv", Columns: []string{"x", "y"}, Rows: [][]float64{{1, 2}, {2, 1}}}
	var pe2 *algo.ParamError
	if _, err := KMeans.Build(sims.Config{Values: v, Data: few}); !errors.As(err, &pe2) || pe2.Name != "k" {
		t.Errorf("k = 3 on 2 rows: got %v", err)
	}
}

// TestKMeansRestarts: with restarts = R the pane replays the k-means++
// start of least final J among R (scikit-learn's n_init), and its run ends
// at that J, no worse than the single start of restarts = 1; the start and
// the count are in the notes and the result. A seed where the first start
// lands in a worse optimum shows the difference.
func TestKMeansRestarts(t *testing.T) {
	set := map[string]string{"clusters": "5", "k": "5", "sep": "3"}
	worse := 0
	for seed := uint64(1); seed <= 12; seed++ {
		one := simtest.Build(t, KMeans, map[string]string{"clusters": "5", "k": "5", "sep": "3", "restarts": "1"}, seed, nil)
		simtest.RunToEnd(t, one, 1000)
		many := simtest.Build(t, KMeans, set, seed, nil)
		simtest.RunToEnd(t, many, 1000)
		j1, j10 := one.(*kmSim).km.J(), many.(*kmSim).km.J()
		ks := many.(*kmSim)
		if math.Abs(j10-ks.bestJ) > 1e-9*j10 {
			t.Errorf("seed %d: the replayed start ends at J = %v, the best of the restarts was %v", seed, j10, ks.bestJ)
		}
		if j10 > j1*(1+1e-12) {
			t.Errorf("seed %d: best of 10 J = %v above the first start's %v", seed, j10, j1)
		}
		if j10 < j1*(1-1e-6) {
			worse++
		}
		if !strings.Contains(strings.Join(many.Frame().Text, "\n"), "of 10 k-means++ starts") {
			t.Errorf("seed %d: the notes do not say which start is shown: %q", seed, many.Frame().Text)
		}
	}
	if worse == 0 {
		t.Error("no seed where a single start is worse than the best of 10: the test data are too easy")
	}
	t.Logf("a single k-means++ start was worse than the best of 10 for %d of 12 seeds", worse)
}

// TestColumns: columns=a,b picks two columns of --data that em-gmm and
// kmeans cluster, drawn as they are, and says which when the table has
// more; by default every column is clustered but one named label; a bad
// list is refused with the table's columns.
func TestColumns(t *testing.T) {
	tab := &sims.Table{Name: "wide.csv", Columns: []string{"a", "b", "c"}}
	for i := range 30 {
		x := float64(i)
		tab.Rows = append(tab.Rows, []float64{x, -x, x * x})
	}
	for _, spec := range []*sims.Spec{EMGMM, KMeans} {
		s := simtest.Build(t, spec, map[string]string{"columns": "c,A", "k": "2"}, 1, tab)
		cc := s.Frame().Charts[0].(sims.CanvasChart)
		if cc.XLabel != "c" || cc.YLabel != "a" || cc.Points[0].X[3] != 9 || cc.Points[0].Y[3] != 3 {
			t.Errorf("%s columns=c,A: axes %q, %q, point 3 (%v, %v)", spec.Name, cc.XLabel, cc.YLabel, cc.Points[0].X[3], cc.Points[0].Y[3])
		}
		if text := strings.Join(s.Frame().Text, "\n"); !strings.Contains(text, "clustering columns c and a of the 3") {
			t.Errorf("%s: columns=c,A of a 3-column table does not say which it clusters: %q", spec.Name, text)
		}
		s = simtest.Build(t, spec, map[string]string{"k": "2"}, 1, tab)
		if text := strings.Join(s.Frame().Text, "\n"); !strings.Contains(text, "clustering 3 columns of wide.csv in 3-D") {
			t.Errorf("%s: a 3-column table does not say it is clustered in 3-D: %q", spec.Name, text)
		}
		labelled := &sims.Table{Name: "labelled.csv", Columns: []string{"a", "b", "c", "label"}}
		for _, r := range tab.Rows {
			labelled.Rows = append(labelled.Rows, append(append([]float64(nil), r...), 1))
		}
		s = simtest.Build(t, spec, map[string]string{"k": "2"}, 1, labelled)
		if text := strings.Join(s.Frame().Text, "\n"); !strings.Contains(text, "clustering 3 columns of labelled.csv in 3-D (a, b, c)") {
			t.Errorf("%s: columns=all should leave the label column out: %q", spec.Name, text)
		}
		for _, bad := range []string{"a", "a,z", "a,a", "a,b,A"} {
			if _, err := simtest.BuildErr(spec, map[string]string{"columns": bad}, 1, tab); err == nil || !strings.Contains(err.Error(), "columns") {
				t.Errorf("%s columns=%s: %v", spec.Name, bad, err)
			}
		}
	}
}

// hidden is a --data table of four clusters in 4-D, N(6e_j, 0.5²I) with
// 100 points each, and its labels: clusters 3 and 4 coincide in columns 1
// and 2, so only all four columns tell them apart.
func hidden() (*sims.Table, []int) {
	rng := rand.New(rand.NewPCG(4, 4))
	tab := &sims.Table{Name: "hidden.csv", Columns: []string{"p", "q", "r", "s"}}
	var labels []int
	for i := range 400 {
		j := i % 4
		row := make([]float64, 4)
		for a := range row {
			row[a] = 0.5 * rng.NormFloat64()
		}
		row[j] += 6 // clusters 3 and 4 (j = 2, 3) are at the origin in p, q
		tab.Rows, labels = append(tab.Rows, row), append(labels, j)
	}
	return tab, labels
}

// purity is the fraction of points whose class is the most common label
// of its class: 1 when the classes are the labels up to a relabelling.
func purity(classes, labels []int) float64 {
	count := map[[2]int]int{}
	for i, c := range classes {
		count[[2]int{c, labels[i]}]++
	}
	best := map[int]int{}
	for k, n := range count {
		best[k[0]] = max(best[k[0]], n)
	}
	sum := 0
	for _, n := range best {
		sum += n
	}
	return float64(sum) / float64(len(classes))
}

// TestDataInDimensions is issue 13.15: em-gmm and kmeans cluster every
// column of --data, in d dimensions, and draw the points on the first two
// principal components. On hidden(), whose clusters 3 and 4 coincide in
// the first two columns, the 4-D fits find all four clusters (purity 1)
// where a fit of two columns cannot (purity ≤ 0.8: two equal clusters
// split at best by chance); the pane's points are the projections
// pca.Fit gives, its axes are PC1 and PC2 with their shares of the
// variance, and the result's means and centres have four coordinates.
func TestDataInDimensions(t *testing.T) {
	tab, labels := hidden()
	cols := make([][]float64, 4)
	for a := range cols {
		for _, r := range tab.Rows {
			cols[a] = append(cols[a], r[a])
		}
	}
	plane, err := pca.Fit(cols)
	if err != nil {
		t.Fatal(err)
	}
	px, py := plane.Points(cols)
	for _, spec := range []*sims.Spec{EMGMM, KMeans} {
		t.Run(spec.Name, func(t *testing.T) {
			s := simtest.Build(t, spec, map[string]string{"k": "4"}, 1, tab)
			simtest.RunToEnd(t, s, 3000)
			cc := s.Frame().Charts[0].(sims.CanvasChart)
			if p := purity(cc.Points[0].Classes, labels); p != 1 {
				t.Errorf("4-D fit: purity %v, want 1", p)
			}
			for i := range px {
				if cc.Points[0].X[i] != px[i] || cc.Points[0].Y[i] != py[i] {
					t.Fatalf("point %d drawn at (%v, %v), its projection is (%v, %v)", i, cc.Points[0].X[i], cc.Points[0].Y[i], px[i], py[i])
				}
			}
			if !strings.HasPrefix(cc.XLabel, "PC1 (") || !strings.HasPrefix(cc.YLabel, "PC2 (") {
				t.Errorf("axes %q, %q", cc.XLabel, cc.YLabel)
			}
			key := "means"
			if spec == KMeans {
				key = "centers"
			}
			if m := s.Result()[key].([][]float64); len(m) != 4 || len(m[0]) != 4 {
				t.Errorf("result %s: %v, want 4 of 4 coordinates", key, m)
			}
			two := simtest.Build(t, spec, map[string]string{"k": "4", "columns": "p,q"}, 1, tab)
			simtest.RunToEnd(t, two, 3000)
			if p := purity(two.Frame().Charts[0].(sims.CanvasChart).Points[0].Classes, labels); p > 0.8 {
				t.Errorf("fit of columns p, q: purity %v, want ≤ 0.8 (clusters 3 and 4 coincide there)", p)
			}
		})
	}
}
