package text

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MaxK is the longest context of a k-gram model.
const MaxK = 8

// KGram is the k-th order Markov language model by counting (seed 002
// §7.1, L3106–3134; catalogue G1): p(x_n | x_{n−k} … x_{n−1}) is the
// fraction of the times the context x_{n−k:n−1} was followed by x_n in the
// training text — the maximum-likelihood transition table T ∈ [0,1]^{|V|^k ×
// |V|}, stored sparsely: only the contexts seen have a row. k = 0 is the
// unigram model.
//
// Smoothing is not in the notes: with δ > 0 the probabilities are add-δ
// (Laplace for δ = 1), (c + δ)/(n + δ|V|), and a context never seen gets
// the uniform row. With δ = 0 an unseen transition has probability 0, and
// any held-out text that contains one has log-likelihood −∞.
type KGram struct {
	k, v   int
	index  map[uint64]int32 // context → row
	counts []int32          // rows of v counts
	totals []int32
	tokens int // transitions counted
}

// NewKGram returns an empty model of context length k in 0..MaxK over a
// vocabulary of v tokens (1..MaxVocab).
func NewKGram(k, v int) (*KGram, error) {
	if k < 0 || k > MaxK {
		return nil, algo.BadParam("k", k, fmt.Sprintf("in 0..%d", MaxK))
	}
	if v < 1 || v > MaxVocab {
		return nil, algo.BadParam("vocab", v, fmt.Sprintf("in 1..%d", MaxVocab))
	}
	return &KGram{k: k, v: v, index: map[uint64]int32{}}, nil
}

// K is the context length.
func (m *KGram) K() int { return m.k }

// key packs the k tokens before position t of ids (base v, at most 8 bits
// each) into one number.
func (m *KGram) key(ids []int, t int) uint64 {
	var key uint64
	for _, id := range ids[t-m.k : t] {
		key = key*uint64(m.v) + uint64(id)
	}
	return key
}

// Add counts the transitions into positions t of ids for from ≤ t < to
// (positions before k, which lack a full context, are skipped). Tokens
// must be in 0..v−1.
func (m *KGram) Add(ids []int, from, to int) error {
	from, to = max(from, m.k), min(to, len(ids))
	for t := from; t < to; t++ {
		if ids[t] < 0 || ids[t] >= m.v {
			return algo.BadParam("token", ids[t], fmt.Sprintf("in 0..%d (position %d)", m.v-1, t))
		}
	}
	for t := from; t < to; t++ {
		key := m.key(ids, t)
		row, ok := m.index[key]
		if !ok {
			row = int32(len(m.totals))
			m.index[key] = row
			m.totals = append(m.totals, 0)
			m.counts = append(m.counts, make([]int32, m.v)...)
		}
		m.counts[int(row)*m.v+ids[t]]++
		m.totals[row]++
		m.tokens++
	}
	return nil
}

// KGramBytes is what a KGram over v tokens holds once it has seen
// contexts contexts (Add): a row of v counts and a total for each, grown
// by append, and the index from context to row (a map entry, with the
// map's slack, about 40 bytes).
func KGramBytes(contexts, v int) int64 {
	per := int64(4*v+4) * 5 / 4 // the counts and the total, with append's quarter
	return 1<<10 + int64(contexts)*(per+40)
}

// Contexts is the number of distinct contexts seen (rows stored).
func (m *KGram) Contexts() int { return len(m.totals) }

// Transitions is the number of transitions counted.
func (m *KGram) Transitions() int { return m.tokens }

// TableSize is |V|^{k+1}, the entries of the full transition table
// (L3128), as a float (it overflows an int for long contexts).
func (m *KGram) TableSize() float64 { return math.Pow(float64(m.v), float64(m.k+1)) }

// Row writes into dst (len v) the next-token law after the k tokens before
// position t of ids, smoothed by delta ≥ 0, and reports whether the context
// was seen. An unseen context gets the uniform row when delta > 0 and all
// zeros when delta = 0.
func (m *KGram) Row(ids []int, t int, delta float64, dst []float64) bool {
	row, ok := m.index[m.key(ids, t)]
	if !ok {
		u := 0.0
		if delta > 0 {
			u = 1 / float64(m.v)
		}
		for i := range dst[:m.v] {
			dst[i] = u
		}
		return false
	}
	c := m.counts[int(row)*m.v : int(row+1)*m.v]
	den := float64(m.totals[row]) + delta*float64(m.v)
	for i, n := range c {
		dst[i] = (float64(n) + delta) / den
	}
	return true
}

// prob is p(ids[t] | the k tokens before t) and whether the context was
// seen.
func (m *KGram) prob(ids []int, t int, delta float64) (float64, bool) {
	row, ok := m.index[m.key(ids, t)]
	if !ok {
		if delta > 0 {
			return 1 / float64(m.v), false
		}
		return 0, false
	}
	n := float64(m.counts[int(row)*m.v+ids[t]])
	return (n + delta) / (float64(m.totals[row]) + delta*float64(m.v)), true
}

// Score is a model's fit to a text.
type Score struct {
	// NLL is the mean −log p per scored token in nats (the cross-entropy;
	// perplexity is e^NLL): +Inf when any token has probability 0.
	NLL float64
	// Unseen is the fraction of scored tokens whose context the model
	// never saw; Zero the fraction with probability 0.
	Unseen, Zero float64
	N            int // tokens scored
}

// Perplexity is e^NLL.
func (s Score) Perplexity() float64 { return math.Exp(s.NLL) }

// Eval scores the tokens of ids at positions from..len(ids)−1 (from ≥ k).
func (m *KGram) Eval(ids []int, from int, delta float64) (Score, error) {
	if from < m.k || from >= len(ids) {
		return Score{}, algo.BadParam("from", from, fmt.Sprintf("in %d..%d", m.k, len(ids)-1))
	}
	if !(delta >= 0) || math.IsInf(delta, 0) {
		return Score{}, algo.BadParam("delta", delta, "finite and ≥ 0")
	}
	var s Score
	nll := 0.0
	for t := from; t < len(ids); t++ {
		if ids[t] < 0 || ids[t] >= m.v {
			return Score{}, algo.BadParam("token", ids[t], fmt.Sprintf("in 0..%d (position %d)", m.v-1, t))
		}
		p, seen := m.prob(ids, t, delta)
		if !seen {
			s.Unseen++
		}
		if p == 0 {
			s.Zero++
			continue
		}
		nll -= math.Log(p)
	}
	s.N = len(ids) - from
	n := float64(s.N)
	s.NLL, s.Unseen, s.Zero = nll/n, s.Unseen/n, s.Zero/n
	if s.Zero > 0 {
		s.NLL = math.Inf(1)
	}
	return s, nil
}

// Sample draws the token after position t of ids (its k predecessors are
// ids[t−k:t]) from the model smoothed by delta, using scratch (len v). It
// reports false, and draws uniformly, when the context was never seen and
// delta = 0.
func (m *KGram) Sample(ids []int, t int, delta float64, scratch []float64, rng *rand.Rand) (int, bool) {
	seen := m.Row(ids, t, delta, scratch)
	if !seen && delta == 0 {
		return rng.IntN(m.v), false
	}
	return Draw(scratch[:m.v], rng), true
}

// Draw returns an index drawn from the probabilities p (summing to 1, up
// to rounding: the last positive entry takes what rounding leaves).
func Draw(p []float64, rng *rand.Rand) int {
	u := rng.Float64()
	last := 0
	for i, q := range p {
		if q <= 0 {
			continue
		}
		last = i
		if u -= q; u < 0 {
			return i
		}
	}
	return last
}
