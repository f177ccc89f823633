package nnsim_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
)

// TestPlaygroundEx91: on the notes' four XOR points the Ex 9.1 weights
// give the catalogue's outputs ŷ = −1, +1, +1, −1 before any step
// (seed 001 Ex 9.1, L937–L943) and classify all four.
func TestPlaygroundEx91(t *testing.T) {
	s := simtest.Build(t, nnsim.Playground, map[string]string{"data": "xor4", "layers": "1", "units": "2",
		"activation": "relu", "weights": "ex9.1"}, 1, nil)
	out := s.Result()["outputs"].([]float64)
	for i, want := range []float64{-1, 1, 1, -1} {
		algotest.Near(t, "ŷ", out[i], want, 1e-15)
	}
	f := s.Frame()
	algotest.Near(t, "accuracy", simtest.Metric(t, f, "test_acc"), 1, 0)
	if !strings.Contains(simtest.Text(f), "Ex 9.1") {
		t.Errorf("notes:\n%s", simtest.Text(f))
	}
	_, err := simtest.BuildErr(nnsim.Playground, map[string]string{"weights": "ex9.1"}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "weights = ex9.1") {
		t.Errorf("ex9.1 on the default network: %v", err)
	}
}

// TestPlaygroundLinearIsAffine: with σ = identity the trained network of
// three hidden layers is one affine map (Remark 9.2): the drawn p(class 1)
// is σ(a·x + b·y + c) with the map the pane prints, at every grid cell,
// and on the circle it stays a coin toss (no line separates a ring from a
// disk).
func TestPlaygroundLinearIsAffine(t *testing.T) {
	s := simtest.Build(t, nnsim.Playground, map[string]string{"activation": "linear", "layers": "3"}, 2, nil)
	simtest.Run(t, s, 500)
	r := s.Result()
	A, c := r["affine_A"].([]float64), r["affine_c"].([]float64)
	f := s.Frame()
	m := f.Charts[0].(sims.CanvasChart)
	v, g := m.View, m.Heat
	worst := 0.0
	for j := range g.NY {
		y := v.YMin + (float64(j)+0.5)*(v.YMax-v.YMin)/float64(g.NY)
		for i := range g.NX {
			x := v.XMin + (float64(i)+0.5)*(v.XMax-v.XMin)/float64(g.NX)
			worst = math.Max(worst, math.Abs(g.Z[j*g.NX+i]-stable.Sigmoid(A[0]*x+A[1]*y+c[0])))
		}
	}
	if worst > 1e-12 {
		t.Errorf("the map differs from the affine map by %g", worst)
	}
	if acc := simtest.Metric(t, f, "test_acc"); acc > 0.75 {
		t.Errorf("a linear network separates the circle: accuracy %g", acc)
	}
	if !strings.Contains(simtest.Text(f), "one affine map") {
		t.Errorf("notes:\n%s", simtest.Text(f))
	}
}

// TestPlaygroundGradientCheck: for every activation, with residual
// connections and both penalties, the pane's gradient check (backprop
// against central differences on the first minibatch) is below 1e-6.
func TestPlaygroundGradientCheck(t *testing.T) {
	for _, act := range []string{"relu", "tanh", "sigmoid", "linear"} {
		s := simtest.Build(t, nnsim.Playground, map[string]string{"activation": act, "residual": "on",
			"l1": "0.01", "l2": "0.01", "x2": "on", "sin": "on"}, 3, nil)
		if e := s.Result()["grad_check"].(float64); !(e < 1e-6) {
			t.Errorf("%s: gradient check %g", act, e)
		}
	}
}

// twoMinutes is the steps a pane takes in two minutes at the
// playground's default speed: the budget within which TestPlaygroundLearns
// holds each set and recipe to its bar.
var twoMinutes = int(nnsim.Playground.Speed * 120)

