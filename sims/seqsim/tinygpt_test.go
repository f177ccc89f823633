package seqsim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestTinyGPTCopy ([A20], issue 16's oracle): the default transformer
// answers 99% or more of 200 fresh copy puzzles of 4 digits exactly by
// greedy decoding after 45 steps on seed 1 (every one from step 25; at
// 8 digits 0.99 at step 30, 1 at step 40, but each evaluation's 200
// greedy decodes cost twice as much), and each
// attention map row of the example's last pass sums to 1 with nothing on
// a later key.
func TestTinyGPTCopy(t *testing.T) {
	s := simtest.Build(t, TinyGPT, map[string]string{"task": "copy", "length": "4", "eval_every": "45"}, 1, nil)
	simtest.Run(t, s, 45)
	f := s.Frame()
	if em := simtest.Metric(t, f, "exact match"); em < 0.99 {
		t.Errorf("exact match %.3f after 45 steps", em)
	}
	g := s.(*gptSim)
	T, H := g.mapsT, g.cfg.Heads
	W := H*(T+1) - 1
	for h := range H {
		for i := range T {
			sum := 0.0
			for j := range T {
				w := g.maps[(T-1-i)*W+h*(T+1)+j]
				sum += w
				if j > i && w != 0 {
					t.Errorf("head %d: weight (%d, %d) = %g after the mask", h, i, j, w)
				}
			}
			algotest.Near(t, fmt.Sprintf("head %d row %d", h, i), sum, 1, 1e-12)
		}
	}
	if !strings.Contains(simtest.Text(f), "(right)") {
		t.Errorf("text %q", simtest.Text(f))
	}
}

// TestTinyGPTText: on text the counters follow the cost model (27 200
// parameters by default), a few steps give finite figures and a sample
// (the golden frame's run, 10 steps), and a network too large for the
// pane says so and names the headless run.
func TestTinyGPTText(t *testing.T) {
	r, err := gptText()
	if err != nil {
		t.Fatal(err)
	}
	s := r.Sim
	f := s.Frame()
	if p := simtest.Metric(t, f, "params"); p != 27200 || !simtest.FiniteMetrics(t, f) || len(s.(*gptSim).lm.sample) == 0 {
		t.Errorf("%v params; metrics %v", p, f.Metrics)
	}
	big := simtest.Build(t, TinyGPT, map[string]string{"dim": "128", "layers": "4"}, 1, nil) // too slow for a pane, within the ranges and sims.MaxBytes
	if txt := simtest.Text(big.Frame()); !strings.Contains(txt, "headless") {
		t.Errorf("a large network's text: %q", txt)
	}
	if _, err := simtest.BuildErr(TinyGPT, map[string]string{"dim": "30", "heads": "4"}, 1, nil); err == nil || !strings.Contains(err.Error(), "heads") {
		t.Errorf("dim 30 with 4 heads: %v", err)
	}
}
