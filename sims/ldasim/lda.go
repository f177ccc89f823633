// Package ldasim turns the engine of algo/lda into a sim.
package ldasim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/lda"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// LDA is latent Dirichlet allocation by the coordinate ascent of seed 002
// §3.5: one sweep (every document's φ and γ, then λ) per step, on the
// planted corpus shipped in testdata/corpus.txt or on a text file of the
// user's, one document per line. The pane shows the topic–word weights
// E_q[β_kv] as a heat map (each topic's top words, topic by topic, so that
// separated topics make a block diagonal), each topic's share of the words
// with its top words, and the ELBO per sweep, which coordinate ascent never
// lets fall. On the planted corpus it also shows how far the fitted topics
// are from the planted ones.
//
// A text file does not fit the numeric --data table, so the corpus is a Text
// parameter: `lab run lda --set corpus=notes.txt`, or the same value typed in
// the pane's parameter editor. The file is tokenised by lda.Tokenize (words
// of three letters or more, lower-cased, English stopwords dropped, words in
// one document only dropped, at most 2000 words). Words and the file's
// name are shown as sims.Visible writes text: a letter that a terminal
// could draw at another width than the lab measures (a halfwidth voiced
// mark, conjoining jamo) as <U+FF9F>.
var LDA = &sims.Spec{
	Name:   "lda",
	Title:  "Latent Dirichlet allocation by CAVI: topics, top words, ELBO",
	Source: "seed 002 §3.5 (LDA, eq 3.17, γ and λ updates L1489–1495)",
	Steps:  200,
	Speed:  1,
	Params: param.List(ldaCorpus, ldaK, ldaAlpha, ldaEta, ldaIters, ldaTol),
	New:    newLDA,
	Size:   ldaSize,

	Metrics: ldaMetrics,
}

var (
	// ldaCorpus names a file: sims.ReadLines opens it through cfg.Files,
	// which under `lab serve` reads only the operator's --data-dir, by name.
	ldaCorpus = param.Text("corpus", planted,
		"planted: testdata/corpus.txt, 300 documents from 4 planted topics (the truth is shown); "+
			"or the path of a UTF-8 text file, one document per line")
	// Each topic is a colour of the share chart: below sims.MaxClasses.
	ldaK     = param.Int("k", 4, "number of topics K").Range(2, min(lda.MaxK, sims.MaxClasses))
	ldaAlpha = param.Float("alpha", 0.25,
		"Dirichlet prior of each document's topic proportions θ_d (small: few topics per document)").Range(0, 10).OpenMin()
	ldaEta = param.Float("eta", 0.1,
		"Dirichlet prior of each topic's word distribution β_k (small: peaked topics)").Range(0, 10).OpenMin()
	ldaIters = param.Int("iters", 50, "at most this many φ/γ rounds per document per sweep (fewer once γ_d settles)").Range(1, 1000)
	ldaTol   = param.Float("tol", 1e-7, "stop when a sweep raises the ELBO by less than tol nats per word").Range(0, 1)
)

const planted = "planted"

// topWords is the number of words per topic in the heat map.
const topWords = 8

type ldaSim struct {
	e      *lda.LDA
	source string // what the corpus is, for the notes
	elbo   *sims.Trace
	falls  int // sweeps at which the ELBO fell beyond rounding (must stay 0)
	done   bool

	// The planted truth, over the corpus's vocabulary; nil for a file.
	truth      [][]float64
	names      []string  // the planted themes
	bench      []float64 // complete-data L1 error of each planted topic
	match      []int     // planted topic → fitted topic, after the last sweep
	dist       []float64 // L1 distance of each matched pair
	benchTotal float64
}

// ldaSize is what lda holds: on the planted corpus (300 documents) its
// engine and truth, measured; on a file, the engine on the largest corpus
// Tokenize keeps of any file (MaxDocs documents, MaxVocab words, MaxTokens
// words in all): the size of the file is not known before it is read.
func ldaSize(c sims.Config) int64 {
	k := ldaK.Get(c.Values)
	if ldaCorpus.Get(c.Values) == planted {
		return int64(k)*(9<<10+512) + 136<<10
	}
	return lda.Bytes(k, lda.MaxDocs, lda.DefaultMaxVocab, lda.MaxTokens) + 120<<10
}