// TestPlaygroundLearns (issue 26): within two minutes of a pane at its
// default speed (3,600 steps), the famous spiral recipes pass 0.90 test
// accuracy — sin and cos features on the default 2 × 4 tanh network, and
// 3 hidden layers × 8 tanh units on x, y alone — and so does a 4 × 8 ReLU
// network; every other set learns at its defaults. A run stops at the
// first check (every 100 steps) at its bar, so that the test costs what
// proving it takes; reached is the step of the check at which seed 1
// passed it when measured, which the log sets beside this run's (a change
// that slows learning shows there before it fails the test).
//
// The bars stand below what 12 seeds reach at 3,600 steps (mean, least):
// circle 1.000, 0.998; xor 0.968, 0.940; gauss 0.972, 0.958 (its
// clusters overlap: a line errs on 1.7% of the points); moons 1.000,
// 0.998; spiral with sin, cos 0.951, 0.912; spiral 3 × 8 0.957, 0.907;
// spiral 4 × 8 relu 0.964, 0.927; the circle on x², y² with no hidden
// layer 1.000. Before the fix the spiral recipes reached 0.61 and
// 0.59 on average, and xor, gauss and circle 0.939, 0.953 and 0.990.
func TestPlaygroundLearns(t *testing.T) {
	for _, c := range []struct {
		name    string
		set     map[string]string
		bar     float64
		reached int
	}{
		{"circle", nil, 0.98, 200},
		{"xor", map[string]string{"data": "xor"}, 0.93, 100},
		{"gauss", map[string]string{"data": "gauss"}, 0.94, 100},
		{"moons", map[string]string{"data": "moons"}, 0.98, 400},
		{"spiral sin cos", map[string]string{"data": "spiral", "sin": "on", "cos": "on"}, 0.9, 300},
		{"spiral 3×8", map[string]string{"data": "spiral", "layers": "3", "units": "8"}, 0.9, 1300},
		{"spiral 4×8 relu", map[string]string{"data": "spiral", "layers": "4", "units": "8", "activation": "relu"}, 0.9, 700},
		{"circle x² y² linear", map[string]string{"layers": "0", "x2": "on", "y2": "on"}, 0.97, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := simtest.Build(t, nnsim.Playground, c.set, 1, nil)
			acc, step := 0.0, 0
			for step < twoMinutes && acc < c.bar {
				simtest.Run(t, s, 100)
				step += 100
				acc = simtest.Metric(t, s.Frame(), "test_acc")
			}
			if acc < c.bar {
				t.Fatalf("test accuracy %g after %d steps (two minutes at %g steps/s), want ≥ %g", acc, step, nnsim.Playground.Speed, c.bar)
			}
			t.Logf("test accuracy %g ≥ %g at step %d (measured: %d; budget %d)", acc, c.bar, step, c.reached, twoMinutes)
		})
	}
}

// TestPlaygroundRegression: on the bumps surface the network's test loss
// falls well below the variance of the targets (the loss of predicting 0):
// from 0.12 to 0.0023 in 500 steps.
func TestPlaygroundRegression(t *testing.T) {
	s := simtest.Build(t, nnsim.Playground, map[string]string{"data": "bumps", "noise": "0", "units": "8"}, 5, nil)
	first := simtest.Metric(t, s.Frame(), "test_loss")
	simtest.Run(t, s, 500)
	if last := simtest.Metric(t, s.Frame(), "test_loss"); !(last < first/5) {
		t.Errorf("test loss %g → %g", first, last)
	}
}

// TestPlaygroundDeadUnits: a ReLU network driven hard (a large rate)
// loses units, and the pane counts them and marks their labels ✗ in the
// network diagram.
func TestPlaygroundDeadUnits(t *testing.T) {
	s := simtest.Build(t, nnsim.Playground, map[string]string{"activation": "relu", "lr": "2", "optimizer": "sgd",
		"units": "8"}, 6, nil)
	if err := simtest.RunErr(s, 300); err != nil && !strings.Contains(err.Error(), "diverged") {
		t.Fatal(err)
	}
	f := s.Frame()
	dead := simtest.Metric(t, f, "dead")
	marked := 0
	for _, ly := range network(t, f).Layers {
		for _, im := range ly.Units {
			if strings.HasSuffix(im.Caption, " ✗") {
				marked++
			}
		}
	}
	if dead < 1 || float64(marked) != dead {
		t.Errorf("%g dead units, %d thumbnails marked", dead, marked)
	}
}

