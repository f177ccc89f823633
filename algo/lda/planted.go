package lda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dp"
)

// PlantedTopics are the themes of the planted corpus: each topic's own words,
// most frequent first. Every topic also uses the SharedWords, a little.
var PlantedTopics = []struct {
	Name  string
	Words []string
}{
	{"space", []string{"planet", "orbit", "rocket", "star", "galaxy", "telescope", "moon", "astronaut", "comet", "gravity", "nebula", "launch"}},
	{"cooking", []string{"recipe", "oven", "flour", "butter", "garlic", "simmer", "sauce", "bake", "onion", "pepper", "dough", "spice"}},
	{"football", []string{"goal", "match", "striker", "league", "referee", "penalty", "coach", "stadium", "keeper", "season", "tackle", "fans"}},
	{"finance", []string{"market", "stock", "bond", "investor", "profit", "bank", "interest", "dividend", "inflation", "shares", "trading", "fund"}},
	{"weather", []string{"rain", "storm", "cloud", "wind", "forecast", "thunder", "snow", "sunny", "humid", "frost", "breeze", "drought"}},
}

// SharedWords appear in every planted topic with a small probability.
var SharedWords = []string{"today", "people", "great", "time", "year", "world", "best", "week"}

// sharedMass is the probability of the shared words in a planted topic.
const sharedMass = 0.1

// PlantedConfig says how to draw a planted corpus.
type PlantedConfig struct {
	K      int     // number of topics, 2..len(PlantedTopics)
	D      int     // number of documents
	MinLen int     // each document has MinLen..MaxLen words, uniformly
	MaxLen int     //
	Alpha  float64 // symmetric Dirichlet concentration of θ_d
}

// DefaultPlanted is the corpus shipped in testdata/corpus.txt (drawn with
// seed 1): 300 documents of 20 to 60 words from 4 topics, θ_d ~ Dir(0.2).
var DefaultPlanted = PlantedConfig{K: 4, D: 300, MinLen: 20, MaxLen: 60, Alpha: 0.2}

// PlantedSeed is the seed of the shipped corpus.
const PlantedSeed = 1

// Planted is a corpus drawn from planted topics, with the truth.
type Planted struct {
	Lines []string    // one document per line
	Vocab []string    // the planted vocabulary; Beta's columns
	Beta  [][]float64 // K topic-word distributions over Vocab
	Theta [][]float64 // D topic proportions
	// Docs[d][n] and Z[d][n] are the word (an index into Vocab) and the topic
	// of word n of document d.
	Docs, Z [][]int
}

// PlantedBeta returns the planted topic-word distributions of the first k
// themes over their vocabulary: each topic gives its own twelve words
// Zipf-like weights ∝ 1/(r+4) (r the rank: the first word has 0.15, the
// last 0.04) summing to 1 − 0.1, and the shared words 0.1 evenly.
func PlantedBeta(k int) (vocab []string, beta [][]float64) {
	for _, t := range PlantedTopics[:k] {
		vocab = append(vocab, t.Words...)
	}
	vocab = append(vocab, SharedWords...)
	beta = make([][]float64, k)
	for j, t := range PlantedTopics[:k] {
		b := make([]float64, len(vocab))
		total := 0.0
		for r := range t.Words {
			total += 1 / float64(r+4)
		}
		for r := range t.Words {
			b[j*len(t.Words)+r] = (1 - sharedMass) / float64(r+4) / total
		}
		for s := range SharedWords {
			b[k*len(t.Words)+s] = sharedMass / float64(len(SharedWords))
		}
		beta[j] = b
	}
	return vocab, beta
}

