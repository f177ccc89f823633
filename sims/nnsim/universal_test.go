package nnsim_test

import (
	"math"
	"testing"

	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
)

// TestUniversal: on each target the constructive network's sup error
// against k stays under h² max|f″|/8 and falls by about 4 a doubling once
// the knots resolve f (O(1/k²), [A17]); at the default width the trained
// network gets within twice the bound of sin 3x by step 3000 (0.5 ms a
// step under -race).
func TestUniversal(t *testing.T) {
	curv := map[string]float64{"sin": 9, "bump": 16, "wave": 72}
	for target, c := range curv {
		s := simtest.Build(t, nnsim.Universal, map[string]string{"target": target}, 1, nil)
		sweep := s.Result()["sweep"].([]float64)
		for i, e := range sweep {
			h := 2 / math.Exp2(float64(i))
			if e > h*h*c/8 {
				t.Errorf("%s k=%d: sup error %g over the bound %g", target, 1<<i, e, h*h*c/8)
			}
			if i >= 5 && (sweep[i-1]/e < 3.5 || sweep[i-1]/e > 4.5) {
				t.Errorf("%s k=%d: ratio %g, want ≈ 4", target, 1<<i, sweep[i-1]/e)
			}
		}
	}
	const steps = 3000
	s := simtest.Build(t, nnsim.Universal, nil, 1, nil)
	simtest.Run(t, s, steps)
	f := s.Frame()
	if f.Step != steps {
		t.Fatalf("frame of step %d, want %d", f.Step, steps)
	}
	if e, b := simtest.Metric(t, f, "sup_trained"), simtest.Metric(t, f, "bound"); !(e < 2*b) {
		t.Errorf("trained sup error %g, bound %g", e, b)
	}
}
