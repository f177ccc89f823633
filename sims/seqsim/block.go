package seqsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
)

// blockView is tinygpt's block view (issue 29; seed 000 §2.6, eq
// 2.15–2.17; seed 002 G4): one forward pass of the model as it trains,
// over a fixed window (the first n_ctx characters of the held-out text),
// opened up by seq.Inside — the residual stream's norm at every stage of
// every position, what each sublayer adds to it, the statistics of the
// last LayerNorm's input and of its normalised output, and how many of
// the feed-forward layer's ReLU units fire. The pass is run at most once
// a training step, when a Frame asks for it.
type blockView struct {
	g      *seq.GPT
	tp     *tensor.Tape
	ids    []int
	labels []string
	in     *seq.Inside
	at     int // the training step of the figures (-1: none yet)
	err    error
}

// blockBytes is what a blockView holds: the tape of a pass over T tokens,
// the Inside, the window and its labels, and a Frame's copies of them.
func blockBytes(c seq.GPTConfig, T int) int64 {
	return seq.GeneratorBytes(c, T, T, T+1) + 2*seq.InsideBytes(c, T) + tensor.Alloc(T) + int64(T)*16
}

// newBlockView reads the window of c's held-out text (n_ctx characters,
// fewer if it is shorter).
func newBlockView(c *corpus, g *seq.GPT) (*blockView, error) {
	T := min(g.Context(), len(c.held))
	in, err := seq.NewInside(g.Config(), T)
	if err != nil {
		return nil, err
	}
	b := &blockView{g: g, tp: tensor.NewForwardTape(), ids: c.held[:T], in: in, at: -1}
	for _, id := range b.ids {
		b.labels = append(b.labels, sims.Visible(string(c.vocab.Rune(id)), sims.MarkSpaces))
	}
	return b, nil
}

// refresh runs the pass if the model has trained since the last one.
func (b *blockView) refresh(step int) {
	if b.at != step {
		b.err, b.at = b.g.Inspect(b.tp, b.ids, b.in), step
	}
}

// stages names the residual stream's 2N+1 stages, bottom up: the
// embeddings, then each block's stream after attention (+a) and after
// the feed-forward layer (+f).
func (b *blockView) stages() []string {
	s := []string{"emb"}
	for l := range b.in.Layers {
		s = append(s, fmt.Sprintf("+a%d", l+1), fmt.Sprintf("+f%d", l+1))
	}
	return s
}

// stream is the heat map of ‖h‖: positions across, stages bottom up.
func (b *blockView) stream() sims.CanvasChart {
	T, S := b.in.T, 2*b.in.Layers+1
	z := append([]float64(nil), b.in.Stream...)
	hi := 0.0
	for _, v := range z {
		hi = max(hi, v)
	}
	return sims.CanvasChart{Title: "‖h‖ along the residual stream",
		View:   sims.Rect{XMin: 0, XMax: float64(T), YMin: 0, YMax: float64(S)},
		Heat:   &sims.Grid{NX: T, NY: S, Z: z, Scale: sims.Sequential, Lo: 0, Hi: hi},
		XLabel: "position", YLabel: "stage",
		XIndex: &sims.Index{First: 0, Last: T - 1, At: 0.5, Step: 1, Labels: b.labels},
		YIndex: &sims.Index{First: 0, Last: S - 1, At: 0.5, Step: 1, Labels: b.stages()}}
}

// lnName names LayerNorm k as the notes place it, briefly.
func (b *blockView) lnName(k int) string {
	if k == 2*b.in.Layers {
		return "final LN"
	}
	what := [2]string{"LN before attn", "LN before ffn"}
	if b.in.Norm == seq.Post {
		what = [2]string{"LN after attn", "LN after ffn"}
	}
	return fmt.Sprintf("%s %d", what[k%2], k/2+1)
}

