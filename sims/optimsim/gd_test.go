package optimsim

import (
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