func newLDA(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &ldaSim{elbo: sims.NewTrace(0, 1)}
	var lines []string
	var p *lda.Planted
	path := ldaCorpus.Get(v)
	if path == planted {
		var err error
		if p, err = lda.NewPlanted(lda.DefaultPlanted, rand.New(rand.NewPCG(lda.PlantedSeed, 0))); err != nil {
			return nil, err
		}
		lines = p.Lines
		s.source = "planted corpus (testdata/corpus.txt)"
	} else {
		var err error
		if lines, err = sims.ReadLines(cfg.Files, "corpus", path); err != nil {
			return nil, err
		}
		s.source = sims.Visible(path, sims.PlainSpaces)
	}
	c, err := lda.Tokenize(lines, lda.TokenizeOptions{})
	if pe := (*algo.ParamError)(nil); errors.As(err, &pe) && pe.Name == "corpus" {
		// The engine knows the lines, not the file they came from.
		return nil, fmt.Errorf("parameter corpus = %q: %v; must be %s", path, pe.Value, pe.Allowed)
	}
	if err != nil {
		return nil, err
	}
	e, err := lda.New(c, lda.Config{K: ldaK.Get(v), Alpha: ldaAlpha.Get(v), Eta: ldaEta.Get(v),
		LocalIters: ldaIters.Get(v), LocalTol: 1e-3, Tol: ldaTol.Get(v)},
		rand.New(rand.NewPCG(cfg.Seed, 0x6c6461))) // "lda"
	if err != nil {
		return nil, err
	}
	s.e = e
	if p != nil {
		s.setTruth(p, c)
	}
	s.elbo.Add(e.ELBOPerWord())
	return s, nil
}

// setTruth re-expresses the planted topics and their complete-data errors
// over the corpus's vocabulary.
func (s *ldaSim) setTruth(p *lda.Planted, c *lda.Corpus) {
	idx := map[string]int{}
	for i, w := range c.Vocab {
		idx[w] = i
	}
	cd := p.CompleteData()
	s.truth = make([][]float64, len(p.Beta))
	s.bench = make([]float64, len(p.Beta))
	for k := range p.Beta {
		s.truth[k] = make([]float64, c.V())
		for v, w := range p.Vocab {
			s.truth[k][idx[w]] = p.Beta[k][v]
			s.bench[k] += math.Abs(cd[k][v] - p.Beta[k][v])
		}
		s.names = append(s.names, lda.PlantedTopics[k].Name)
		s.benchTotal += s.bench[k] / float64(len(p.Beta))
	}
	s.matchTruth()
}

// matchTruth matches the planted topics to the fitted ones, when there are
// at least as many fitted topics.
func (s *ldaSim) matchTruth() {
	if s.truth == nil || s.e.K() < len(s.truth) {
		return
	}
	s.match, s.dist = lda.MatchTopics(s.e.Topics(nil), s.truth)
}

func (s *ldaSim) Step() error {
	prev := s.e.ELBOPerWord()
	err := s.e.Step()
	if err != nil {
		s.done = true
		return err
	}
	now := s.e.ELBOPerWord()
	s.elbo.Add(now)
	if now < prev-1e-9*math.Abs(prev) {
		s.falls++
	}
	s.matchTruth()
	return nil
}

// top returns the ids of the n largest weights of row, largest first (ties
// to the lower id), by insertion into a short list: O(V·n), not a sort.
func top(row []float64, n int) []int {
	n = min(n, len(row))
	ids := make([]int, 0, n+1)
	for w, x := range row {
		if len(ids) == n && x <= row[ids[n-1]] {
			continue
		}
		i := len(ids)
		ids = append(ids, w)
		for ; i > 0 && x > row[ids[i-1]]; i-- {
			ids[i] = ids[i-1]
		}
		ids[i] = w
		if len(ids) > n {
			ids = ids[:n]
		}
	}
	return ids
}

