package linearsim

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func table(t *testing.T, csv string) *sims.Table {
	t.Helper()
	tb, err := sims.ReadCSV(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	tb.Name = "test.csv"
	return tb
}

// TestPerceptronPanes: the notes' OR run ends with the catalogue's result
// and its mistakes stay under the drawn bound 27; XOR's pane reports the
// period-4 cycle; spam's classifies the test e-mail as spam.
func TestPerceptronPanes(t *testing.T) {
	s := simtest.Build(t, Perceptron, map[string]string{"data": "or"}, 7, nil)
	if err := simtest.RunErr(s, 1000); !errors.Is(err, algo.ErrConverged) {
		t.Fatal(err)
	}
	r := s.Result()
	if !floats.Equal(r["w"].([]float64), []float64{2, 2}) || r["b"] != -1.0 || r["mistakes"] != 9 || math.Abs(r["bound"].(float64)-27) > 1e-6 {
		t.Errorf("OR result %v", r)
	}
	f := s.Frame()
	m, _ := f.Series("mistakes M")
	b, ok := f.Series("(C/γ)² = 27")
	if !ok || len(b.Y) != len(m.Y) || floats.Max(m.Y) > b.Y[0] {
		t.Errorf("mistakes %v against bound %v", m.Y, b.Y)
	}
	if !strings.Contains(simtest.Text(f), "converged") {
		t.Errorf("notes %q", simtest.Text(f))
	}

	x := simtest.Build(t, Perceptron, map[string]string{"data": "xor"}, 7, nil)
	simtest.RunErr(x, 40)
	if tx := simtest.Text(x.Frame()); !strings.Contains(tx, "period 4") || !strings.Contains(tx, "not linearly separable") {
		t.Errorf("XOR notes %q", tx)
	}
	if x.Result()["cycle_period"] != 4 {
		t.Errorf("XOR result %v", x.Result())
	}

	sp := simtest.Build(t, Perceptron, map[string]string{"data": "spam"}, 7, nil)
	simtest.RunErr(sp, 100)
	if r := sp.Result(); r["mistakes"] != 4 || !strings.Contains(simtest.Text(sp.Frame()), "score 2 → spam (+)") {
		t.Errorf("spam %v %q", r, simtest.Text(sp.Frame()))
	}
}

// TestPerceptronMulticlass: four blobs under both schemes: the regions
// are class indices, the perceptron bars are c or C(c,2), and the training
// accuracy reaches one with one-vs-one (balanced, separable pairs) and 0.95
// with one-vs-all ("k vs the rest" need not be separable).
func TestPerceptronMulticlass(t *testing.T) {
	for scheme, bars := range map[string]int{"ova": 4, "ovo": 6} {
		s := simtest.Build(t, Perceptron, map[string]string{"data": "blobs", "classes": "4", "multiclass": scheme, "n": "80"}, 7, nil)
		simtest.RunErr(s, 20000)
		f := s.Frame()
		if acc, _ := f.Metric("accuracy"); acc < 0.95 || (scheme == "ovo" && acc != 1) {
			t.Errorf("%s: accuracy %v", scheme, acc)
		}
		var found bool
		for _, c := range f.Charts {
			switch c := c.(type) {
			case sims.CanvasChart:
				for _, z := range c.Heat.Z {
					if z != math.Trunc(z) || z < 0 || z > 3 {
						t.Fatalf("%s: region value %v", scheme, z)
					}
				}
				found = c.Heat.Scale == sims.Categorical
			case sims.BarChart:
				if len(c.Bars) != bars {
					t.Errorf("%s: %d perceptron bars, want %d", scheme, len(c.Bars), bars)
				}
			}
		}
		if !found {
			t.Errorf("%s: no categorical region canvas", scheme)
		}
	}
}

// TestPerceptronCSV: a CSV with ±1 labels in a "label" column.
func TestPerceptronCSV(t *testing.T) {
	tb := table(t, "label,a,b\n-1,0,0\n1,1,0\n1,0,1\n1,1,1\n")
	s := simtest.Build(t, Perceptron, nil, 7, tb)
	simtest.RunErr(s, 1000)
	if r := s.Result(); r["mistakes"] != 9 || r["b"] != -1.0 {
		t.Errorf("OR from CSV: %v", r)
	}
}

// TestLinregPanes: the ε example solves to (−2/ε, 1); GD reaches the closed
// form; with a repeated column the pane reports the rank deficiency.
func TestLinregPanes(t *testing.T) {
	s := simtest.Build(t, Linreg, map[string]string{"data": "epsilon", "method": "normal"}, 7, nil)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(); !errors.Is(err, algo.ErrConverged) {
		t.Errorf("after the solve: %v", err)
	}
	r := s.Result()
	if w := r["w"].([]float64); math.Abs(w[0]+20) > 1e-9 || math.Abs(w[1]-1) > 1e-12 {
		t.Errorf("ε = 0.1: w = %v, want (−20, 1)", w)
	}
	if !strings.Contains(simtest.Text(s.Frame()), "(−2/ε, 1) = (-20, 1)") {
		t.Errorf("notes %q", simtest.Text(s.Frame()))
	}
	g := simtest.Build(t, Linreg, map[string]string{"data": "linear", "lambda": "0.1"}, 7, nil)
	if err := simtest.RunErr(g, 20000); !errors.Is(err, algo.ErrConverged) {
		t.Fatal(err)
	}
	gr := g.Result()
	if !floats.EqualApprox(gr["w"].([]float64), gr["closed_form_w"].([]float64), 1e-8) ||
		math.Abs(gr["b"].(float64)-gr["closed_form_b"].(float64)) > 1e-8 {
		t.Errorf("GD %v vs closed form %v", gr["w"], gr["closed_form_w"])
	}
	f := g.Frame()
	// The SVD view (Prop 3.5, B5): bars in pairs σᵢ², σᵢ² + nλ (nλ = 60·0.1),
	// decreasing, whose extreme ratio is the condition number reported.
	bc := f.Charts[4].(sims.BarChart)
	if len(bc.Bars) != 10 {
		t.Fatalf("%d spectrum bars, want 2·d = 10", len(bc.Bars))
	}
	for i := 0; i < len(bc.Bars); i += 2 {
		if math.Abs(bc.Bars[i+1].Value-bc.Bars[i].Value-6) > 1e-9 || (i > 0 && bc.Bars[i].Value > bc.Bars[i-2].Value) {
			t.Errorf("bars %v", bc.Bars)
		}
	}
	if c := bc.Bars[1].Value / bc.Bars[9].Value; math.Abs(c-simtest.Metric(t, f, "cond")) > 1e-9*c {
		t.Errorf("(σ₁² + nλ)/(σ₅² + nλ) = %v, cond %v", c, simtest.Metric(t, f, "cond"))
	}
	lc := f.Charts[1].(sims.LineChart)
	loss, opt := lc.Series[0], lc.Series[1]
	if !opt.Bound || !strings.HasPrefix(opt.Name, "closed form f*") || len(opt.Y) != len(loss.Y) ||
		math.Abs(loss.Y[len(loss.Y)-1]-opt.Y[0]) > 1e-12*opt.Y[0] || floats.Min(loss.Y) < opt.Y[0]*(1-1e-12) {
		t.Errorf("loss %v ends below the optimum %v", loss.Y[len(loss.Y)-1], opt.Y)
	}
	tb := table(t, "a,b,c,y\n1,2,4,1\n2,1,2,3\n3,5,10,2\n4,3,6,5\n5,8,16,4\n")
	d := simtest.Build(t, Linreg, map[string]string{"method": "normal"}, 7, tb)
	d.Step()
	if !strings.Contains(simtest.Text(d.Frame()), "rank deficient") || d.Result()["rank_deficient"] != true {
		t.Errorf("collinear columns: %q", simtest.Text(d.Frame()))
	}
}

// TestLogregPanes: on overlapping classes GD stays under Theorem 8.5's
// drawn bound and the probability field lies in [0, 1] with the ½ line; on
// separable data the pane says there is no minimiser and ‖w‖ keeps growing.
func TestLogregPanes(t *testing.T) {
	s := simtest.Build(t, Logreg, nil, 7, nil)
	simtest.RunErr(s, 500)
	f := s.Frame()
	gap, _ := f.Series("f − f*")
	bound, ok := f.Series("Thm 8.5")
	if !ok || len(bound.Y) != len(gap.Y) {
		t.Fatal("no Theorem 8.5 bound")
	}
	for k := range gap.Y {
		if gap.Y[k] > bound.Y[k]*(1+1e-9) {
			t.Fatalf("step %d: gap %v > bound %v", k, gap.Y[k], bound.Y[k])
		}
	}
	c := f.Charts[0].(sims.CanvasChart)
	if c.Contours == nil || c.Contours.Levels != 2 || c.Heat.Scale != sims.Diverging {
		t.Errorf("probability canvas %+v", c)
	}
	for _, p := range c.Heat.Z {
		if !(p >= 0 && p <= 1) {
			t.Fatalf("p = %v", p)
		}
	}
	sep := simtest.Build(t, Logreg, map[string]string{"data": "separable"}, 7, nil)
	simtest.RunErr(sep, 1000)
	sf := sep.Frame()
	wn, _ := sf.Series("‖w‖")
	for k := 1; k < len(wn.Y); k++ {
		if wn.Y[k] < wn.Y[k-1] {
			t.Fatalf("‖w‖ fell at %d", k)
		}
	}
	if tx := simtest.Text(sf); !strings.Contains(tx, "no minimiser") || !strings.Contains(tx, "per decade") {
		t.Errorf("separable notes %q", tx)
	}
	if r := sep.Result(); r["accuracy"] != 1.0 || r["separable"] != "separable" {
		t.Errorf("separable result %v", r)
	}
	nw := simtest.Build(t, Logreg, map[string]string{"method": "newton"}, 7, nil)
	if err := simtest.RunErr(nw, 100); !errors.Is(err, algo.ErrConverged) {
		t.Errorf("newton: %v", err)
	}
	if g, _ := nw.Frame().Metric("grad_norm"); g > 1e-8 {
		t.Errorf("newton ended with ‖∇f‖ = %v", g)
	}
	sgd := simtest.Build(t, Logreg, map[string]string{"method": "sgd", "schedule": "1/k"}, 7, nil)
	simtest.RunErr(sgd, 3000)
	if acc, _ := sgd.Frame().Metric("accuracy"); acc < 0.8 {
		t.Errorf("sgd accuracy %v", acc)
	}
}

// TestLogregReference: the reference optimum is found on first need, not
// at set-up; a Newton run is its own reference (continuing it gives the
// fresh start's f* bit for bit); with λ = 0 Newton certifies separability
// either way (the xor table has a minimiser, separable data have none) and
// with λ > 0 separability is not asked.
func TestLogregReference(t *testing.T) {
	fstar := func(set map[string]string, steps int) any {
		s := simtest.Build(t, Logreg, set, 7, nil)
		simtest.RunErr(s, steps)
		return s.Result()["f_star"]
	}
	newton := map[string]string{"method": "newton", "lambda": "0.01", "n": "500"}
	fresh, late := fstar(newton, 0), fstar(newton, 4)
	if fresh == nil || fresh != late {
		t.Errorf("f* from a fresh start %v, from the run's step 4 %v", fresh, late)
	}
	if gd := fstar(map[string]string{"lambda": "0.01", "n": "500"}, 3); math.Abs(gd.(float64)-fresh.(float64)) > 1e-14 {
		t.Errorf("f* for gd %v, for newton %v", gd, fresh)
	}
	for _, c := range []struct {
		set  map[string]string
		want any
	}{
		{map[string]string{"data": "xor"}, "not separable"},
		{map[string]string{"data": "separable", "method": "newton"}, "separable"},
		{map[string]string{"data": "or", "lambda": "0.5"}, nil},
	} {
		r := simtest.Build(t, Logreg, c.set, 7, nil).Result()
		if r["separable"] != c.want {
			t.Errorf("%v: separable = %v, want %v", c.set, r["separable"], c.want)
		}
		if _, ok := r["f_star"]; ok != (c.want != "separable") {
			t.Errorf("%v: f* %v", c.set, r["f_star"])
		}
	}
}

// TestSoftmaxPanes: the regions hold class indices, the confidence lines
// lie in [1/c, 1], the gap to the L-BFGS optimum closes, and the result has
// one weight row per class.
func TestSoftmaxPanes(t *testing.T) {
	s := simtest.Build(t, Softmax, nil, 7, nil)
	if err := simtest.RunErr(s, 5000); err != nil && !errors.Is(err, algo.ErrConverged) {
		t.Fatal(err)
	}
	f := s.Frame()
	c := f.Charts[0].(sims.CanvasChart)
	for i, z := range c.Heat.Z {
		if z != math.Trunc(z) || z < 0 || z > 2 {
			t.Fatalf("class %v", z)
		}
		if p := c.Contours.Z[i]; p < 1.0/3-1e-12 || p > 1 {
			t.Fatalf("confidence %v", p)
		}
	}
	gap, _ := f.Series("f − f*")
	if last := gap.Y[len(gap.Y)-1]; last > 1e-6 {
		t.Errorf("gap to the L-BFGS optimum %v after 5000 steps", last)
	}
	r := s.Result()
	if w := r["W"].([][]float64); len(w) != 3 || len(w[0]) != 2 || len(r["b"].([]float64)) != 3 {
		t.Errorf("result %v", r)
	}
	if !strings.Contains(simtest.Text(f), "level lines: the confidence") {
		t.Errorf("notes %q", simtest.Text(f))
	}
}

// TestLossesPane: the sweep ends on p = 0.7 with the catalogue's
// minimisers and Theorem 6.3's verdicts.
func TestLossesPane(t *testing.T) {
	s := simtest.Build(t, Losses, nil, 7, nil)
	if err := simtest.RunErr(s, 1000); !errors.Is(err, algo.ErrConverged) {
		t.Fatal(err)
	}
	r := s.Result()
	am := r["argmin"].(map[string]float64)
	want := map[string]float64{"hinge": 1, "logistic": 0.8473, "squared": 0.4, "exponential": 0.4236, "perceptron": 0}
	for name, w := range want {
		if math.Abs(am[name]-w) > 1e-4 {
			t.Errorf("%s: %v, want %v", name, am[name], w)
		}
	}
	cal := r["calibrated"].(map[string]bool)
	if !cal["hinge"] || !cal["logistic"] || cal["perceptron"] {
		t.Errorf("calibrated %v", cal)
	}
	if p, _ := s.Frame().Metric("p"); p != 0.7 {
		t.Errorf("p = %v", p)
	}
	if tx := simtest.Text(s.Frame()); !strings.Contains(tx, "agrees") {
		t.Errorf("notes %q", tx)
	}
}

// TestBadParameters: values that only the data can refuse are errors that
// name the parameter.
func TestBadParameters(t *testing.T) {
	for _, tt := range []struct {
		spec *sims.Spec
		set  map[string]string
		name string
	}{
		{Perceptron, map[string]string{"data": "blobs", "n": "5", "classes": "8"}, "n"},
		{Logreg, map[string]string{"method": "sgd", "batch": "500"}, "batch"},
		{Softmax, map[string]string{"method": "sgd", "batch": "400"}, "batch"},
	} {
		_, err := simtest.BuildErr(tt.spec, tt.set, 7, nil)
		var pe *algo.ParamError
		if !errors.As(err, &pe) || pe.Name != tt.name {
			t.Errorf("%s %v: %v, want a ParamError naming %s", tt.spec.Name, tt.set, err, tt.name)
		}
	}
	if _, err := simtest.BuildErr(Logreg, nil, 7, table(t, "a,label\n1,0\n2,1\n3,2\n")); err == nil || !strings.Contains(err.Error(), "two classes") {
		t.Errorf("3 classes to logreg: %v", err)
	}
}

// TestFramesAreImmutableAndResultsEncode: a published frame does not change
// as the sim steps on; every result encodes as JSON.
func TestFramesAreImmutableAndResultsEncode(t *testing.T) {
	for _, spec := range []*sims.Spec{Perceptron, Linreg, Interp, Logreg, Softmax, Logits, Losses} {
		s := simtest.Build(t, spec, nil, 7, nil)
		s.Step()
		f := s.Frame()
		before, _ := json.Marshal(f.Charts)
		simtest.RunErr(s, 50)
		after, _ := json.Marshal(f.Charts)
		if string(before) != string(after) {
			t.Errorf("%s: a published frame changed", spec.Name)
		}
		if _, err := json.Marshal(s.Result()); err != nil {
			t.Errorf("%s: %v", spec.Name, err)
		}
	}
}

// BenchmarkFrame: a Frame of each sim after 200 steps (target < 1 ms: the
// TUI asks for ~30 a second).
func BenchmarkFrame(b *testing.B) {
	for _, spec := range []*sims.Spec{Perceptron, Linreg, Interp, Logreg, Softmax, Logits, Losses} {
		b.Run(spec.Name, func(b *testing.B) {
			s := simtest.Build(b, spec, nil, 1, nil)
			simtest.RunErr(s, 200)
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Frame()
			}
		})
	}
}

