package privacysim_test

import (
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/privacy"
	"github.com/thelab/lab/sims/privacysim"
	"github.com/thelab/lab/sims/simtest"
)

// TestDPSGDPane: the ε the pane shows is the accountant's for the run's
// q, noise multiplier (σb for noise=mean, σ for noise=sum) and steps;
// logistic regression on the blobs learns under noise; an unreachable
// target is refused with the σ and the steps that would reach it.
func TestDPSGDPane(t *testing.T) {
	s := simtest.Build(t, privacysim.DPSGD, map[string]string{"n": "1000"}, 1, nil)
	simtest.Run(t, s, 40)
	f := s.Frame()
	want := privacy.SGMEpsilon(64.0/1000, 0.02*64, 40, 1e-5)
	algotest.Near(t, "ε (noise=mean)", simtest.Metric(t, f, "ε"), want, 1e-12)
	if c := simtest.Metric(t, f, "clipped"); c < 0 || c > 1 {
		t.Errorf("clipped fraction %v", c)
	}
	simtest.FiniteMetrics(t, f)

	l := simtest.Build(t, privacysim.DPSGD, map[string]string{"model": "logistic", "noise": "sum", "n": "1000", "epochs": "5"}, 1, nil)
	steps := simtest.RunToEnd(t, l, 1000)
	if steps != 79 { // ⌈5·1000/64⌉
		t.Errorf("%d steps for 5 epochs", steps)
	}
	f = l.Frame()
	algotest.Near(t, "ε (noise=sum)", simtest.Metric(t, f, "ε"), privacy.SGMEpsilon(0.064, 1, 79, 1e-5), 1e-12)
	if a := simtest.Metric(t, f, "acc σ"); a < 0.85 {
		t.Errorf("logistic regression at σ = 1: accuracy %v", a)
	}

	_, err := simtest.BuildErr(privacysim.DPSGD, map[string]string{"target": "0.5"}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "σ ≥") {
		t.Fatalf("target 0.5: %v", err)
	}
	if _, err := simtest.BuildErr(privacysim.DPSGD, map[string]string{"target": "50"}, 1, nil); err != nil {
		t.Fatalf("target 50: %v", err)
	}
}
