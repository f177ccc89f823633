package trustsim

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// attackRun is an Attack sim of seed 1 stepped to its end (ErrConverged
// after iters steps): its ball's ε, the distance ‖x − x₀‖ after every
// step, with the objective and p(true class) its frame reports, the last
// frame and the result. Building one trains two networks
// and sweeps their accuracy curves (seconds under -race), so the golden
// frames and TestAttackFoolsInsideBall share the runs.
type attackRun struct {
	eps                float64
	dists, objs, pTrue []float64
	frame              sims.Frame
	result             map[string]any
}

var attackRuns struct {
	sync.Mutex
	m map[string]*attackOnce
}

type attackOnce struct {
	once sync.Once
	run  *attackRun
	err  error
}

// sharedAttack returns the run of Attack with set, building it on the
// first call.
func sharedAttack(t *testing.T, set map[string]string) *attackRun {
	t.Helper()
	key := fmt.Sprint(set)
	attackRuns.Lock()
	if attackRuns.m == nil {
		attackRuns.m = map[string]*attackOnce{}
	}
	o := attackRuns.m[key]
	if o == nil {
		o = &attackOnce{}
		attackRuns.m[key] = o
	}
	attackRuns.Unlock()
	o.once.Do(func() {
		s, err := simtest.BuildErr(Attack, set, 1, nil)
		if err != nil {
			o.err = err
			return
		}
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
				o.err = fmt.Errorf("step %d: %w", len(r.dists), err)
				return
			}
		}
		r.frame, r.result = s.Frame(), s.Result()
		o.run = r
	})
	if o.err != nil {
		t.Fatalf("attack %v: %v", set, o.err)
	}
	return o.run
}
