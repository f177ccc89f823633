package trustsim

import (
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// attackSets are the attacks TestAttackFoolsInsideBall runs.
var attackSets = []map[string]string{nil, {"model": "digits", "norm": "l2", "eps": "1", "step": "0.1", "target": "3"}}

// TestAttackFoolsInsideBall runs the default plane attack and a targeted
// L2 digits attack: every iterate stays in its ball, the objective never
// falls by more than rounding for the sign steps' first moves, the example
// ends misclassified (or as the target), and adversarial training buys
// accuracy under attack at its ε.
func TestAttackFoolsInsideBall(t *testing.T) {
	for _, set := range attackSets {
		r := runAttack(t, set)
		for i, d := range r.dists {
			if d > r.eps+1e-12 {
				t.Fatalf("%v: step %d: ‖x − x₀‖ = %g > ε = %g", set, i+1, d, r.eps)
			}
		}
		if set == nil {
			// An untargeted attack's objective is −log p(true class) of
			// the point it reports p_true of (issue 28.1: it was the
			// point's before the step).
			for i, obj := range r.objs {
				if want := -math.Log(r.pTrue[i]); math.Abs(obj-want) > 1e-9*max(1, want) {
					t.Fatalf("step %d: objective %g, −log p_true %g", i+1, obj, want)
				}
			}
		}
		f, eps := r.frame, r.eps
		if m, _ := f.Metric("flipped_at"); m == 0 {
			t.Errorf("%v: the attack never fooled the model: %v", set, f.Metrics)
		}
		if set != nil && simtest.Metric(t, f, "class") != 3 {
			t.Errorf("targeted at 3, ended as %g", simtest.Metric(t, f, "class"))
		}
		clean, adv := r.result["accuracy_clean_trained"].([]float64), r.result["accuracy_adv_trained"].([]float64)
		mid := len(clean) / 2 // ε of the example's attack
		if adv[mid] <= clean[mid] {
			t.Errorf("%v: at ε = %g adversarial training gives %.3f, clean training %.3f", set, eps, adv[mid], clean[mid])
		}
	}
}

// TestAttackBadInput: ε wider than the pixels' range, a target class the
// task lacks: a clear message, no panic.
func TestAttackBadInput(t *testing.T) {
	for _, tt := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"model": "digits", "eps": "1.5"}, "parameter eps = 1.5: must be at most the input range's width [0, 1]"},
		{map[string]string{"target": "4"}, "target = 4: the plane task has classes 0–1"},
	} {
		_, err := simtest.BuildErr(Attack, tt.set, 1, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.set, err, tt.want)
		}
	}
}
