package trustsim

import (
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestRobustRegPath runs the whole path: at every step the worst-case
// perturbation's loss equals the objective (the engine's test checks
// random feasible ones stay below); some λ leaves exact zeros; λ = 0 ends
// at least squares.
func TestRobustRegPath(t *testing.T) {
	s := simtest.Build(t, RobustReg, map[string]string{"path": "12"}, 1, nil)
	sawSparse := false
	for range 20000 {
		err := s.Step()
		f := s.Frame()
		obj, worst := simtest.Metric(t, f, "objective"), simtest.Metric(t, f, "worst_case")
		algotest.Near(t, "objective = worst-case loss", worst, obj, 1e-12*obj)
		if nz := simtest.Metric(t, f, "nonzeros"); nz > 0 && nz < 8 {
			sawSparse = true
		}
		if err != nil {
			if r := simtest.Metric(t, f, "random_max"); r > worst*(1+1e-12) {
				t.Fatalf("a random Z (%g) beats the worst case (%g)", r, worst)
			}
			if gap := simtest.Metric(t, f, "ols_gap"); gap > 1e-8 {
				t.Fatalf("λ = 0 ends %g from OLS", gap)
			}
			if !sawSparse {
				t.Error("no λ on the path had some but not all coefficients at exact zero")
			}
			return
		}
	}
	t.Fatal("the path did not end")
}