// TestPlaygroundData: a CSV of two features and classes; a third feature
// column is refused with the reason.
func TestPlaygroundData(t *testing.T) {
	rows := [][]float64{}
	for i := range 40 {
		x, y := float64(i%7)-3, float64(i%5)-2
		rows = append(rows, []float64{x, y, float64(i % 3)})
	}
	tab := &sims.Table{Name: "pts.csv", Columns: []string{"u", "v", "label"}, Rows: rows}
	s := simtest.Build(t, nnsim.Playground, nil, 1, tab)
	simtest.Run(t, s, 10)
	f := s.Frame()
	if m := f.Charts[0].(sims.CanvasChart); len(m.Legend) != 3 || m.XLabel != "u" {
		t.Errorf("three classes: legend %v, x label %q", m.Legend, m.XLabel)
	}
	tab.Columns = []string{"u", "v", "w", "label"}
	for i := range tab.Rows {
		tab.Rows[i] = append([]float64{1}, tab.Rows[i]...)
	}
	if _, err := simtest.BuildErr(nnsim.Playground, nil, 1, tab); err == nil || !strings.Contains(err.Error(), "two feature columns") {
		t.Errorf("three features: %v", err)
	}
}

// TestPlaygroundDataTask: the task the label column makes is said on the
// pane — classes, or regression when the labels are real numbers — and
// a label that breaks a column of classes is refused, naming its line,
// rather than silently making the classifier a regression.
func TestPlaygroundDataTask(t *testing.T) {
	table := func(label func(i int) float64) *sims.Table {
		tab := &sims.Table{Name: "dir/pts.csv", Columns: []string{"label", "u", "v"}}
		for i := range 40 {
			tab.Rows = append(tab.Rows, []float64{label(i), float64(i%7) - 3, float64(i%5) - 2})
			tab.Lines = append(tab.Lines, i+2)
		}
		return tab
	}
	for _, tt := range []struct {
		name  string
		label func(i int) float64
		task  string // the pane's line, or "" when refused
		err   string
	}{
		{"classes, label first", func(i int) float64 { return float64(i % 3) }, "task: 3 classes, from column label of pts.csv", ""},
		{"real targets", func(i int) float64 { return 0.1 * float64(i) }, "task: regression on column label of pts.csv (not classes 0..9: 0.1 at line 3)", ""},
		{"whole targets past the classes", func(i int) float64 { return float64(i) }, "task: regression on column label of pts.csv (not classes 0..9: 10 at line 12)", ""},
		{"one stray label", func(i int) float64 {
			if i == 17 {
				return 1.5
			}
			return float64(i % 2)
		}, "", "line 19: column label holds 1.5, where 39 of the 40 rows hold a class 0..9"},
	} {
		s, err := simtest.BuildErr(nnsim.Playground, nil, 1, table(tt.label))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if text := s.Frame().Text; len(text) == 0 || text[0] != tt.task {
			t.Errorf("%s: text %q, want first %q", tt.name, text, tt.task)
		}
	}
}

// network is the pane's network diagram.
func network(t *testing.T, f sims.Frame) sims.NetworkChart {
	t.Helper()
	for _, c := range f.Charts {
		if nc, ok := c.(sims.NetworkChart); ok {
			return nc
		}
	}
	t.Fatalf("no network diagram among %d charts", len(f.Charts))
	return sims.NetworkChart{}
}

