package seqsim

import (
	"testing"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/sims/simtest"
)

// TestSeq2SeqFamous (G6, [A19]; a measured property, seeded): at its
// defaults (reverse, L = 8 of 10 symbols) the untrained cross-attention
// is near uniform (mass on the anti-diagonal about 1/L), and by the
// Famous step the greedy decoding of the held-out set is right on at
// least 95% of sequences with at least 0.9 of the attention on the right
// position, and the example's map is the anti-diagonal: each row's
// largest weight on π(t) = L−1−t.
func TestSeq2SeqFamous(t *testing.T) {
	s := simtest.Build(t, Seq2Seq, nil, 1, nil)
	f := s.Frame()
	if m := simtest.Metric(t, f, "mass on π"); m > 0.3 {
		t.Errorf("mass on π %.3f before training, want near 1/8", m)
	}
	simtest.Run(t, s, Seq2Seq.Famous)
	f = s.Frame()
	acc, mass := simtest.Metric(t, f, "sequence accuracy"), simtest.Metric(t, f, "mass on π")
	if acc < 0.95 || mass < 0.9 {
		t.Errorf("step %d: sequence accuracy %.3f, mass on π %.3f; want ≥ 0.95 and ≥ 0.9", f.Step, acc, mass)
	}
	g := s.(*s2sSim)
	L := g.L
	for i := range L {
		row := g.w[i*L : (i+1)*L]
		best := 0
		for j := range row {
			if row[j] > row[best] {
				best = j
			}
		}
		if best != L-1-i || g.out[i] != g.tgt[i] {
			t.Errorf("row %d: largest weight at %d, want %d; decoded %d, want %d", i, best, L-1-i, g.out[i], g.tgt[i])
		}
	}
	if !simtest.FiniteMetrics(t, f) {
		t.Errorf("metrics %v", f.Metrics)
	}
}

// TestSeq2SeqCopy: the copy task's alignment is the diagonal, and a
// small copy run learns it (L = 4 of 6 symbols).
func TestSeq2SeqCopy(t *testing.T) {
	s := simtest.Build(t, Seq2Seq, map[string]string{"task": "copy", "length": "4", "symbols": "6", "lr": "0.01"}, 2, nil)
	g := s.(*s2sSim)
	for i := range 4 {
		if g.m.Aligned(i) != i || g.tgt[i] != g.ex[i] {
			t.Fatalf("copy: π(%d) = %d, target %v of %v", i, g.m.Aligned(i), g.tgt, g.ex)
		}
	}
	simtest.Run(t, s, 60)
	f := s.Frame()
	if acc, mass := simtest.Metric(t, f, "sequence accuracy"), simtest.Metric(t, f, "mass on π"); acc < 0.95 || mass < 0.9 {
		t.Errorf("copy after 60 steps: sequence accuracy %.3f, mass on π %.3f", acc, mass)
	}
	if g.m.Config().Task != seq.Copy {
		t.Errorf("task %v", g.m.Config().Task)
	}
}
