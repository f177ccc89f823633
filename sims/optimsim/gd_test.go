package optimsim

import (
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// TestBoundCurveDominatesGap checks the pane's promise: on the quadratic
// with t = 1/L the drawn Theorem 8.7 bound lies above f(x_k) − f* at every
// recorded step.
func TestBoundCurveDominatesGap(t *testing.T) {
	for _, kappa := range []string{"2", "10", "100"} {
		s := simtest.Build(t, GD, map[string]string{"kappa": kappa}, 0, nil)
		for range 400 {
			if s.Step() != nil {
				break
			}
		}
		f := s.Frame()
		gap, ok1 := f.Series("f−f*")
		bound, ok2 := f.Series("Thm 8.7 bound")
		if !ok1 || !ok2 || len(gap.Y) != len(bound.Y) || len(gap.Y) < 10 {
			t.Fatalf("κ=%s: series %v %v", kappa, ok1, ok2)
		}
		for k := range gap.Y {
			if gap.Y[k] > bound.Y[k]*(1+1e-12)+1e-15*gap.Y[0] {
				t.Fatalf("κ=%s step %d: gap %g above bound %g", kappa, k, gap.Y[k], bound.Y[k])
			}
		}
	}
}

func TestStepSizeFollowsKappaAndNotes(t *testing.T) {
	s := simtest.Build(t, GD, map[string]string{"kappa": "50"}, 0, nil)
	if got := s.(*gdSim).lr; got != 0.02 {
		t.Errorf("default lr for κ=50: %v, want 1/L = 0.02", got)
	}
	tests := []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"lr": "0.25"}, "GD diverges"},
		{map[string]string{"lr": "0.19"}, "needs t ≤ 2/(m+L)"},
		{map[string]string{"method": "adam"}, "stated for plain GD"},
		{map[string]string{"fn": "rosenbrock"}, "not convex"},
	}
	for _, tt := range tests {
		text := strings.Join(simtest.Build(t, GD, tt.set, 0, nil).Frame().Text, " ")
		if !strings.Contains(text, tt.want) {
			t.Errorf("%v: notes %q lack %q", tt.set, text, tt.want)
		}
	}
}

func TestFrameIsImmutable(t *testing.T) {
	s := simtest.Build(t, GD, nil, 0, nil)
	s.Step()
	f := s.Frame()
	gap, _ := f.Series("f−f*")
	before := append([]float64(nil), gap.Y...)
	for range 50 {
		s.Step()
	}
	for i := range before {
		if gap.Y[i] != before[i] {
			t.Fatal("a published frame changed as the sim stepped on")
		}
	}
}

// TestBatchesOrdering: the batches view's promise on lsq at its defaults
// (t₀ = 0.3/L, n = 200, a step grants 50 evaluations), measured over 8
// seeds: at n/2 = 100 evaluations the mean gaps rise with the batch size,
// B = 1 < 8 < 64 < n (measured 0.26, 0.53, 18, 34); after 400 steps
// (100 passes) full-batch GD, noiseless, is below B = 1's noise floor
// (measured means 0.0022 against 0.42; B = 8: 0.023, B = 64: 0.0018). Every run has spent B·updates ≤
// the budget.
func TestBatchesOrdering(t *testing.T) {
	const seeds = 8
	var early, late [4]float64
	names := []string{"gap B=1", "gap B=8", "gap B=64", "gap GD"}
	for seed := uint64(1); seed <= seeds; seed++ {
		s := simtest.Build(t, GD, map[string]string{"fn": "lsq", "method": "batches"}, seed, nil)
		simtest.Run(t, s, 2)
		f := s.Frame()
		if simtest.Metric(t, f, "evals") != 100 {
			t.Fatalf("evals %v after 2 steps, want 100", simtest.Metric(t, f, "evals"))
		}
		for i, name := range names {
			early[i] += simtest.Metric(t, f, name) / seeds
		}
		simtest.Run(t, s, 398)
		f = s.Frame()
		for i, name := range names {
			late[i] += simtest.Metric(t, f, name) / seeds
		}
		r := s.Result()
		for i, b := range r["batches"].([]int) {
			if u := r["updates"].([]int)[i]; u != 20000/b {
				t.Errorf("B=%d: %d updates for 20000 evaluations, want %d", b, u, 20000/b)
			}
		}
	}
	t.Logf("mean gaps at 100 evaluations %.3g; at 20000 %.3g", early, late)
	for i := 1; i < len(early); i++ {
		if !(early[i-1] < early[i]) {
			t.Errorf("at 100 evaluations: mean gaps %v not rising with B", early)
		}
	}
	if !(late[3] < late[0]) {
		t.Errorf("after 100 passes: GD's mean gap %g not below B=1's %g", late[3], late[0])
	}
}

// TestStepDecayView: schedule=step at its defaults (γ = 0.1, T = one
// epoch, two drops) draws t_k = t₀, t₀/10, t₀/100 against the constant
// companion, and the notes name it.
func TestStepDecayView(t *testing.T) {
	s := simtest.Build(t, GD, map[string]string{"fn": "lsq", "method": "sgd", "batch": "10", "schedule": "step"}, 1, nil)
	g := s.(*gdSim)
	if g.step.Every != 20 || g.step.Drops != 2 || g.step.Factor != 0.1 || g.csched != schedConstant {
		t.Fatalf("step decay %+v against %v", g.step, g.csched)
	}
	simtest.Run(t, s, 60)
	rates, ok := s.Frame().Series("step")
	if !ok || len(rates.Y) != 61 {
		t.Fatalf("no step-size series of 61 points: %v", ok)
	}
	t0 := g.lr
	for k := 1; k <= 60; k++ {
		// row k holds the step of update k−1
		want := t0 * []float64{1, 0.1, 0.01}[min((k-1)/20, 2)]
		if math.Abs(rates.Y[k]-want) > 1e-15*t0 {
			t.Errorf("update %d: t = %g, want %g", k-1, rates.Y[k], want)
		}
	}
	if got := simtest.Metric(t, s.Frame(), "evals"); got != 600 {
		t.Errorf("evals %v after 60 updates of B = 10, want 600", got)
	}
	if !strings.Contains(simtest.Text(s.Frame()), "0.1^min(⌊k/20⌋, 2)") {
		t.Errorf("notes %q lack the schedule", simtest.Text(s.Frame()))
	}
}