// TestPlaygroundWidths: widths sets each hidden layer's width, over layers
// and units, and the network diagram draws that architecture: a column of
// labelled input thumbnails for the features switched on, a labelled
// column per hidden layer, the output, and between them the network's
// weights as they are; a malformed widths is refused, saying what was
// wrong.
func TestPlaygroundWidths(t *testing.T) {
	for _, c := range []struct {
		set    map[string]string
		hidden []int
		inputs []string
	}{
		{map[string]string{}, []int{4, 4}, []string{"x", "y"}},
		{map[string]string{"layers": "3", "units": "2"}, []int{2, 2, 2}, []string{"x", "y"}},
		{map[string]string{"widths": "8,4,2", "layers": "1"}, []int{8, 4, 2}, []string{"x", "y"}},
		{map[string]string{"widths": " 3 , 5 ", "sin": "on", "x2": "on"}, []int{3, 5}, []string{"x", "y", "x²", "sin x", "sin y"}},
		{map[string]string{"widths": "0", "xy": "on"}, nil, []string{"x", "y", "xy"}},
		{map[string]string{"layers": "0"}, nil, []string{"x", "y"}},
	} {
		s := simtest.Build(t, nnsim.Playground, c.set, 1, nil)
		simtest.Run(t, s, 20)
		r := s.Result()
		nc := network(t, s.Frame())
		if len(nc.Layers) != len(c.hidden)+2 {
			t.Fatalf("%v: %d layers drawn, want %d", c.set, len(nc.Layers), len(c.hidden)+2)
		}
		var inputs []string
		for _, im := range nc.Layers[0].Units {
			inputs = append(inputs, im.Caption)
		}
		if !slices.Equal(inputs, c.inputs) || nc.Layers[0].Name != "inputs" || nc.Layers[0].In != nil {
			t.Errorf("%v: inputs %q named %q", c.set, inputs, nc.Layers[0].Name)
		}
		params := r["params"].([][]float64) // W₁, b₁, W₂, b₂, …
		widths := append(append([]int{len(c.inputs)}, c.hidden...), 1)
		for k := 1; k < len(nc.Layers); k++ {
			ly := nc.Layers[k]
			if len(ly.Units) != widths[k] {
				t.Errorf("%v: layer %d has %d units, want %d", c.set, k, len(ly.Units), widths[k])
			}
			if !slices.Equal(ly.In, params[2*(k-1)]) {
				t.Errorf("%v: layer %d's weights %v, the network's %v", c.set, k, ly.In, params[2*(k-1)])
			}
			for u, im := range ly.Units {
				want := fmt.Sprintf("n%d", u+1)
				if k == len(nc.Layers)-1 {
					want = ""
				}
				if im.Caption != want || im.W*im.H != len(im.Pix) {
					t.Errorf("%v: layer %d unit %d captioned %q, want %q", c.set, k, u, im.Caption, want)
				}
			}
			name := fmt.Sprintf("L%d", k)
			if k == len(nc.Layers)-1 {
				name = "output"
			}
			if ly.Name != name {
				t.Errorf("%v: layer %d named %q, want %q", c.set, k, ly.Name, name)
			}
		}
		arch := fmt.Sprint(len(c.inputs))
		for _, h := range c.hidden {
			arch += fmt.Sprintf(" → %d", h)
		}
		if text := simtest.Text(s.Frame()); !strings.Contains(text, arch+" → 1,") {
			t.Errorf("%v: notes do not say %q:\n%s", c.set, arch, text)
		}
	}
	for _, c := range []struct{ widths, says string }{
		{"8,x", `layer 2's x is not a whole number`},
		{"8,,2", `layer 2's "" is not a whole number`},
		{"9", "layer 1 has 9 units"},
		{"4,0", "layer 2 has 0 units"},
		{"-1", "layer 1 has -1 units"},
		{"1,1,1,1,1,1,1", "7 layers given"},
	} {
		_, err := simtest.BuildErr(nnsim.Playground, map[string]string{"widths": c.widths}, 1, nil)
		if err == nil || !strings.Contains(err.Error(), "parameter widths = "+c.widths) || !strings.Contains(err.Error(), c.says) ||
			!strings.Contains(err.Error(), "8,4,2") {
			t.Errorf("widths=%s: %v, want it refused saying %q", c.widths, err, c.says)
		}
	}
}

// TestPlaneUnitSmallAngles: planeUnit's doc comment says that over
// [−1, 1] — the features' range at unit scale — sin x is x to within 0.16
// and cos x is 1 − x²/2 to within 0.05: the largest gaps on a fine grid
// are 1 − sin 1 = 0.159 and cos 1 − ½ = 0.040, at the ends.
func TestPlaneUnitSmallAngles(t *testing.T) {
	var s, c float64
	for k := -1000; k <= 1000; k++ {
		x := float64(k) / 1000
		s = math.Max(s, math.Abs(math.Sin(x)-x))
		c = math.Max(c, math.Abs(math.Cos(x)-(1-x*x/2)))
	}
	if s > 0.16 || c > 0.05 {
		t.Errorf("over [−1, 1]: |sin x − x| ≤ %.3g, |cos x − (1 − x²/2)| ≤ %.3g", s, c)
	}
}
