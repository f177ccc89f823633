package gensim

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestFlowAffineMLE: the affine flow's a and b reach the population s.d.
// and the mean of its data, and the NLL the floor ½ log(2πe σ̂²).
func TestFlowAffineMLE(t *testing.T) {
	s := simtest.Build(t, Flow, map[string]string{"mode": "affine"}, 1, nil)
	simtest.Run(t, s, 200)
	f := s.Frame()
	algotest.Near(t, "a", simtest.Metric(t, f, "a"), simtest.Metric(t, f, "sd"), 1e-9)
	algotest.Near(t, "b", simtest.Metric(t, f, "b"), simtest.Metric(t, f, "mean"), 1e-9)
	algotest.Near(t, "NLL", simtest.Metric(t, f, "NLL"), 0.5*math.Log(2*math.Pi*math.E)+math.Log(simtest.Metric(t, f, "sd")), 1e-12)
}

// TestFlowTriangular: bisection stops at the preimage (residual at
// machine precision) and β ≤ −1 is refused with the reason.
func TestFlowTriangular(t *testing.T) {
	s := simtest.Build(t, Flow, map[string]string{"mode": "triangular", "tol": "1e-12"}, 1, nil)
	steps := simtest.RunToEnd(t, s, 500)
	f := s.Frame()
	if r := simtest.Metric(t, f, "residual"); r > 1e-11 {
		t.Errorf("residual %g after %d steps", r, steps)
	}
	_, err := simtest.BuildErr(Flow, map[string]string{"mode": "triangular", "beta": "-1.5"}, 1, nil)
	algotest.WantParam(t, err, "beta")
}

// TestFlowRealNVPLearns: the NLL on moons falls from the identity flow's
// (½E‖x‖² + log 2π ≈ 2.4) by more than half a nat in 200 steps (seed 1:
// 2.43 → 1.52; 400 steps reach 1.48).
func TestFlowRealNVPLearns(t *testing.T) {
	s := simtest.Build(t, Flow, nil, 1, nil)
	simtest.Run(t, s, 1)
	first := simtest.Metric(t, s.Frame(), "NLL")
	simtest.Run(t, s, 200)
	if last := simtest.Metric(t, s.Frame(), "NLL"); last > first-0.5 {
		t.Errorf("NLL %g → %g", first, last)
	}
}

// TestFlowICDF: the exponential's running mean within 4 standard errors of
// 1/λ and √n·D_n below Kolmogorov's 0.1% point 1.95.
func TestFlowICDF(t *testing.T) {
	s := simtest.Build(t, Flow, map[string]string{"mode": "icdf", "lambda": "2"}, 1, nil)
	simtest.Run(t, s, 100)
	f := s.Frame()
	n := simtest.Metric(t, f, "n")
	algotest.Near(t, "mean", simtest.Metric(t, f, "mean"), 0.5, 4*0.5/math.Sqrt(n))
	if k := simtest.Metric(t, f, "sqrt_n_KS"); k > 1.95 {
		t.Errorf("√n D_n = %g", k)
	}
}
