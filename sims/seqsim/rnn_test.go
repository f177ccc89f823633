package seqsim

import (
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestRNN (catalogue §2.5, G2): the reference curves are ρ^T exactly
// (0.9⁵⁰ = 0.00515, 1.1⁵⁰ = 117.4); after 225 steps on seed 1 the RNN's
// held-out loss beats the best k-gram model counted on the same text and
// scored on the same positions, and stays above the entropy rate (22 ms
// a step under -race). The run evaluates at steps 1 and 225 only
// (eval_every 225, not the default 25): the held-out pass, not training,
// was two thirds of the CPU, and an evaluation draws nothing from the
// training stream, so step 225's figures are the default run's to the
// last digit (held-out 0.407501); TestEvaluationsSayTheirStep covers the
// evaluation schedule.
func TestRNN(t *testing.T) {
	const steps = 225
	s := simtest.Build(t, RNN, map[string]string{"eval_every": "225"}, 1, nil)
	simtest.Run(t, s, steps)
	g := s.(*rnnSim)
	for i, rho := range rnnRhos {
		algotest.Near(t, "ρ^50", g.ref[i][49], math.Pow(rho, 50), 1e-9*math.Pow(rho, 50))
	}
	algotest.Near(t, "0.9⁵⁰", g.ref[0][49], 0.00515, 1e-5)
	algotest.Near(t, "1.1⁵⁰", g.ref[2][49], 117.39, 1e-2)
	f := g.Frame()
	if f.Step != steps {
		t.Fatalf("frame of step %d, want %d", f.Step, steps)
	}
	held, kg, rate := simtest.Metric(t, f, "held-out"), simtest.Metric(t, f, "best k-gram"), simtest.Metric(t, f, "entropy rate")
	if held >= kg || held < rate {
		t.Errorf("held-out %.4f, best k-gram %.4f, entropy rate %.4f", held, kg, rate)
	}
	if !simtest.FiniteMetrics(t, f) || len(g.lm.sample) == 0 {
		t.Errorf("frame %v, sample %q", f.Metrics, g.lm.sample)
	}
}

// TestEvaluationsSayTheirStep (issue 28.1's audit): the held-out figures,
// the sample, the RNN's ‖∂h_50/∂h_0‖ and the puzzles' exact match come
// from the last evaluation, at step 1 and every eval_every steps, while
// the batch loss is the step's: the notes say which step they are of.
func TestEvaluationsSayTheirStep(t *testing.T) {
	for _, c := range []struct {
		spec *sims.Spec
		set  map[string]string
	}{
		{RNN, map[string]string{"chars": "1000", "hidden": "8", "context": "8", "batch": "2", "eval_every": "4"}},
		{TinyGPT, map[string]string{"task": "sort", "length": "2", "dim": "8", "heads": "1", "layers": "1", "ffn": "8", "batch": "2", "eval_every": "4"}},
	} {
		s := simtest.Build(t, c.spec, c.set, 1, nil)
		for _, w := range []struct {
			to   int
			want string
		}{{0, "not evaluated yet (at step 1, then every 4 steps)"}, {1, "as of step 1 (evaluated every 4 steps)"},
			{3, "as of step 1 (evaluated every 4 steps)"}, {6, "as of step 4 (evaluated every 4 steps)"}} {
			simtest.Run(t, s, w.to-s.Frame().Step)
			if txt := simtest.Text(s.Frame()); !strings.Contains(txt, w.want) {
				t.Errorf("%s at step %d: %q, want %q", c.spec.Name, w.to, txt, w.want)
			}
		}
	}
}
