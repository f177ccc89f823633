package gensim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/autoenc"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestAutoencoderPCA: the catalogue's shape (d = 5, r = 2, N = 60): the
// linear AE reaches the Eckart–Young floor to 6 digits and PCA's subspace
// (largest principal angle below 1e-6). 1000 steps of this deterministic
// descent, not 5000: on seed 1 both hold by step 600 (at 500 the angle
// is still 1.35e-6), and at 1000 the
// gap to the floor is 1.5e-15 of it and the angle 1.8e-10 (from 2000 on
// the iterate sits at rounding's fixed point: 1.5e-15, 9e-16).
func TestAutoencoderPCA(t *testing.T) {
	s := simtest.Build(t, Autoencoder, map[string]string{"d": "5", "r": "2", "n": "60", "lr": "0.1"}, 1, nil)
	simtest.Run(t, s, 1000)
	f := s.Frame()
	floor := simtest.Metric(t, f, "floor")
	algotest.Near(t, "J", simtest.Metric(t, f, "J"), floor, 1e-6*floor)
	if a := simtest.Metric(t, f, "angle"); a > 1e-6 {
		t.Errorf("principal angle %g", a)
	}
	_, err := simtest.BuildErr(Autoencoder, map[string]string{"d": "3", "r": "3"}, 1, nil)
	if err == nil {
		t.Error("r = d accepted")
	}
}

// linearJ is J(D, E) = (1/N) Σ ‖x_i − D E x_i‖² of a linear autoencoder
// at its current D and E, by loops.
func linearJ(l *autoenc.Linear) float64 {
	n, d := l.X.Dims()
	_, r := l.D.Dims()
	s := 0.0
	for i := range n {
		code := make([]float64, r)
		for k := range r {
			for c := range d {
				code[k] += l.E.At(k, c) * l.X.At(i, c)
			}
		}
		for c := range d {
			rec := 0.0
			for k := range r {
				rec += l.D.At(c, k) * code[k]
			}
			s += (l.X.At(i, c) - rec) * (l.X.At(i, c) - rec)
		}
	}
	return s / float64(n)
}

// TestAutoencoderOneState: every frame's J, gap, and the J chart's last
// point (step k's) are the reconstruction error of the D and E the
// picture draws, computed here; in mode nonlinear, so is `linear` (issue
// 28.1: J was of (D, E) before the last step, so that the chart's rows 0
// and 1 were both J(θ₀) = 4.32706). The network's loss is its last
// minibatch's, undefined before the first step.
func TestAutoencoderOneState(t *testing.T) {
	s := simtest.Build(t, Autoencoder, nil, 1, nil)
	l := s.(*pcaSim).l
	for step := 0; step <= 20; step++ {
		if step > 0 {
			simtest.Run(t, s, 1)
		}
		f := s.Frame()
		want := linearJ(l)
		algotest.Near(t, fmt.Sprintf("J at step %d", step), simtest.Metric(t, f, "J"), want, 1e-12*want)
		algotest.Near(t, fmt.Sprintf("gap at step %d", step), simtest.Metric(t, f, "gap"), want-l.Floor(), 1e-12*want)
		j, _ := f.Series("J")
		if len(j.Y) != step+1 {
			t.Fatalf("step %d: %d J points", step, len(j.Y))
		}
		algotest.Near(t, fmt.Sprintf("the chart's J at step %d", step), j.Y[step], want, 1e-12*want)
	}
	nl := simtest.Build(t, Autoencoder, map[string]string{"mode": "nonlinear"}, 1, nil)
	lin := nl.(*nonlinSim).lin
	for step := 0; step <= 5; step++ {
		if step > 0 {
			simtest.Run(t, nl, 1)
		}
		f := nl.Frame()
		want := linearJ(lin)
		algotest.Near(t, fmt.Sprintf("linear at step %d", step), simtest.Metric(t, f, "linear"), want, 1e-12*want)
		if step > 0 {
			lc, _ := f.Series("linear")
			algotest.Near(t, fmt.Sprintf("the chart's linear at step %d", step), lc.Y[step-1], want, 1e-12*want)
		}
		if n := metric(f, "network"); (step == 0) != (n.Undefined != "") {
			t.Errorf("step %d: network %+v", step, n)
		}
	}
}

// metric is the frame's metric of that name.
func metric(f sims.Frame, name string) sims.Metric {
	for _, m := range f.Metrics {
		if m.Name == name {
			return m
		}
	}
	return sims.Metric{}
}

// TestAutoencoderNonlinearBelowFloor: on the moons a network with a 1-D
// code goes below the floor that bounds every linear autoencoder of code
// 1, which the linear one beside it reaches, by step 450 on seed 1 (the
// network at 0.67 of the floor, the linear one within 7e-8 of it; at 350
// 0.65 and 1.1e-6, and the network's loss is not monotone: 0.81 at 400).
func TestAutoencoderNonlinearBelowFloor(t *testing.T) {
	s := simtest.Build(t, Autoencoder, map[string]string{"mode": "nonlinear"}, 1, nil)
	simtest.Run(t, s, 450)
	f := s.Frame()
	floor := simtest.Metric(t, f, "floor")
	algotest.Near(t, "linear", simtest.Metric(t, f, "linear"), floor, 1e-6*floor)
	if nl := simtest.Metric(t, f, "network"); nl > 0.75*floor {
		t.Errorf("network %g, floor %g", nl, floor)
	}
}

// TestAutoencoderDenoiseTweedie: the denoising AE's map on the ring comes
// within a tenth of the Bayes error of Tweedie's E[X|Y] by step 450 on
// seed 1, as a running pane shows it: the distance measured at step 441,
// the last of the measures every 10 steps, 0.046 of it (those of steps
// 341, 391 and 291 were 0.07, 0.10 and 0.19), which the notes say. The
// distance is measured at step 450 when the pane settles (not running).
// The loss is undefined before the first step. A target that is not a
// mixture is refused.
func TestAutoencoderDenoiseTweedie(t *testing.T) {
	s := simtest.Build(t, Autoencoder, map[string]string{"mode": "denoise"}, 1, nil)
	if m := metric(s.Frame(), "loss"); m.Undefined == "" {
		t.Errorf("loss at step 0: %+v", m)
	}
	simtest.Run(t, s, 450)
	f := s.Frame()
	if d, b := simtest.Metric(t, f, "to_tweedie"), simtest.Metric(t, f, "bayes"); d > 0.1*b {
		t.Errorf("distance to Tweedie %g, Bayes error %g", d, b)
	}
	if !strings.Contains(simtest.Text(f), "to_tweedie as of step 441") {
		t.Errorf("notes %q do not say the distance is of step 441", simtest.Text(f))
	}
	d := s.(*daeSim)
	s.(sims.Settler).Settle()
	f = s.Frame()
	algotest.Near(t, "to_tweedie settled", simtest.Metric(t, f, "to_tweedie"), d.distance(), 0)
	if strings.Contains(simtest.Text(f), "as of step") {
		t.Errorf("settled notes %q", simtest.Text(f))
	}
	_, err := simtest.BuildErr(Autoencoder, map[string]string{"mode": "denoise", "target": "moons"}, 1, nil)
	if err == nil {
		t.Error("denoise on moons accepted")
	}
}
