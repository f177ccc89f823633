package nnsim_test

import (
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/nnsim"
	"github.com/thelab/lab/sims/simtest"
)

// TestDropoutGap: on ten noisy points the plain network memorises the
// noise (train loss under a tenth of the noise floor σ²/2, test loss
// above it) while the same network with dropout, from the same weights,
// ends with a smaller test loss and at most two thirds of the plain
// train/test gap ([A16]'s pane), on seed 1 after 1250 steps. (Not on every
// seed: on seed 3 the plain network has not memorised its points by 3000
// steps, and the two gaps are alike.) 1250 steps (3 ms a step under
// -race), not the 1500 it ran: measured every 50 steps on seed 1, all
// four conditions hold at every check from 1100 to 1500 (at 1050 the
// plain train loss is back up to 0.022); at 1250 the plain train loss is
// 0.0008, fifteen times under its bar floor/10 = 0.0125, its test loss
// 0.343 against the floor 0.125, and the dropout gap 0.50 of the plain
// one against the two thirds asked (1500: 0.0002, 0.354, 0.45).
func TestDropoutGap(t *testing.T) {
	const floor, steps = 0.5 * 0.5 / 2, 1250
	s := simtest.Build(t, nnsim.Dropout, nil, 1, nil)
	simtest.Run(t, s, steps)
	f := s.Frame()
	if f.Step != steps {
		t.Fatalf("frame of step %d, want %d", f.Step, steps)
	}
	tp, te := simtest.Metric(t, f, "train_plain"), simtest.Metric(t, f, "test_plain")
	td, ted := simtest.Metric(t, f, "train_dropout"), simtest.Metric(t, f, "test_dropout")
	if !(tp < floor/10 && te > floor) {
		t.Errorf("the plain network does not overfit: train %g, test %g", tp, te)
	}
	if !(ted < te && ted-td < 2*(te-tp)/3) {
		t.Errorf("dropout train %g test %g, plain train %g test %g", td, ted, tp, te)
	}
	masks := f.Charts[2].(sims.ImageChart).Images
	dropped := 0
	for _, v := range masks[0].Pix {
		if v == 0 {
			dropped++
		}
	}
	if len(masks) != 3 || dropped == 0 {
		t.Errorf("%d mask images, %d dropped units in the first", len(masks), dropped)
	}
}
