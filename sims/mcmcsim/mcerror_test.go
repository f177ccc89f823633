package mcmcsim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestMCErrorPane runs the mcerror sim at its defaults: the fitted slope of
// the independent draws' RMSE is −½ within 0.06 (C3's oracle), the log-log
// chart holds the RMSEs and the σ/√S line, the CLT histogram integrates to
// the fraction of estimates within ±4 s.e., and the text states the law.
//
// It runs 2000 of the sim's 10 000 steps (S = 10..2000, the range of the
// engine's oracle, TestMonteCarloErrorSlope): over seeds 1–8 the fitted
// slope at S = 2000 has a spread of 0.006 (0.010 at 10 000), so 0.06 is
// still about 9 s.d.
func TestMCErrorPane(t *testing.T) {
	s := simtest.Build(t, MCErrorSim, nil, 1, nil)
	if f := s.Frame(); f.Step != 0 || len(f.Charts) != 2 {
		t.Errorf("first frame: step %d, %d charts", f.Step, len(f.Charts))
	}
	simtest.Run(t, s, 2000)
	f := s.Frame()
	for _, m := range f.Metrics {
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			t.Errorf("metric %s = %v", m.Name, m.Value)
		}
	}
	if b, _ := f.Metric("slope_iid"); math.Abs(b+0.5) > 0.06 {
		t.Errorf("iid slope %.3f, want −0.5", b)
	}
	if _, ok := f.Series("σ/√S"); !ok {
		t.Error("no σ/√S reference line")
	}
	h, ok := f.Charts[2].(sims.HistChart)
	if !ok {
		t.Fatalf("chart 2 is %T", f.Charts[2])
	}
	w, mass := (h.Hi-h.Lo)/float64(len(h.Density)), 0.0
	for _, d := range h.Density {
		mass += d * w
	}
	if mass < 0.98 || mass > 1+1e-9 {
		t.Errorf("the estimates' histogram holds %.3f of them within ±4 s.e.", mass)
	}
	if txt := strings.Join(f.Text, "\n"); !strings.Contains(txt, "slope −½") || !strings.Contains(txt, "ESS = S/τ") {
		t.Errorf("text %q", txt)
	}
	res := s.Result()
	if _, err := json.Marshal(res); err != nil {
		t.Error(err)
	}
	if len(res["checkpoints"].([]int)) != len(res["rmse_iid"].([]float64)) {
		t.Error("checkpoints and RMSEs differ in length")
	}
	for _, set := range []map[string]string{{"replicates": "5"}, {"f": "x3"}, {"step": "0"}} {
		if _, err := sims.Resolve(MCErrorSim.Params, set); err == nil {
			t.Errorf("%v accepted", set)
		}
	}
	if a := testing.AllocsPerRun(100, func() { _ = s.Step() }); a != 0 {
		t.Errorf("Step allocates %v times between checkpoints", a)
	}
}
