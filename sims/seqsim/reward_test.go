package seqsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestReward ([A21]): before any comparison the loss is log 2; after 600
// steps of 20 comparisons (some 800 per pair of the 6 responses) every
// learned difference is within 0.25 of the truth (about 3 standard errors
// of 1/√(800·σ(1−σ)) ≤ 0.08), the expected loss is within 0.01 of its
// floor, and the policy is within 1e-3 nats of π_SFT·exp(r*/β); with a
// huge β the target is π_SFT.
func TestReward(t *testing.T) {
	s := simtest.Build(t, Reward, nil, 1, nil)
	algotest.Near(t, "loss at r̂ = 0", simtest.Metric(t, s.Frame(), "loss"), math.Ln2, 1e-15)
	simtest.Run(t, s, 600)
	g := s.(*rewardSim)
	f := s.Frame()
	exp := g.trace.Column(1)
	if gap := simtest.Metric(t, f, "max |Δr̂ − Δr*|"); gap > 0.25 || exp[len(exp)-1]-g.floor > 0.01 || simtest.Metric(t, f, "KL(π‖π*)") > 1e-3 {
		t.Errorf("gap %.3f, expected loss %.4f over floor %.4f, KL %.3g", gap, exp[len(exp)-1], g.floor, simtest.Metric(t, f, "KL(π‖π*)"))
	}
	h := simtest.Build(t, Reward, map[string]string{"beta": "100"}, 1, nil).(*rewardSim)
	for i, p := range h.p.SFT() {
		algotest.Near(t, "β = 100", h.target[i], p, 0.05*p)
	}
	if _, err := simtest.BuildErr(Reward, map[string]string{"beta": "10", "eta": "1"}, 1, nil); err == nil {
		t.Error("ηβ = 10 accepted")
	}
}
