package gensim

import (
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestVAEToy: the notes' discrete toy starts at log p = −1.049822, ELBO =
// −1.172365, gap = KL = 0.122543, and the gap closes at the posterior.
func TestVAEToy(t *testing.T) {
	s := simtest.Build(t, VAE, map[string]string{"data": "toy"}, 1, nil)
	f := s.Frame()
	algotest.Near(t, "log p", simtest.Metric(t, f, "log_p"), -1.049822, 1e-6)
	algotest.Near(t, "ELBO", simtest.Metric(t, f, "ELBO"), -1.172365, 1e-6)
	algotest.Near(t, "KL", simtest.Metric(t, f, "KL"), 0.122543, 1e-6)
	simtest.RunToEnd(t, s, 100)
	f = s.Frame()
	algotest.Near(t, "closed gap", simtest.Metric(t, f, "KL"), 0, 1e-15)
	algotest.Near(t, "ELBO = log p", simtest.Metric(t, f, "ELBO"), -1.049822, 1e-6)
}

// TestVAETrains: on the digits and on the ring −ELBO falls and equals
// recon + KL; a decoder s.d. at 0 is out of range.
func TestVAETrains(t *testing.T) {
	for _, set := range []map[string]string{{"size": "8", "n": "1000", "units": "32"}, {"data": "plane", "units": "32"}} {
		s := simtest.Build(t, VAE, set, 1, nil)
		simtest.Run(t, s, 1)
		first := simtest.Metric(t, s.Frame(), "neg_elbo")
		simtest.Run(t, s, 200)
		f := s.Frame()
		last := simtest.Metric(t, f, "neg_elbo")
		if last > first-1 {
			t.Errorf("%v: −ELBO %g → %g", set, first, last)
		}
		algotest.Near(t, "recon + KL", simtest.Metric(t, f, "recon")+simtest.Metric(t, f, "KL"), last, 1e-9*abs(last))
	}
	if _, err := simtest.BuildErr(VAE, map[string]string{"data": "plane", "decoder_sd": "0"}, 1, nil); err == nil {
		t.Error("decoder_sd = 0 accepted")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
