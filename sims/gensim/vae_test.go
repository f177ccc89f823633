package gensim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
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
// recon + KL; a decoder s.d. at 0 is out of range. The digits are the
// default run's (vaeRun), from step vaeEarlySteps to VAE.Famous.
func TestVAETrains(t *testing.T) {
	r, err := vaeRun()
	if err != nil {
		t.Fatal(err)
	}
	famous, err := vaeFamous()
	if err != nil {
		t.Fatal(err)
	}
	s := simtest.Build(t, VAE, map[string]string{"data": "plane", "units": "32"}, 1, nil)
	simtest.Run(t, s, 1)
	plane := s.Frame()
	simtest.Run(t, s, 200)
	for _, c := range []struct {
		name        string
		first, last sims.Frame
	}{{"digits", r.Snap.Frame, famous}, {"plane", plane, s.Frame()}} {
		first, last := simtest.Metric(t, c.first, "neg_elbo"), simtest.Metric(t, c.last, "neg_elbo")
		if last > first-1 {
			t.Errorf("%s: −ELBO %g at step %d → %g at %d", c.name, first, c.first.Step, last, c.last.Step)
		}
		algotest.Near(t, c.name+": recon + KL", simtest.Metric(t, c.last, "recon")+simtest.Metric(t, c.last, "KL"), last, 1e-9*abs(last))
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

// TestVAEDigitsAtFamous: at its defaults, by the step the spec declares
// for its famous result (a minute in a pane), the latent means part the
// digits by class — a nearest-centroid rule on them names the class of
// most shown digits, where chance is one in ten — and the decoded prior
// samples are distinct pictures, not one blob: every pair differs in many
// pixels. The run is TestVAETrains', continued (vaeFamous).
func TestVAEDigitsAtFamous(t *testing.T) {
	f, err := vaeFamous()
	if err != nil {
		t.Fatal(err)
	}
	if f.Step != VAE.Famous {
		t.Fatalf("frame of step %d, want %d", f.Step, VAE.Famous)
	}
	var latent sims.CanvasChart
	for _, c := range f.Charts {
		if c, ok := c.(sims.CanvasChart); ok && strings.HasPrefix(c.Title, "latent") {
			latent = c
		}
	}
	if want := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}; !slices.Equal(latent.Legend, want) {
		t.Errorf("latent legend %q, want %q", latent.Legend, want)
	}
	if len(latent.Points) != 1 {
		t.Fatalf("latent: %d point sets", len(latent.Points))
	}
	p := latent.Points[0]
	if acc := centroidAccuracy(p.X, p.Y, p.Classes, 10); acc < vaeMinAccuracy {
		t.Errorf("after %d steps a nearest-centroid rule on μ(x) names %.2f of the digits, want ≥ %.2f", VAE.Famous, acc, vaeMinAccuracy)
	}
	var tiles []sims.Image
	for _, c := range f.Charts {
		if c, ok := c.(sims.ImageChart); ok {
			tiles = append(tiles, c.Images...)
		}
	}
	if n := distinctPictures(tiles); n < vaeMinDistinct {
		t.Errorf("the %d decoded digits are %d distinct pictures, want ≥ %d", len(tiles), n, vaeMinDistinct)
	}
}

// What the famous result is held to: a nearest-centroid rule on the 2-D
// latent means names at least this share of the digits (chance: 0.1), and
// the decoded digits shown make at least vaeMinDistinct distinct pictures,
// two being distinct when they differ (by more than half the ink) in at
// least vaeMinDiffer of their pixels.
const (
	vaeMinAccuracy = 0.5
	vaeMinDistinct = 6
	vaeMinDiffer   = 0.05
)

// distinctPictures counts the pictures of ims that differ from every
// picture counted before them.
func distinctPictures(ims []sims.Image) int {
	var kept []sims.Image
	for _, im := range ims {
		if !slices.ContainsFunc(kept, func(k sims.Image) bool { return !differ(k, im) }) {
			kept = append(kept, im)
		}
	}
	return len(kept)
}

// differ says whether two pictures differ by more than half the ink in at
// least vaeMinDiffer of their pixels.
func differ(a, b sims.Image) bool {
	n := 0
	for k := range a.Pix {
		if math.Abs(a.Pix[k]-b.Pix[k]) > 0.5 {
			n++
		}
	}
	return float64(n) >= vaeMinDiffer*float64(len(a.Pix))
}

// centroidAccuracy is the share of points whose nearest class centroid
// (of k classes) is their own class's.
func centroidAccuracy(x, y []float64, class []int, k int) float64 {
	cx, cy, n := make([]float64, k), make([]float64, k), make([]float64, k)
	for i := range x {
		cx[class[i]] += x[i]
		cy[class[i]] += y[i]
		n[class[i]]++
	}
	for c := range k {
		if n[c] > 0 {
			cx[c] /= n[c]
			cy[c] /= n[c]
		}
	}
	right := 0
	for i := range x {
		best, bd := -1, math.Inf(1)
		for c := range k {
			if n[c] == 0 {
				continue
			}
			if d := math.Hypot(x[i]-cx[c], y[i]-cy[c]); d < bd {
				best, bd = c, d
			}
		}
		if best == class[i] {
			right++
		}
	}
	return float64(right) / float64(len(x))
}
