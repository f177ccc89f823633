package pushforwardsim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/pushforward"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestExample13Pane runs the default (Ex 1.3, x² of N(0,1)) and checks
// what the pane shows: P(Y < 1) exact 0.682689 and sampled within 4 s.e.,
// the χ² test passing, two histograms that integrate to their mass in
// range, and the density curve finite (clipped at 0).
func TestExample13Pane(t *testing.T) {
	s := simtest.Build(t, Pushforward, nil, 1, nil)
	simtest.Run(t, s, 200)
	f := s.Frame()
	exact, _ := f.Metric("exact")
	emp, _ := f.Metric("P(Y<c)")
	n, _ := f.Metric("draws")
	if math.Abs(exact-0.682689) > 5e-7 || math.Abs(emp-exact) > 4*math.Sqrt(exact*(1-exact)/n) || n != 20000 {
		t.Errorf("P(Y<1): exact %g, sampled %g, n %g", exact, emp, n)
	}
	if p, _ := f.Metric("p-value"); p < 1e-3 {
		t.Errorf("χ² p-value %g", p)
	}
	for _, i := range []int{0, 1} {
		h := f.Charts[i].(sims.HistChart)
		w := (h.Hi - h.Lo) / float64(len(h.Density))
		mass := 0.0
		for _, d := range h.Density {
			mass += d * w
		}
		if mass < 0.98 || mass > 1+1e-9 {
			t.Errorf("histogram %d integrates to %g", i, mass)
		}
		for _, y := range h.Curves[0].Y {
			if math.IsInf(y, 0) || math.IsNaN(y) {
				t.Fatalf("histogram %d: curve value %v", i, y)
			}
		}
	}
	if txt := strings.Join(f.Text, "\n"); !strings.Contains(txt, "both branches") || !strings.Contains(txt, "clipped") {
		t.Errorf("notes: %q", f.Text)
	}
	if _, err := json.Marshal(s.Result()); err != nil {
		t.Error(err)
	}
}

// TestExample12Pane checks Ex 1.2's bars: (T#P)({a}) = 0.2, ({b}) = 0.8.
func TestExample12Pane(t *testing.T) {
	v, _ := sims.Resolve(Pushforward.Params, map[string]string{"map": "ex1.2"})
	if pfSource.Get(v) != pushforward.SourceDiscrete || pfC.Get(v) != 0.5 {
		t.Fatalf("defaults for ex1.2: source %s c %g", pfSource.Get(v), pfC.Get(v))
	}
	s := simtest.Build(t, Pushforward, map[string]string{"map": "ex1.2"}, 2, nil)
	simtest.Run(t, s, 50)
	res := s.Result()
	pmf := res["pmf"].([]float64)
	if labels := res["values"].([]string); len(labels) != 2 || labels[0] != "a" || labels[1] != "b" || pmf[0] != 0.2 || pmf[1] != 0.8 {
		t.Errorf("values %v pmf %v", labels, pmf)
	}
	f := s.Frame()
	var bars int
	for _, c := range f.Charts {
		if b, ok := c.(sims.BarChart); ok {
			bars += len(b.Bars)
		}
	}
	if bars != 6+4 {
		t.Errorf("%d bars, want 6 for the source and 4 for the push-forward", bars)
	}
}

// TestEveryMapRuns builds every map with its default source and checks the
// χ² test passes and the frame is well formed.
func TestEveryMapRuns(t *testing.T) {
	for _, m := range pfMaps {
		s := simtest.Build(t, Pushforward, map[string]string{"map": m.String()}, 3, nil)
		simtest.Run(t, s, 100)
		f := s.Frame()
		for _, mt := range f.Metrics {
			if math.IsNaN(mt.Value) || math.IsInf(mt.Value, 0) {
				t.Errorf("%s: metric %s = %v", m, mt.Name, mt.Value)
			}
		}
		if p, _ := f.Metric("p-value"); p < 1e-3 {
			t.Errorf("%s: p-value %g", m, p)
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		name string
	}{
		{map[string]string{"map": "normal-quantile", "source": "normal"}, "source"},
		{map[string]string{"map": "affine", "a": "0"}, "a"},
		{map[string]string{"batch": "0"}, "batch"},
		{map[string]string{"map": "cube"}, "map"},
	} {
		_, err := simtest.BuildErr(Pushforward, c.set, 1, nil)
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%v: error %v does not name %s", c.set, err, c.name)
		}
	}
}

func TestDeterministicAndImmutable(t *testing.T) {
	res := func() string {
		s := simtest.Build(t, Pushforward, nil, 7, nil)
		simtest.Run(t, s, 30)
		b, _ := json.Marshal(s.Result())
		return string(b)
	}
	if a, b := res(), res(); a != b {
		t.Error("same seed, different results")
	}
	s := simtest.Build(t, Pushforward, nil, 1, nil)
	simtest.Run(t, s, 10)
	f := s.Frame()
	before, _ := json.Marshal(f)
	simtest.Run(t, s, 10)
	_ = s.Frame()
	if after, _ := json.Marshal(f); string(before) != string(after) {
		t.Error("a frame changed after it was returned")
	}
	if a := testing.AllocsPerRun(100, func() { _ = s.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}
