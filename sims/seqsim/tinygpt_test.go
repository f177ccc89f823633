package seqsim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/sims/simtest"
)

// TestTinyGPTCopy ([A20], issue 16's oracle): the default transformer
// answers 99% or more of 200 fresh copy puzzles of 4 digits exactly by
// greedy decoding after 30 steps on seed 1 (every one from step 25, 0.73
// at step 20; at 8 digits 0.99 at step 30, 1 at step 40, but each
// evaluation's 200 greedy decodes cost twice as much), and each
// attention map row of the example's last pass sums to 1 with nothing on
// a later key.
func TestTinyGPTCopy(t *testing.T) {
	const steps = 30
	s := simtest.Build(t, TinyGPT, map[string]string{"task": "copy", "length": "4", "eval_every": fmt.Sprint(steps)}, 1, nil)
	simtest.Run(t, s, steps)
	f := s.Frame()
	if em := simtest.Metric(t, f, "exact match"); em < 0.99 {
		t.Errorf("exact match %.3f after %d steps", em, steps)
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
	// The maps are labelled by the tokens of that pass: the question, the
	// separator, the answer but its last digit.
	if l := g.mapLabels; len(l) != T || l[4] != "|" || strings.Join(l[:4], "") != strings.Fields(g.example)[0] ||
		strings.Join(l[5:], "") != strings.Fields(g.example)[2][:3] {
		t.Errorf("map labels %q for the example %q", l, g.example)
	}
}

// TestTinyGPTText: on text the counters follow the cost model (27 200
// parameters by default), a few steps give finite figures and a sample
// (10 steps with an evaluation at the first and the tenth: an evaluation
// on text costs a second under -race), and a network too large for the
// pane says so and names the headless run.
func TestTinyGPTText(t *testing.T) {
	s := simtest.Build(t, TinyGPT, map[string]string{"eval_every": "10"}, 1, nil)
	simtest.Run(t, s, 10)
	f := s.Frame()
	g := s.(*gptSim)
	if p := simtest.Metric(t, f, "params"); p != 27200 || !simtest.FiniteMetrics(t, f) || len(g.lm.sample) != 1+lmSample {
		t.Errorf("%v params; metrics %v; sample %q", p, f.Metrics, g.lm.sample)
	}
	// The attention maps are the last pass's, over the 32 characters
	// before the sample's last, and labelled by them (spaces as ␣).
	if want := strings.ReplaceAll(g.lm.sample[lmSample-32:lmSample], " ", "␣"); g.mapsT != 32 || strings.Join(g.mapLabels, "") != want {
		t.Errorf("maps of %d tokens labelled %q, want %q", g.mapsT, strings.Join(g.mapLabels, ""), want)
	}
	big := simtest.Build(t, TinyGPT, map[string]string{"dim": "128", "layers": "4"}, 1, nil) // too slow for a pane, within the ranges and sims.MaxBytes
	if txt := simtest.Text(big.Frame()); !strings.Contains(txt, "headless") {
		t.Errorf("a large network's text: %q", txt)
	}
	if _, err := simtest.BuildErr(TinyGPT, map[string]string{"dim": "30", "heads": "4"}, 1, nil); err == nil || !strings.Contains(err.Error(), "heads") {
		t.Errorf("dim 30 with 4 heads: %v", err)
	}
}

// TestPuzzlesForIsBudgeted: an exact-match evaluation scores 200 puzzles
// of the default model, and of a larger one as many as gptEvalFLOPs pays
// for — the most it pays for, and never fewer than gptMinPuzzles.
func TestPuzzlesForIsBudgeted(t *testing.T) {
	def := seq.GPTConfig{Vocab: 9, Context: 16, Dim: 32, Heads: 4, Layers: 2, FFN: 128, Positions: seq.Learned}
	wide := def
	wide.Dim, wide.FFN = 128, 1024
	deep := def
	deep.Layers = 6
	for _, c := range []struct {
		name string
		cfg  seq.GPTConfig
		L    int
		want int // 0: within the budget's bounds
	}{
		{"defaults", def, 8, gptPuzzles},
		{"length 16", def, 16, 0},
		{"length 16, 6 layers", deep, 16, 0},
		{"length 16, dim 128, ffn 1024", wide, 16, gptMinPuzzles},
	} {
		c.cfg.Context = 2 * c.L
		n := puzzlesFor(c.cfg, c.L)
		var per float64
		for j := range c.L {
			per += 2 * seq.CostOf(c.cfg, c.L+1+j).Forward()
		}
		switch {
		case c.want != 0 && n != c.want:
			t.Errorf("%s: %d puzzles, want %d", c.name, n, c.want)
		case n < gptMinPuzzles || n > gptPuzzles:
			t.Errorf("%s: %d puzzles, outside [%d, %d]", c.name, n, gptMinPuzzles, gptPuzzles)
		case n > gptMinPuzzles && float64(n)*per > gptEvalFLOPs:
			t.Errorf("%s: %d puzzles cost %.3g FLOPs, over %.3g", c.name, n, float64(n)*per, gptEvalFLOPs)
		case n < gptPuzzles && float64(n+1)*per <= gptEvalFLOPs:
			t.Errorf("%s: %d puzzles, though %d fit in %.3g FLOPs", c.name, n, n+1, gptEvalFLOPs)
		}
	}
}
