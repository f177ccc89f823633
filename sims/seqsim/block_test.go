package seqsim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// blockSet is the block view's test settings over set: a small model
// (width 16, 2 heads, ffn 32, batches of 4) on 2000 characters.
func blockSet(set map[string]string) map[string]string {
	all := map[string]string{"view": "block", "eval_every": "1000", "chars": "2000", "dim": "16", "heads": "2", "ffn": "32", "batch": "4"}
	for k, v := range set {
		all[k] = v
	}
	return all
}

// TestBlockView (seed 000 §2.9, seed 002 G4): the block view's pass is
// over the first n_ctx held-out characters, labelled by them; its stream
// heat map starts from ‖C x_t + P_t‖ recomputed here from the embedding
// and position tables; the LayerNorm chart's normalised output has mean
// 0 and standard deviation √(σ²/(σ² + ε)) of its input's σ at every
// position (to 1e-12); before training, a post-norm model's stream after each
// LayerNorm (γ = 1, β = 0) has norm √(d σ²/(σ² + ε)) ≈ √d; and the pass
// is run once a step, however many Frames are drawn.
func TestBlockView(t *testing.T) {
	for _, c := range []struct {
		norm  string
		steps int
	}{{"pre", 3}, {"post", 0}} {
		t.Run(c.norm, func(t *testing.T) {
			s := simtest.Build(t, TinyGPT, blockSet(map[string]string{"norm": c.norm}), 1, nil).(*gptSim)
			simtest.Run(t, s, c.steps)
			f := s.Frame()
			b := s.blk
			if b.at != c.steps || !simtest.FiniteMetrics(t, f) || len(f.Charts) != 4 {
				t.Fatalf("pass of step %d after %d; %d charts; metrics %v", b.at, c.steps, len(f.Charts), f.Metrics)
			}
			T, d, N := b.in.T, s.cfg.Dim, s.cfg.Layers
			heat := f.Charts[0].(sims.CanvasChart)
			held := strings.ReplaceAll(shown(s.lm.c.vocab, s.lm.c.held[:T]), " ", "␣")
			if T != s.cfg.Context || strings.Join(heat.XIndex.Labels, "") != held || len(heat.YIndex.Labels) != 2*N+1 {
				t.Errorf("%d positions labelled %q (held-out %q), stages %q", T, strings.Join(heat.XIndex.Labels, ""), held, heat.YIndex.Labels)
			}
			tok, pos := s.g.Params()[0].Data, s.g.Params()[1].Data // C [V, d], learned P [n_ctx, d]
			for i, id := range b.ids {
				sq := 0.0
				for j := range d {
					e := tok[id*d+j] + pos[i*d+j]
					sq += e * e
				}
				algotest.Near(t, fmt.Sprintf("‖h_0‖ at %d", i), heat.Heat.Z[i], math.Sqrt(sq), 1e-12)
			}
			ln := f.Charts[1].(sims.LineChart)
			for i := range T {
				v := ln.Series[0].Y[i] * ln.Series[0].Y[i]
				algotest.Near(t, fmt.Sprintf("σ of x̂ at %d", i), ln.Series[2].Y[i], math.Sqrt(v/(v+seq.LNEps)), 1e-12)
				algotest.Near(t, fmt.Sprintf("μ of x̂ at %d", i), ln.Series[3].Y[i], 0, 1e-12)
			}
			if c.norm == "post" {
				for k := range 2 * N {
					for i := range T {
						want := math.Sqrt(float64(d) * b.in.VarHat[k*T+i])
						algotest.Near(t, fmt.Sprintf("‖h‖ at stage %d, position %d", k+1, i), heat.Heat.Z[(k+1)*T+i], want, 1e-12)
					}
				}
			}
			n := b.tp.Len()
			b.tp.Rewind()
			s.Frame()
			if b.tp.Len() != 0 {
				t.Errorf("a second Frame of step %d ran the pass again (%d tape nodes, %d before)", c.steps, b.tp.Len(), n)
			}
		})
	}
	if _, err := simtest.BuildErr(TinyGPT, map[string]string{"view": "block", "task": "copy"}, 1, nil); err == nil || !strings.Contains(err.Error(), "task") {
		t.Errorf("block view of a puzzle: %v", err)
	}
}

// TestTinyGPTParamCounts (seed 000 §2.4): the default model has 27 200
// parameters (22 characters, d = 32, n_ctx = 32: 704 in the table C and
// 1024 in the position rows, 25 472 in the blocks and the final
// LayerNorm); untying the decoder adds n_voc·d = 704, and the count
// without embeddings is 25 472 either way.
func TestTinyGPTParamCounts(t *testing.T) {
	for _, c := range []struct {
		tied       string
		all, noEmb float64
	}{{"on", 27200, 25472}, {"off", 27200 + 704, 25472}} {
		s := simtest.Build(t, TinyGPT, map[string]string{"tied": c.tied}, 1, nil)
		f := s.Frame()
		if got, no := simtest.Metric(t, f, "params"), simtest.Metric(t, f, "params_no_emb"); got != c.all || no != c.noEmb {
			t.Errorf("tied=%s: params %v, without embeddings %v; want %v, %v", c.tied, got, no, c.all, c.noEmb)
		}
		if V := s.(*gptSim).cfg.Vocab; V != 22 {
			t.Errorf("vocabulary %d, want 22", V)
		}
	}
}
