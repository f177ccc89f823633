package seqsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestRNN (catalogue §2.5, G2): the reference curves are ρ^T exactly
// (0.9⁵⁰ = 0.00515, 1.1⁵⁰ = 117.4); after 225 steps on seed 1 the RNN's
// held-out loss beats the best k-gram model counted on the same text and
// scored on the same positions, and stays above the entropy rate. The run
// is the golden frame's, continued (rnnAt225).
func TestRNN(t *testing.T) {
	g, err := rnnAt225()
	if err != nil {
		t.Fatal(err)
	}
	for i, rho := range rnnRhos {
		algotest.Near(t, "ρ^50", g.ref[i][49], math.Pow(rho, 50), 1e-9*math.Pow(rho, 50))
	}
	algotest.Near(t, "0.9⁵⁰", g.ref[0][49], 0.00515, 1e-5)
	algotest.Near(t, "1.1⁵⁰", g.ref[2][49], 117.39, 1e-2)
	f := g.Frame()
	if f.Step != rnnTestSteps {
		t.Fatalf("frame of step %d, want %d", f.Step, rnnTestSteps)
	}
	held, kg, rate := simtest.Metric(t, f, "held-out"), simtest.Metric(t, f, "best k-gram"), simtest.Metric(t, f, "entropy rate")
	if held >= kg || held < rate {
		t.Errorf("held-out %.4f, best k-gram %.4f, entropy rate %.4f", held, kg, rate)
	}
	if !simtest.FiniteMetrics(t, f) || len(g.lm.sample) == 0 {
		t.Errorf("frame %v, sample %q", f.Metrics, g.lm.sample)
	}
}
