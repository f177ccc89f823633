package trustsim

import (
	"strings"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// TestPoisoningThreshold sweeps ε_d past the threshold: the attack is
// reachable exactly from the threshold on, and then the retrained w is
// the target; below it the defender's fit stays away.
func TestPoisoningThreshold(t *testing.T) {
	s := simtest.Build(t, Poisoning, nil, 1, nil)
	thr := simtest.Metric(t, s.Frame(), "threshold")
	if thr <= 0.05 || thr >= 0.95 {
		t.Fatalf("threshold %g: the default should cross it inside ε_d ≤ 1", thr)
	}
	for {
		err := s.Step()
		f := s.Frame()
		eps, dist := simtest.Metric(t, f, "eps_d"), simtest.Metric(t, f, "distance")
		reach := simtest.Metric(t, f, "reachable") == 1
		if reach != (eps >= thr) {
			t.Fatalf("ε_d = %g, threshold %g: reachable = %v", eps, thr, reach)
		}
		if reach && dist > 1e-7 {
			t.Fatalf("ε_d = %g: reachable but retrained %g from the target", eps, dist)
		}
		if !reach && dist < 1e-3 {
			t.Fatalf("ε_d = %g below the threshold: retrained onto the target", eps)
		}
		if err != nil {
			break
		}
	}
}

// TestPoisoningRefusesSeparableData: on separable classes (sep 2, n 120)
// logistic regression has no finite fit; the sim says so rather than
// aiming at wherever the fit stopped (issue 28.3).
func TestPoisoningRefusesSeparableData(t *testing.T) {
	_, err := simtest.BuildErr(Poisoning, map[string]string{"sep": "2", "n": "120"}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "separable") || !strings.Contains(err.Error(), "no finite fit") {
		t.Fatalf("sep 2, n 120: %v, want a refusal saying the data are separable", err)
	}
}
