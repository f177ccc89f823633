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
// train/test gap ([A16]'s pane), on seed 1 after 1500 steps. (Not on every
// seed: on seed 3 the plain network has not memorised its points by 3000
// steps, and the two gaps are alike.)
func TestDropoutGap(t *testing.T) {
	const floor = 0.5 * 0.5 / 2
	for _, seed := range []uint64{1} {
		s := simtest.Build(t, nnsim.Dropout, nil, seed, nil)
		simtest.Run(t, s, 1500)
		f := s.Frame()
		tp, te := simtest.Metric(t, f, "train_plain"), simtest.Metric(t, f, "test_plain")
		td, ted := simtest.Metric(t, f, "train_dropout"), simtest.Metric(t, f, "test_dropout")
		if !(tp < floor/10 && te > floor) {
			t.Errorf("seed %d: the plain network does not overfit: train %g, test %g", seed, tp, te)
		}
		if !(ted < te && ted-td < 2*(te-tp)/3) {
			t.Errorf("seed %d: dropout train %g test %g, plain train %g test %g", seed, td, ted, tp, te)
		}
		masks := f.Charts[2].(sims.ImageChart).Images
		dropped := 0
		for _, v := range masks[0].Pix {
			if v == 0 {
				dropped++
			}
		}
		if len(masks) != 3 || dropped == 0 {
			t.Errorf("seed %d: %d mask images, %d dropped units in the first", seed, len(masks), dropped)
		}
	}
}
