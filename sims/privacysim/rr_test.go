package privacysim_test

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/privacysim"
	"github.com/thelab/lab/sims/simtest"
)

// TestRandomizedResponsePane: after 20 000 respondents the pane's p̂ is
// within 4σ of p, the answer rates' ratio near 3, ε = ln 3; for honest
// = 0.8, ε = ln 9.
func TestRandomizedResponsePane(t *testing.T) {
	for _, tt := range []struct {
		honest string
		eps    float64
	}{{"0.5", math.Log(3)}, {"0.8", math.Log(9)}} {
		s := simtest.Build(t, privacysim.RandomizedResponse, map[string]string{"p": "0.3", "honest": tt.honest}, 4, nil)
		simtest.Run(t, s, 20000)
		f := s.Frame()
		algotest.Near(t, "p̂", simtest.Metric(t, f, "p̂"), 0.3, 2*simtest.Metric(t, f, "±2σ"))
		algotest.Near(t, "ε", simtest.Metric(t, f, "ε"), tt.eps, 1e-12)
		lr := math.Exp(tt.eps)
		algotest.Near(t, "ratio", simtest.Metric(t, f, "ratio"), lr, 0.15*lr)
		simtest.FiniteMetrics(t, f)
	}
	_, err := simtest.BuildErr(privacysim.RandomizedResponse, map[string]string{"honest": "1"}, 1, nil)
	if err == nil {
		t.Fatal("honest = 1 accepted")
	}
}
