package trustsim

import (
	"errors"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// attackRun is an Attack sim of seed 1 stepped to its end (ErrConverged
// after iters steps): its ball's ε, the distance ‖x − x₀‖ after every
// step, with the objective and p(true class) its frame reports, the last
// frame and the result. Building one trains two networks and sweeps
// their accuracy curves (seconds under -race).
type attackRun struct {
	eps                float64
	dists, objs, pTrue []float64
	frame              sims.Frame
	result             map[string]any
}

// runAttack runs Attack with set to its end.
func runAttack(t *testing.T, set map[string]string) *attackRun {
	t.Helper()
	s := simtest.Build(t, Attack, set, 1, nil)
	r := &attackRun{eps: simtest.Metric(t, s.Frame(), "eps")}
	for {
		err := s.Step()
		f := s.Frame()
		r.dists = append(r.dists, simtest.Metric(t, f, "dist"))
		r.objs = append(r.objs, simtest.Metric(t, f, "objective"))
		r.pTrue = append(r.pTrue, simtest.Metric(t, f, "p_true"))
		if errors.Is(err, sims.ErrConverged) {
			break
		}
		if err != nil {
			t.Fatalf("attack %v: step %d: %v", set, len(r.dists), err)
		}
	}
	r.frame, r.result = s.Frame(), s.Result()
	return r
}
