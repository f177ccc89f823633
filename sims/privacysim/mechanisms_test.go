package privacysim_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/privacysim"
	"github.com/thelab/lab/sims/simtest"
)

// TestMechanismsPane: the Gaussian N(1, 2²) against N(0, 2²) shows D_3 =
// 0.375 and its Monte Carlo estimate within 4 standard errors (the
// log-mean-exp of e^{2L}, L ∼ N(1/8, 1/4): relative s.d. √(e − 1) per
// draw); releases stop at the budget, never past it; a budget that one
// release exceeds is refused with a message.
func TestMechanismsPane(t *testing.T) {
	s := simtest.Build(t, privacysim.Mechanisms, map[string]string{"budget": "10"}, 2, nil)
	steps, done := simtest.RunUntil(t, s, 100)
	if !done {
		t.Fatal("the budget never ran out")
	}
	f := s.Frame()
	algotest.Near(t, "D3", simtest.Metric(t, f, "D_α"), 0.375, 1e-15)
	draws := 4000.0 * float64(steps)
	se := 1.3108 / (2 * math.Sqrt(draws))
	algotest.Near(t, "Monte Carlo D3", simtest.Metric(t, f, "MC"), 0.375, 4*se)
	if e := simtest.Metric(t, f, "ε RDP"); e > 10 || e < 9 {
		t.Errorf("spent ε = %v, budget 10", e)
	}
	if simtest.Metric(t, f, "ε k·ε") <= simtest.Metric(t, f, "ε RDP") {
		t.Error("RDP composition no better than k·ε")
	}

	l := simtest.Build(t, privacysim.Mechanisms, map[string]string{"mech": "laplace", "eps": "1", "budget": "10"}, 2, nil)
	steps, _ = simtest.RunUntil(t, l, 100)
	if steps < 10 {
		t.Errorf("Laplace ε = 1 stopped after %d releases, budget 10", steps)
	}
	if e := simtest.Metric(t, l.Frame(), "ε RDP"); e > 10 {
		t.Errorf("Laplace spent %v > 10", e)
	}

	_, err := simtest.BuildErr(privacysim.Mechanisms, map[string]string{"budget": "1"}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "unreachable") || errors.Is(err, sims.ErrConverged) {
		t.Fatalf("budget 1: %v", err)
	}
}