// NewPlanted draws a corpus by LDA's generative process (seed 002 L1441–1457)
// with the planted topics as β: θ_d ~ Dir(α), then for each word
// z_dn ~ Cat(θ_d), w_dn ~ Cat(β_{z_dn}) (ancestral sampling, item B6).
func NewPlanted(cfg PlantedConfig, rng *rand.Rand) (*Planted, error) {
	if cfg.K < 2 || cfg.K > len(PlantedTopics) {
		return nil, algo.BadParam("k", cfg.K, fmt.Sprintf("in 2..%d", len(PlantedTopics)))
	}
	if cfg.D < 2 || cfg.D > MaxDocs {
		return nil, algo.BadParam("docs", cfg.D, fmt.Sprintf("in 2..%d", MaxDocs))
	}
	if cfg.MinLen < 1 || cfg.MaxLen < cfg.MinLen || cfg.MaxLen > 10000 {
		return nil, algo.BadParam("length", fmt.Sprintf("%d..%d", cfg.MinLen, cfg.MaxLen), "1 ≤ min ≤ max ≤ 10000")
	}
	if !(cfg.Alpha > 0) || math.IsInf(cfg.Alpha, 0) {
		return nil, algo.BadParam("alpha", cfg.Alpha, "finite and > 0")
	}
	p := &Planted{}
	p.Vocab, p.Beta = PlantedBeta(cfg.K)
	alpha := make([]float64, cfg.K)
	for k := range alpha {
		alpha[k] = cfg.Alpha
	}
	var b strings.Builder
	for range cfg.D {
		theta := make([]float64, cfg.K)
		dp.Dirichlet(rng, alpha, theta)
		n := cfg.MinLen + rng.IntN(cfg.MaxLen-cfg.MinLen+1)
		doc, z := make([]int, n), make([]int, n)
		b.Reset()
		for i := range n {
			z[i] = dp.Categorical(rng, theta)
			doc[i] = dp.Categorical(rng, p.Beta[z[i]])
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(p.Vocab[doc[i]])
		}
		p.Theta = append(p.Theta, theta)
		p.Docs, p.Z = append(p.Docs, doc), append(p.Z, z)
		p.Lines = append(p.Lines, b.String())
	}
	return p, nil
}

// CompleteData returns the topic-word frequencies given the true topics of
// every word: the estimate of β one would make if z were observed, and so the
// benchmark for what inference can recover from this sample.
func (p *Planted) CompleteData() [][]float64 {
	k := len(p.Beta)
	out := make([][]float64, k)
	for j := range out {
		out[j] = make([]float64, len(p.Vocab))
	}
	for d, doc := range p.Docs {
		for i, w := range doc {
			out[p.Z[d][i]][w]++
		}
	}
	for _, row := range out {
		s := 0.0
		for _, v := range row {
			s += v
		}
		for v := range row {
			row[v] /= s
		}
	}
	return out
}

// MatchTopics matches each true topic to a distinct fitted topic (fit has at
// least as many rows as truth; rows are distributions over the same words),
// minimising the total L1 distance over all injective matchings, by
// branch and bound. It returns match[k], the fitted topic of true topic k, and
// the L1 distance of each matched pair.
func MatchTopics(fit, truth [][]float64) (match []int, dist []float64) {
	k := len(truth)
	cost := make([][]float64, k)
	for t := range truth {
		cost[t] = make([]float64, len(fit))
		for f := range fit {
			for v := range truth[t] {
				cost[t][f] += math.Abs(fit[f][v] - truth[t][v])
			}
		}
	}
	best, bestCost := make([]int, k), math.Inf(1)
	cur, used := make([]int, k), make([]bool, len(fit))
	var rec func(t int, c float64)
	rec = func(t int, c float64) {
		if c >= bestCost {
			return
		}
		if t == k {
			bestCost = c
			copy(best, cur)
			return
		}
		for f := range fit {
			if !used[f] {
				used[f], cur[t] = true, f
				rec(t+1, c+cost[t][f])
				used[f] = false
			}
		}
	}
	rec(0, 0)
	dist = make([]float64, k)
	for t, f := range best {
		dist[t] = cost[t][f]
	}
	return best, dist
}
