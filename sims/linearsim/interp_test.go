package linearsim

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestInterpPane: every step adds one point; the interpolant's training
// MSE stays at rounding level while cond(Φ) is sane (Theorem 3.2) and its
// test MSE ends far above ridge's on Runge's function at equispaced
// points; the pane has the fit canvas with both fits and the MSE series,
// and the run ends when all points are in.
func TestInterpPane(t *testing.T) {
	s := simtest.Build(t, Interp, map[string]string{"n": "16"}, 7, nil)
	steps, conv := simtest.RunUntil(t, s, 100)
	if !conv || steps != 15 {
		t.Fatalf("ran %d steps, converged %v; want 15 (16 points, one per step after the first)", steps, conv)
	}
	f := s.Frame()
	if k := simtest.Metric(t, f, "points"); k != 16 {
		t.Errorf("points %v", k)
	}
	if c := simtest.Metric(t, f, "cond"); c > 1e6 {
		t.Fatalf("cond %v", c)
	}
	if m := simtest.Metric(t, f, "train_mse_interp"); m > 1e-18 {
		t.Errorf("train MSE of the interpolant %v", m)
	}
	ti, tr := simtest.Metric(t, f, "test_mse_interp"), simtest.Metric(t, f, "test_mse_ridge")
	if !(ti > 10*tr) {
		t.Errorf("test MSE interpolant %v, ridge %v", ti, tr)
	}
	for _, name := range []string{"I test", "I train", "R test", "R train"} {
		if sr, ok := f.Series(name); !ok || len(sr.Y) != 16 {
			t.Errorf("series %q: %v", name, sr.Y)
		}
	}
	canvas := f.Charts[0].(sims.CanvasChart)
	classes := map[int]bool{}
	for _, p := range canvas.Paths {
		classes[p.Class] = true
		for _, y := range p.Y {
			if y < canvas.View.YMin-1e-12 || y > canvas.View.YMax+1e-12 {
				t.Fatalf("path of class %d leaves the window: %v", p.Class, y)
			}
		}
	}
	if !classes[1] || !classes[2] || !classes[3] || len(canvas.Points[0].X) != 16 {
		t.Errorf("fit canvas: classes %v, %d points", classes, len(canvas.Points[0].X))
	}
	if tx := simtest.Text(f); !strings.Contains(tx, "Thm 3.2") || !strings.Contains(tx, "clipped") {
		t.Errorf("notes %q", tx)
	}
	r := s.Result()
	if len(r["interp_coef"].([]float64)) != 16 || r["interpolates"] != true {
		t.Errorf("result %v", r)
	}
}

// TestInterpClip: clipY keeps the parts of a curve inside the window,
// cutting on the edges, including a segment that jumps across it.
func TestInterpClip(t *testing.T) {
	v := sims.Rect{XMin: 0, XMax: 4, YMin: 0, YMax: 1}
	paths := clipY([]float64{0, 1, 2, 3, 4}, []float64{0.5, 2, -1, 0.5, 0.5}, v, 1)
	if len(paths) != 3 {
		t.Fatalf("%d runs: %+v", len(paths), paths)
	}
	// 0→1 leaves at y = 1 (x = 1/3); 1→2 crosses from 1 down to 0; 2→3
	// enters at y = 0 (x = 2 + 2/3) and stays.
	want := [][]float64{{0, 1.0 / 3}, {1 + 1.0/3, 1 + 2.0/3}, {2 + 2.0/3, 3, 4}}
	for i, p := range paths {
		if len(p.X) != len(want[i]) {
			t.Fatalf("run %d: %v", i, p.X)
		}
		for j := range p.X {
			if math.Abs(p.X[j]-want[i][j]) > 1e-12 {
				t.Errorf("run %d: x = %v, want %v", i, p.X, want[i])
			}
		}
	}
}