// layerNorm is the last LayerNorm's input mean and standard deviation at
// each position, and its normalised output's x̂, before γ and β: 0 and 1
// (σ rather than σ², so that the input's scale does not flatten the
// output's 1).
func (b *blockView) layerNorm() sims.LineChart {
	T, k := b.in.T, b.in.LNs-1
	cut := func(s []float64, sqrt bool) []float64 {
		out := append([]float64(nil), s[k*T:(k+1)*T]...)
		if sqrt {
			for i, v := range out {
				out[i] = math.Sqrt(v)
			}
		}
		return out
	}
	return sims.LineChart{Title: b.lnName(k) + ": μ, σ in and out", X0: 0, X1: float64(T - 1), XLabel: "position",
		Series: []sims.Series{
			{Name: "σ in", Y: cut(b.in.VarIn, true), Class: 0},
			{Name: "μ in", Y: cut(b.in.MeanIn, false), Class: 1},
			{Name: "σ out", Y: cut(b.in.VarHat, true), Class: 2},
			{Name: "μ out", Y: cut(b.in.MeanHat, false), Class: 3},
		}}
}

// adds is the mean over positions of ‖Δ‖/‖x‖ for each sublayer.
func (b *blockView) adds() sims.BarChart {
	T := b.in.T
	c := sims.BarChart{Title: "‖Δ‖/‖h‖ each sublayer adds"}
	for l := range b.in.Layers {
		c.Bars = append(c.Bars,
			sims.Bar{Label: fmt.Sprintf("attn %d", l+1), Value: blockMean(b.in.AttnAdds[l*T : (l+1)*T]), Class: 0},
			sims.Bar{Label: fmt.Sprintf("ffn %d", l+1), Value: blockMean(b.in.FFNAdds[l*T : (l+1)*T]), Class: 1})
	}
	return c
}

// active is the fraction of ReLU units on at each position, per block.
func (b *blockView) active() sims.LineChart {
	T := b.in.T
	c := sims.LineChart{Title: "FFN units on (ReLU > 0)", X0: 0, X1: float64(T - 1), XLabel: "position", Fraction: true}
	for l := range b.in.Layers {
		c.Series = append(c.Series, sims.Series{Name: fmt.Sprintf("block %d", l+1),
			Y: append([]float64(nil), b.in.Active[l*T:(l+1)*T]...), Class: l})
	}
	return c
}

// metrics are the view's figures: the stream's growth through the
// blocks and the units active.
func (b *blockView) metrics() []sims.Metric {
	T, N := b.in.T, b.in.Layers
	growth := 0.0
	for t := range T {
		growth += b.in.Stream[2*N*T+t] / b.in.Stream[t]
	}
	return []sims.Metric{{Name: mStreamGrowth.Name, Value: growth / float64(T)},
		{Name: mActive.Name, Value: blockMean(b.in.Active)}}
}

// notes say what the block computes and what the LayerNorms did to
// every position (not only the charted one).
func (b *blockView) notes() []string {
	lo, hi := math.Inf(1), 0.0
	for _, v := range b.in.VarHat {
		lo = min(lo, v)
	}
	for _, v := range b.in.MeanHat {
		hi = max(hi, math.Abs(v))
	}
	block := "pre-norm: h' = h + attn(LN(h)) + ffn(LN(h + attn)), LN before the decoder"
	if b.in.Norm == seq.Post {
		block = "post-norm (eq 2.16): m = LN(h + attn(h)), h' = LN(m + ffn(m))"
	}
	mu := "μ = 0"
	if hi > 1e-12 {
		mu = fmt.Sprintf("|μ| ≤ %.2g", hi)
	}
	ln := fmt.Sprintf("all %d LayerNorms: x̂ = (x−μ)/√(σ²+ε) has %s, σ² ≥ %.4f (before γ, β)", b.in.LNs, mu, lo)
	lines := []string{block, ln, fmt.Sprintf("window: held-out %q, as of step %d", blockWindow(b.labels), b.at)}
	if b.err != nil {
		lines = append(lines, "pass failed: "+b.err.Error())
	}
	return lines
}

// blockWindow is the window as text (spaces as ␣), its first 40
// characters.
func blockWindow(labels []string) string {
	s := ""
	for i, l := range labels {
		if i == 40 {
			return s + "…"
		}
		s += l
	}
	return s
}

// blockMean is the mean of s.
func blockMean(s []float64) float64 {
	t := 0.0
	for _, v := range s {
		t += v
	}
	return t / float64(len(s))
}
