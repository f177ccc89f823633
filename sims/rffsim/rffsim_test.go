package rffsim

import (
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// maxSteps bounds a run to its end: an RFF run takes one step per feature,
// m_max ≤ 1024 of them here.
const maxSteps = 100_000

// TestRFFPane: the measured iid error follows the drawn m^−½ theory line,
// orthogonal features end below iid ones, and the chart's x axis spans
// log₂ m.
func TestRFFPane(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		s := simtest.Build(t, RFF, map[string]string{"m_max": "1024"}, seed, nil)
		simtest.RunToEnd(t, s, maxSteps)
		f := s.Frame()
		iid, _ := f.Series("iid")
		orf, _ := f.Series("orthogonal")
		th, ok := f.Series("iid theory ∝ m^−½")
		if !ok || len(th.Y) != len(iid.Y) || len(iid.Y) < 20 {
			t.Fatalf("series: %d iid, %d theory", len(iid.Y), len(th.Y))
		}
		for i := range iid.Y {
			if r := iid.Y[i] / th.Y[i]; r < 0.4 || r > 2.5 {
				t.Errorf("seed %d point %d: iid error %g vs theory %g", seed, i, iid.Y[i], th.Y[i])
			}
		}
		if last := len(iid.Y) - 1; !(orf.Y[last] < iid.Y[last]) {
			t.Errorf("seed %d: orthogonal %g not below iid %g at m = 1024", seed, orf.Y[last], iid.Y[last])
		}
		lc := f.Charts[0].(sims.LineChart)
		if lc.X0 != 2 || lc.X1 != 10 {
			t.Errorf("x axis %v…%v, want log₂ 4…log₂ 1024", lc.X0, lc.X1)
		}
	}
}

// TestRFFSoftmax: positive features never give a negative entry; both
// estimators follow their theory lines.
func TestRFFSoftmax(t *testing.T) {
	s := simtest.Build(t, RFF, map[string]string{"kernel": "softmax", "m_max": "512"}, 4, nil)
	simtest.RunToEnd(t, s, maxSteps)
	f := s.Frame()
	for _, name := range []string{"trig", "positive"} {
		got, _ := f.Series(name)
		th, ok := f.Series(name + " theory ∝ m^−½")
		if !ok {
			t.Fatalf("no %s theory", name)
		}
		last := len(got.Y) - 1
		if r := got.Y[last] / th.Y[last]; r < 0.4 || r > 2.5 {
			t.Errorf("%s: error %g vs theory %g", name, got.Y[last], th.Y[last])
		}
	}
	if simtest.Metric(t, f, "negatives_trig") < 0 {
		t.Error("negative count")
	}
}

// TestBochnerPane: the estimate ends within 4 standard errors of k, the
// band is 2σ/√m around k, and the frequency histogram's mass is at most 1.
func TestBochnerPane(t *testing.T) {
	for _, k := range []string{"rbf", "laplace"} {
		s := simtest.Build(t, Bochner, map[string]string{"kernel": k, "d": "3"}, 5, nil)
		for range 20000 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		f := s.Frame()
		if z := simtest.Metric(t, f, "z"); math.Abs(z) > 4 {
			t.Errorf("%s: z = %v", k, z)
		}
		up, _ := f.Series("k + 2σ/√m")
		lo, _ := f.Series("k − 2σ/√m")
		exact := simtest.Metric(t, f, "exact")
		last := len(up.Y) - 1
		if math.Abs((up.Y[last]+lo.Y[last])/2-exact) > 1e-12 {
			t.Errorf("%s: band not centred on k", k)
		}
		h := f.Charts[1].(sims.HistChart)
		mass := 0.0
		for _, d := range h.Density {
			mass += d * (h.Hi - h.Lo) / float64(len(h.Density))
		}
		if mass > 1+1e-9 || mass < 0.8 {
			t.Errorf("%s: histogram mass %v", k, mass)
		}
		if !strings.Contains(strings.Join(f.Text, " "), "unbiased") {
			t.Errorf("notes %q", f.Text)
		}
	}
}

// TestRFFData: --data rows are the points; too many rows are refused.
func TestRFFData(t *testing.T) {
	tab := &sims.Table{Name: "p.csv", Columns: []string{"a", "b", "label"}}
	for i := range 12 {
		tab.Rows = append(tab.Rows, []float64{float64(i), float64(i * i % 7), float64(i % 2)})
	}
	v, _ := sims.Resolve(RFF.Params, map[string]string{"m_max": "64"})
	s, err := RFF.Build(sims.Config{Values: v, Data: tab})
	if err != nil {
		t.Fatal(err)
	}
	simtest.RunToEnd(t, s, maxSteps)
	r := s.(*rffSim)
	if r.n != 12 || r.d != 2 {
		t.Errorf("n = %d, d = %d, want 12 points in 2-D", r.n, r.d)
	}
	for range 300 {
		tab.Rows = append(tab.Rows, tab.Rows[0])
	}
	if _, err := RFF.Build(sims.Config{Values: v, Data: tab}); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("312 rows: %v", err)
	}
}

// TestRFFSORF: structured orthogonal features start below iid ones (lower
// variance) but stall at their bias: at m = 512 their error is at least
// 0.8 times ‖Λ − K‖_F/‖K‖_F, Λ the sphere kernel SORF's fixed √d norms
// estimate (algo/rff.SphereKernel), and above the orthogonal features'
// error, which has no bias (measured at m = 1024: 0.0605 against a floor
// of 0.0551, orthogonal 0.0242).
func TestRFFSORF(t *testing.T) {
	s := simtest.Build(t, RFF, map[string]string{"m_max": "512"}, 1, nil)
	simtest.RunToEnd(t, s, maxSteps)
	f := s.Frame()
	r := s.(*rffSim)
	sorf, ok := f.Series("sorf")
	orf, _ := f.Series("orthogonal")
	if !ok {
		t.Fatal("no sorf series")
	}
	last := len(sorf.Y) - 1
	floor := r.sorfFloor()
	if !(sorf.Y[last] >= 0.8*floor && sorf.Y[last] > orf.Y[last]) {
		t.Errorf("sorf error %g at m = 512: bias floor %g, orthogonal %g", sorf.Y[last], floor, orf.Y[last])
	}
}

// TestGramSchmidtPane: the default run ends with GGᵀ = I to 1e-12 and the
// rows' span kept.
func TestGramSchmidtPane(t *testing.T) {
	s := simtest.Build(t, GramSchmidt, nil, 3, nil)
	if n := simtest.RunToEnd(t, s, 100); n != 16 {
		t.Errorf("%d steps, want 16 rows", n)
	}
	f := s.Frame()
	for _, name := range []string{"orth_err", "span_res", "‖GGᵀ−I‖"} {
		if v := simtest.Metric(t, f, name); !(v < 1e-12) {
			t.Errorf("%s = %g", name, v)
		}
	}
	if _, err := simtest.BuildErr(GramSchmidt, map[string]string{"d": "4", "rows": "8"}, 1, nil); err == nil {
		t.Error("8 rows in 4-D accepted")
	}
}
