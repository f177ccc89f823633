package linearsim

import (
	"errors"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/sims/simtest"
)

// TestPerceptronLossView: update=gd-sgd on the default separable data
// reaches zero errors with both runs, SGD within Theorem 2.8's bound;
// with η = 1 and cyclic order SGD ends where Algorithm 1 ends (same w̃,
// same mistakes); three classes are refused.
func TestPerceptronLossView(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		s := simtest.Build(t, Perceptron, map[string]string{"update": "gd-sgd"}, seed, nil)
		steps, conv := simtest.RunUntil(t, s, 2000)
		f := s.Frame()
		t.Logf("seed %d: %d evaluations; %s", seed, steps, simtest.Text(f))
		if !conv || simtest.Metric(t, f, "errors GD") != 0 || simtest.Metric(t, f, "errors SGD") != 0 ||
			simtest.Metric(t, f, "loss GD") != 0 || simtest.Metric(t, f, "loss SGD") != 0 {
			t.Fatalf("seed %d: converged %v after %d passes: %v", seed, conv, steps, f.Metrics)
		}
		if m, b := simtest.Metric(t, f, "mistakes"), simtest.Metric(t, f, "bound"); m > b {
			t.Errorf("seed %d: SGD made %g mistakes > (C/γ)² = %g", seed, m, b)
		}
		if _, ok := f.Series("SGD"); !ok {
			t.Error("no SGD curve")
		}
	}
	// η = 1, cyclic: SGD is Algorithm 1.
	a := simtest.Build(t, Perceptron, map[string]string{"order": "cyclic"}, 4, nil)
	simtest.RunToEnd(t, a, 100000)
	l := simtest.Build(t, Perceptron, map[string]string{"update": "gd-sgd", "order": "cyclic"}, 4, nil)
	simtest.RunToEnd(t, l, 100000)
	ra, rl := a.Result(), l.Result()
	wa := append(ra["w"].([]float64), ra["b"].(float64))
	wl := rl["sgd_w"].([]float64)
	for j := range wa {
		if wa[j] != wl[j] {
			t.Fatalf("η = 1: SGD ends at %v, Algorithm 1 at %v", wl, wa)
		}
	}
	if ra["mistakes"] != rl["sgd_mistakes"] {
		t.Errorf("mistakes %v vs %v", ra["mistakes"], rl["sgd_mistakes"])
	}
	_, err := simtest.BuildErr(Perceptron, map[string]string{"update": "gd-sgd", "data": "blobs"}, 1, nil)
	var pe *algo.ParamError
	if !errors.As(err, &pe) {
		t.Errorf("gd-sgd on blobs: %v", err)
	}
}