// TestInterpData: a CSV with one input is mapped onto [−1, 1] with a test
// split; a duplicate input is a clear error; two inputs are refused.
func TestInterpData(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := 0; i < 12; i++ {
		x := 10 + float64(i)
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64) + "," + strconv.FormatFloat(math.Sin(x), 'g', -1, 64) + "\n")
	}
	s := simtest.Build(t, Interp, nil, 3, table(t, b.String()))
	simtest.RunToEnd(t, s, 100)
	f := s.Frame()
	if k := simtest.Metric(t, f, "points"); k != 9 {
		t.Errorf("%v training points, want 9 of 12 (every 4th held out)", k)
	}
	if tx := simtest.Text(f); !strings.Contains(tx, "[10, 21] mapped onto [−1, 1]") {
		t.Errorf("notes %q", tx)
	}
	_, err := simtest.BuildErr(Interp, nil, 3, table(t, "x,y\n0,1\n1,2\n0,3\n"))
	if err == nil || !strings.Contains(err.Error(), "distinct") {
		t.Errorf("duplicate x: %v", err)
	}
	_, err = simtest.BuildErr(Interp, nil, 3, table(t, "a,b,y\n0,1,1\n1,2,2\n"))
	if err == nil || !strings.Contains(err.Error(), "one input") {
		t.Errorf("two inputs: %v", err)
	}
	_, err = simtest.BuildErr(Interp, map[string]string{"lambda": "0"}, 3, nil)
	if err == nil || !strings.Contains(err.Error(), "lambda") {
		t.Errorf("lambda = 0: %v", err)
	}
}

// TestLogitsPane: the sweep goes down to t_min and back; at t_min the law
// is the one-hot at the argmax and at t_max nearly uniform; the bars sum to
// 1; logits of ±1000 keep every metric finite.
func TestLogitsPane(t *testing.T) {
	s := simtest.Build(t, Logits, map[string]string{"t_max": "1000", "t_min": "0.001", "points": "20"}, 1, nil)
	f := s.Frame()
	algotest.Near(t, "entropy at t_max", simtest.Metric(t, f, "entropy"), math.Log(4), 5e-3)
	simtest.Run(t, s, 19)
	f = s.Frame()
	algotest.Near(t, "T at the bottom", simtest.Metric(t, f, "T"), 0.001, 1e-15)
	algotest.Near(t, "max_prob at T = 0.001", simtest.Metric(t, f, "max_prob"), 1, 1e-12)
	algotest.Near(t, "entropy at T = 0.001", simtest.Metric(t, f, "entropy"), 0, 1e-12)
	sum := 0.0
	for _, b := range f.Charts[0].(sims.BarChart).Bars {
		sum += b.Value
	}
	algotest.Near(t, "Σ bars", sum, 1, 1e-14)
	simtest.Run(t, s, 1)
	if T := simtest.Metric(t, s.Frame(), "T"); T <= 0.001 {
		t.Errorf("the sweep does not turn back: T = %v", T)
	}

	h := simtest.Build(t, Logits, map[string]string{"logits": "1000,-1000,1000,999", "t_min": "0.001"}, 1, nil)
	for i := 1; i <= 200; i++ {
		if err := h.Step(); err != nil {
			t.Fatal(err)
		}
		if !simtest.FiniteMetrics(t, h.Frame()) {
			t.Fatalf("step %d: %v", i, h.Frame().Metrics)
		}
		if i == 59 { // the bottom of the 60-point sweep, T = 0.001
			p := h.Result()["p"].([]float64)
			if math.Abs(p[0]-0.5) > 1e-12 || math.Abs(p[2]-0.5) > 1e-12 || p[3] != 0 {
				t.Errorf("tied maxima at T = %v: p = %v", h.Result()["T"], p)
			}
			if tx := simtest.Text(h.Frame()); !strings.Contains(tx, "2 ties split") {
				t.Errorf("notes %q", tx)
			}
		}
	}
	_, err := simtest.BuildErr(Logits, map[string]string{"t_max": "0.001", "t_min": "0.01"}, 1, nil)
	if !algo.IsParamError(err, "t_max") {
		t.Errorf("t_max < t_min: %v", err)
	}
	if err := simtest.RunErr(h, 1); errors.Is(err, algo.ErrConverged) {
		t.Error("the sweep should never end")
	}
}