func (s *ldaSim) Frame() sims.Frame {
	e := s.e
	c := e.Corpus()
	k := e.K()
	topics := e.Topics(nil)
	shares := e.Shares()
	// Columns: the top words of topic 1, then of topic 2, ... (each word once).
	var cols []int
	seen := map[int]bool{}
	tops := make([][]int, k)
	for j, row := range topics {
		tops[j] = top(row, topWords)
		for _, w := range tops[j] {
			if !seen[w] {
				seen[w] = true
				cols = append(cols, w)
			}
		}
	}
	heat := &sims.Grid{NX: len(cols), NY: k, Z: make([]float64, len(cols)*k), Scale: sims.Sequential}
	for j := range k {
		row := k - 1 - j // topic 1 on top
		for i, w := range cols {
			heat.Z[row*len(cols)+i] = topics[j][w]
			heat.Hi = max(heat.Hi, topics[j][w])
		}
	}
	// A matrix: rows the topics, columns the words (named under them when
	// they have room, as the topics are beside their rows).
	rowNames, colNames := make([]string, k), make([]string, len(cols))
	for i, w := range cols {
		colNames[i] = sims.Visible(c.Vocab[w], sims.PlainSpaces)
	}
	bars := make([]sims.Bar, k)
	for j := range k {
		rowNames[j] = fmt.Sprint(j + 1)
		words := make([]string, 0, 5)
		for _, w := range tops[j][:min(5, len(tops[j]))] {
			words = append(words, sims.Visible(c.Vocab[w], sims.PlainSpaces))
		}
		bars[j] = sims.Bar{Label: fmt.Sprintf("%d %s", j+1, strings.Join(words, " ")), Value: shares[j], Class: j}
	}

	tr := e.Trace()
	metrics := []sims.Metric{
		{Name: "sweep", Value: float64(e.Sweeps())},
		{Name: "elbo", Value: e.ELBOPerWord()},
	}
	if len(tr) > 1 {
		metrics = append(metrics, sims.Metric{Name: "delta", Value: tr[len(tr)-1] - tr[len(tr)-2]})
	}
	if s.match != nil {
		metrics = append(metrics, sims.Metric{Name: "topic_err", Value: mean(s.dist)})
	}
	x0, x1 := s.elbo.Span()
	return sims.Frame{
		Sim:     LDA.Name,
		Step:    e.Sweeps(),
		Metrics: metrics,
		Charts: []sims.Chart{
			sims.CanvasChart{
				Title:  fmt.Sprintf("topic–word weights E[β_kv]: top %d words of each topic", topWords),
				View:   sims.Rect{XMin: 0, XMax: float64(len(cols)), YMin: 0, YMax: float64(k)},
				Heat:   heat,
				XLabel: "top word", YLabel: "topic",
				XIndex: &sims.Index{First: 1, Last: len(cols), At: -0.5, Step: 1, Labels: colNames},
				YIndex: &sims.Index{First: 1, Last: k, At: float64(k) + 0.5, Step: -1, Labels: rowNames},
			},
			sims.LineChart{
				Title:  "ELBO per word",
				Series: []sims.Series{{Name: "L(q)/N", Y: s.elbo.Column(0), Class: 0}},
				X0:     x0, X1: x1, XLabel: "sweep", YLabel: "nats",
			},
			sims.BarChart{Title: "topics: share of the words · top words", Bars: bars},
		},
		Text: s.notes(topics, tops),
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func (s *ldaSim) notes(topics [][]float64, tops [][]int) []string {
	e := s.e
	c := e.Corpus()
	lines := []string{
		fmt.Sprintf("%s: %d documents, %d words in a vocabulary of %d", s.source, c.D(), c.Tokens(), c.V()),
		fmt.Sprintf("sweep %d: φ ∝ exp(E log θ + E log β) (3.17), γ = α + Σφ (%.1f rounds/doc); λ = η + Σφ·1{w=v}",
			e.Sweeps(), e.LocalRounds()),
	}
	if s.falls > 0 {
		lines = append(lines, fmt.Sprintf("⚠ the ELBO fell at %d sweeps: coordinate ascent is broken", s.falls))
	} else {
		lines = append(lines, fmt.Sprintf("the ELBO never fell in %d sweeps (every update maximises it over its block)", e.Sweeps()))
	}
	switch {
	case s.match != nil:
		var b strings.Builder
		for t, f := range s.match {
			if t > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s→%d %.2f", s.names[t], f+1, s.dist[t])
		}
		lines = append(lines, fmt.Sprintf("L1 error to the planted topics: %s; were every z known: %.2f", b.String(), s.benchTotal))
	case s.truth != nil:
		lines = append(lines, fmt.Sprintf("the corpus was planted with %d topics: set k ≥ %d to compare", len(s.truth), len(s.truth)))
	}
	if c.Dropped > 0 {
		lines = append(lines, fmt.Sprintf("%d lines held no kept word and were left out", c.Dropped))
	}
	lines = append(lines, "CAVI finds a local optimum: R (a new seed) restarts from another random λ")
	return lines
}

func (s *ldaSim) Result() map[string]any {
	e := s.e
	c := e.Corpus()
	topics := e.Topics(nil)
	words := make([][]string, e.K())
	for j, row := range topics {
		for _, w := range top(row, 10) {
			words[j] = append(words[j], sims.Visible(c.Vocab[w], sims.PlainSpaces))
		}
	}
	r := map[string]any{
		"sweeps":     e.Sweeps(),
		"elbo":       e.ELBOPerWord(),
		"elbo_trace": slices.Clone(e.Trace()),
		"top_words":  words,
		"shares":     e.Shares(),
		"documents":  c.D(),
		"tokens":     c.Tokens(),
		"vocabulary": c.V(),
	}
	if s.match != nil {
		r["topic_l1_error"] = slices.Clone(s.dist)
		r["complete_data_l1_error"] = slices.Clone(s.bench)
	}
	return r
}
