package gensim

import (
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestGANPanes: the 2-D ring (coverage meter over 8 modes), the 1-D
// two-mode GAN and a GAN on --data all train with finite losses; D(x)
// stays a probability; --data with too few columns is refused.
func TestGANPanes(t *testing.T) {
	for _, set := range []map[string]string{nil, {"dim": "1", "target": "twomodes"}, {"update": "simultaneous", "loss": "lsq"}} {
		s := simtest.Build(t, GAN, set, 1, nil)
		simtest.Run(t, s, 30)
		f := s.Frame()
		if !simtest.FiniteMetrics(t, f) {
			t.Fatalf("%v: metrics not finite", set)
		}
		if set == nil {
			if m := simtest.Metric(t, f, "modes"); m < 0 || m > 8 {
				t.Errorf("modes covered %g", m)
			}
		}
	}
	data := &sims.Table{Name: "pts.csv", Columns: []string{"x", "y"}}
	for i := range 50 {
		data.Rows = append(data.Rows, []float64{float64(i % 7), float64(i % 3)})
	}
	s := simtest.Build(t, GAN, nil, 1, data)
	simtest.Run(t, s, 20)
	one := &sims.Table{Name: "one.csv", Columns: []string{"x"}, Rows: [][]float64{{1}, {2}, {3}}}
	if _, err := simtest.BuildErr(GAN, nil, 1, one); err == nil || !strings.Contains(err.Error(), "2 numeric columns") {
		t.Errorf("one column for dim 2: %v", err)
	}
}
