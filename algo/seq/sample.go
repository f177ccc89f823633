package seq

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/algo/tensor"
)

// MaxTemperature bounds a sampler's temperature.
const MaxTemperature = 10

// Sampler draws the next token from a model's logits z:
//
//	p ∝ exp(z/τ)                       temperature τ > 0 (τ = 0: the argmax, greedy decoding [A20])
//	keep the k most probable           top-k (0: all)
//	keep the fewest most probable      top-p, nucleus (1: all)
//	  whose total is at least p
//
// then renormalise and draw. Ties go to the smaller token id. Sampling is
// beyond the notes, which decode greedily (seed 001 [A20]).
type Sampler struct {
	Temperature float64
	TopK        int
	TopP        float64

	p   []float64
	idx []int
}

// NewSampler validates the settings: τ in [0, MaxTemperature], k ≥ 0, p in
// (0, 1].
func NewSampler(temperature float64, topK int, topP float64) (*Sampler, error) {
	if !(temperature >= 0 && temperature <= MaxTemperature) {
		return nil, algo.BadParam("temperature", temperature, fmt.Sprintf("in [0, %d]", MaxTemperature))
	}
	if topK < 0 {
		return nil, algo.BadParam("top_k", topK, "≥ 0 (0: no limit)")
	}
	if !(topP > 0 && topP <= 1) {
		return nil, algo.BadParam("top_p", topP, "in (0, 1]")
	}
	return &Sampler{Temperature: temperature, TopK: topK, TopP: topP}, nil
}

// Probs writes into p (len(z)) the law the sampler draws from, and
// returns the number of tokens it keeps.
func (s *Sampler) Probs(z, p []float64) int {
	V := len(z)
	s.idx = grow(s.idx, V)
	for i := range s.idx {
		s.idx[i] = i
	}
	slices.SortStableFunc(s.idx, func(a, b int) int { return cmp.Compare(z[b], z[a]) })
	if s.Temperature == 0 {
		clear(p)
		p[s.idx[0]] = 1
		return 1
	}
	inv := 1 / s.Temperature
	for i, v := range z {
		p[i] = v * inv
	}
	stable.Softmax(p, p)
	keep := V
	if s.TopK > 0 && s.TopK < keep {
		keep = s.TopK
	}
	if s.TopP < 1 {
		acc := 0.0
		for r, i := range s.idx[:keep] {
			if acc += p[i]; acc >= s.TopP {
				keep = r + 1
				break
			}
		}
	}
	tot := 0.0
	for _, i := range s.idx[:keep] {
		tot += p[i]
	}
	for _, i := range s.idx[keep:] {
		p[i] = 0
	}
	for _, i := range s.idx[:keep] {
		p[i] /= tot
	}
	return keep
}

// Sample draws a token from logits z with randomness from rng.
func (s *Sampler) Sample(z []float64, rng *rand.Rand) int {
	s.p = grow(s.p, len(z))
	s.Probs(z, s.p)
	u := rng.Float64()
	last := 0
	for _, i := range s.idx {
		if s.p[i] <= 0 {
			break
		}
		last = i
		if u -= s.p[i]; u < 0 {
			return i
		}
	}
	return last
}

// Generator writes text with a model, one token per forward pass over the
// last n_ctx tokens (no cache: the pass is recomputed each token, the cost
// the notes' model counts, §2.7).
type Generator struct {
	m   Model
	tp  *tensor.Tape
	ctx int
}

// NewGenerator uses its own tape, so that generating does not disturb a
// training step's; window bounds the context of a model without one (an
// RNN).
func NewGenerator(m Model, window int) *Generator {
	ctx := m.Context()
	if ctx == 0 {
		ctx = window
	}
	return &Generator{m: m, tp: tensor.NewForwardTape(), ctx: max(ctx, 1)}
}

// Tape is the generator's tape: after Extend, it holds the forward pass of
// the last window read (the attention weights of a GPT's last sample).
func (g *Generator) Tape() *tensor.Tape { return g.tp }

// Extend appends n tokens to seq, each drawn by s from the model given the
// last n_ctx tokens, and returns seq. seq must not be empty.
func (g *Generator) Extend(seq []int, n int, s *Sampler, rng *rand.Rand) ([]int, error) {
	if len(seq) == 0 {
		return seq, algo.BadParam("prompt", "empty", "at least one token")
	}
	V := g.m.Vocab()
	for range n {
		w := seq[max(0, len(seq)-g.ctx):]
		g.tp.Rewind()
		logits := g.m.Forward(g.tp, w, 1, len(w))
		if err := g.tp.Err(); err != nil {
			return seq, err
		}
		seq = append(seq, s.Sample(logits.Data[(len(w)-1)*V:len(w)*V], rng))
	}
	return seq, nil
}

// Read runs the model over the last n_ctx tokens of seq (without drawing),
// so that the tape holds that pass, and returns the logits [1, T, V].
func (g *Generator) Read(seq []int) (*tensor.Tensor, error) {
	if len(seq) == 0 {
		return nil, algo.BadParam("seq", "empty", "at least one token")
	}
	w := seq[max(0, len(seq)-g.ctx):]
	g.tp.Rewind()
	logits := g.m.Forward(g.tp, w, 1, len(w))
	return logits, g.tp.Err()
}

// Entropy is the entropy in nats of the law p (0 log 0 = 0).
func Entropy(p []float64) float64 {
	h := 0.0
	for _, v := range p {
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	return h
}