// newtonSoftmaxOptimum is min f by Newton's method from 0, the Hessian by
// central differences of the gradient (step 1e-5) with a ridge of 1e-8
// (f is flat along a shift of every class's bias), until ‖∇f‖ < 1e-15 —
// f there is f* to rounding: a computation of f* that shares nothing with
// softmaxOptimum's L-BFGS and gradient descent but f and ∇f.
func newtonSoftmaxOptimum(sm *linear.Softmax) float64 {
	d := sm.Dim()
	x, g, gp, gm := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	for range 60 {
		if sm.Grad(g, x); floats.Norm(g, 2) < 1e-15 {
			break
		}
		h := mat.NewSymDense(d, nil)
		for j := range d {
			const step = 1e-5
			xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
			xp[j] += step
			xm[j] -= step
			sm.Grad(gp, xp)
			sm.Grad(gm, xm)
			for i := 0; i <= j; i++ {
				h.SetSym(i, j, (gp[i]-gm[i])/(2*step))
			}
			h.SetSym(j, j, h.At(j, j)+1e-8)
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			return math.NaN()
		}
		dx := mat.NewVecDense(d, nil)
		if err := ch.SolveVecTo(dx, mat.NewVecDense(d, g)); err != nil {
			return math.NaN()
		}
		floats.SubTo(x, x, dx.RawVector().Data)
	}
	return sm.Func(x)
}

// TestSoftmaxReferenceOptimum: the softmax pane's f* (the note's "gonum
// L-BFGS, then GD until ‖∇f‖²/2λ ≤ 1e-14·f") is within optimumTol·max(1, f)
// of f* by Newton's method (newtonSoftmaxOptimum), on the default blobs,
// with a weak ridge, and on rings and moons (1.7e-15 relative is the worst
// seen, on 2,000 points of 5 blobs).
func TestSoftmaxReferenceOptimum(t *testing.T) {
	for _, set := range []map[string]string{nil, {"lambda": "0.0001"}, {"data": "rings"}, {"data": "moons", "lambda": "0.0001"}} {
		s := simtest.Build(t, Softmax, set, 7, nil).(*softmaxSim)
		s.reference()
		want := newtonSoftmaxOptimum(s.sm)
		if !s.hasOpt || !(math.Abs(s.fstar-want) <= optimumTol*math.Max(1, math.Abs(want))) {
			t.Errorf("%v: f* = %.17g (found %v), Newton's %.17g", set, s.fstar, s.hasOpt, want)
		}
	}
}
