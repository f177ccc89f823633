// Package text holds the lab's text engines: a built-in synthetic language
// whose entropy rate is known exactly (the floor drawn on every language
// model's loss chart), a character vocabulary, the k-gram language model by
// counting (seed 002 §7.1, G1) and byte-pair encoding one merge at a time
// (seed 000 §2.2, catalogue §2.3).
package text

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// Rule is one production of a grammar state: emit Word (then a space) with
// weight Weight and move to state Next.
type Rule struct {
	Word   string
	Weight float64
	Next   int
}

// State is a state of a grammar and its productions.
type State struct {
	Name  string
	Rules []Rule
}

// Grammar is a unifilar stochastic regular grammar: a Markov chain over
// states in which each step emits a word, drawn from the state's rules, and
// the next state is a function of the state and the word. Words are
// written one after another, each followed by a space.
type Grammar []State

// Sep is the character written after every word.
const Sep = ' '

// MaxStates bounds a grammar's states.
const MaxStates = 256

// Animals is the built-in language: short sentences about animals with
// number agreement between subject and verb, also across a relative clause
// ("a cat sees the dogs .", "the hen that chases some birds sleeps and
// ..."): 29 words over 22 characters, 20 states. The main verb after a
// relative clause agrees with a subject some 15–25 characters back, which a
// k-gram model with a short context cannot see. Its entropy rate is
// 0.3391 nats per character.
//
// It is a function, building a fresh Grammar on each call, so that the
// rules are made when a language is, not when every run of the lab starts
// (issue 14.7).
func Animals() Grammar {
	return Grammar{
		0:  {Name: "start", Rules: []Rule{{"the", 4, 1}, {"a", 3.5, 2}, {"some", 2.5, 3}}},
		1:  {Name: "the-noun", Rules: nouns(4, 5, true, true)},
		2:  {Name: "a-noun", Rules: nouns(4, 5, true, false)},
		3:  {Name: "some-noun", Rules: nouns(4, 5, false, true)},
		4:  {Name: "verb-sg", Rules: verbs(6, 7, "s", 10)},
		5:  {Name: "verb-pl", Rules: verbs(6, 7, "", 11)},
		6:  {Name: "object", Rules: []Rule{{"the", 6, 8}, {"a", 4, 9}}},
		7:  {Name: "end", Rules: []Rule{{".", 6, 0}, {"and", 2.5, 0}, {"but", 1.5, 0}}},
		8:  {Name: "the-object", Rules: nouns(7, 7, true, true)},
		9:  {Name: "a-object", Rules: nouns(7, 7, true, false)},
		10: {Name: "that-sg", Rules: verbs(12, -1, "s", -1)},
		11: {Name: "that-pl", Rules: verbs(13, -1, "", -1)},
		12: {Name: "that-object-sg", Rules: []Rule{{"the", 6, 14}, {"a", 4, 15}}},
		13: {Name: "that-object-pl", Rules: []Rule{{"the", 6, 16}, {"a", 4, 17}}},
		14: {Name: "that-the-object-sg", Rules: nouns(18, 18, true, true)},
		15: {Name: "that-a-object-sg", Rules: nouns(18, 18, true, false)},
		16: {Name: "that-the-object-pl", Rules: nouns(19, 19, true, true)},
		17: {Name: "that-a-object-pl", Rules: nouns(19, 19, true, false)},
		18: {Name: "main-verb-sg", Rules: verbs(6, 7, "s", -1)},
		19: {Name: "main-verb-pl", Rules: verbs(6, 7, "", -1)},
	}
}

// nouns are the animals, singular (to state sg) and plural (to state pl).
func nouns(sg, pl int, singular, plural bool) []Rule {
	words := []struct {
		w, p string
		x    float64
	}{{"cat", "cats", 3}, {"dog", "dogs", 3}, {"bird", "birds", 2}, {"fox", "foxes", 1}, {"hen", "hens", 1}}
	var r []Rule
	for _, w := range words {
		if singular {
			r = append(r, Rule{w.w, w.x, sg})
		}
		if plural {
			r = append(r, Rule{w.p, w.x, pl})
		}
	}
	return r
}

// verbs are three transitive verbs (to state obj) and, when end ≥ 0, three
// intransitive ones (to state end), with the suffix s for a singular
// subject, and, when that ≥ 0, the relative pronoun "that" (to state that).
func verbs(obj, end int, s string, that int) []Rule {
	r := []Rule{{"see" + s, 2.5, obj}, {"like" + s, 1.5, obj}, {"chase" + s, 1.5, obj}}
	if end >= 0 {
		r = append(r, Rule{"run" + s, 1.5, end}, Rule{"sleep" + s, 1.5, end}, Rule{"sing" + s, 1.5, end})
	}
	if that >= 0 {
		r = append(r, Rule{"that", 2, that})
	}
	return r
}

// Language is the character process of a grammar: the text it writes,
// read one character at a time. It is a unifilar hidden Markov source — the
// hidden state (grammar state, prefix of the word being written) is a
// function of the previous state and the character emitted — so the
// probability of every character given the past is known exactly, and so is
// the entropy rate.
//
// Entropy rate. Let π be the stationary law of the grammar's state chain
// (P(s → s′) = Σ_{w: next(s,w) = s′} p(w|s)), H_s = −Σ_w p(w|s) log p(w|s)
// the entropy of a state's word and L̄ = Σ_s π_s Σ_w p(w|s)(|w| + 1) the mean
// number of characters a word takes, its space included. Words followed by
// a space form a prefix-free code, so the text and the word sequence
// determine each other, and the entropy per character is
//
//	h = Σ_s π_s H_s / L̄   nats per character.
//
// The same number is Σ_n μ(n) H(next character | n) over the character
// states n = (s, prefix), with μ the per-character stationary frequency of
// each state — the chain rule splits each word's entropy among its
// characters — and, by the Shannon–McMillan–Breiman theorem, the limit of
// −(1/N) log p(x_1 … x_N) on one long text. No model of the text can have a
// lower expected loss per character.
type Language struct {
	g        Grammar
	nodes    []node // the character states; node root[s] starts a word in state s
	root     []int
	pi       []float64 // stationary law of the grammar states (per word)
	rate     float64
	meanLen  float64
	alphabet []rune
}

// node is a character state: the prefix written so far of a word of state
// s, with the characters that may follow, their probabilities and the
// states they lead to.
type node struct {
	s      int
	weight float64 // total weight of the state's words with this prefix
	next   []edge
}

type edge struct {
	r    rune
	p    float64 // probability given the node
	to   int
	word int // the rule completed, or −1
}

// NewLanguage checks g and derives its character process and entropy rate.
// A grammar must have 1..MaxStates states, each with at least one rule;
// weights must be finite and positive; a word is non-empty, valid UTF-8
// without the separator, and appears once per state; Next names a state;
// and every state must be reachable from every other (an irreducible chain,
// so that π is unique).
func NewLanguage(g Grammar) (*Language, error) {
	if len(g) == 0 || len(g) > MaxStates {
		return nil, algo.BadParam("grammar", len(g), fmt.Sprintf("1..%d states", MaxStates))
	}
	for s, st := range g {
		if len(st.Rules) == 0 {
			return nil, algo.BadParam("grammar", st.Name, "a state with at least one rule")
		}
		seen := map[string]bool{}
		for _, r := range st.Rules {
			switch {
			case r.Word == "" || !utf8.ValidString(r.Word) || strings.ContainsRune(r.Word, Sep):
				return nil, algo.BadParam("grammar", fmt.Sprintf("word %q of state %d", r.Word, s), "non-empty UTF-8 without a space")
			case seen[r.Word]:
				return nil, algo.BadParam("grammar", fmt.Sprintf("word %q of state %d", r.Word, s), "once per state (unifilar)")
			case !(r.Weight > 0) || math.IsInf(r.Weight, 0):
				return nil, algo.BadParam("grammar", fmt.Sprintf("weight %g of %q", r.Weight, r.Word), "finite and > 0")
			case r.Next < 0 || r.Next >= len(g):
				return nil, algo.BadParam("grammar", fmt.Sprintf("next state %d of %q", r.Next, r.Word), fmt.Sprintf("in 0..%d", len(g)-1))
			}
			seen[r.Word] = true
		}
	}
	l := &Language{g: g}
	pi, err := stationary(g)
	if err != nil {
		return nil, err
	}
	l.pi = pi
	l.build()
	chars := map[rune]bool{Sep: true}
	num := 0.0
	for s, st := range g {
		tot := total(st)
		H, L := 0.0, 0.0
		for _, r := range st.Rules {
			p := r.Weight / tot
			H -= p * math.Log(p)
			L += p * float64(utf8.RuneCountInString(r.Word)+1)
			for _, c := range r.Word {
				chars[c] = true
			}
		}
		num += pi[s] * H
		l.meanLen += pi[s] * L
	}
	l.rate = num / l.meanLen
	for c := range chars {
		l.alphabet = append(l.alphabet, c)
	}
	slices.Sort(l.alphabet)
	return l, nil
}

func total(st State) float64 {
	t := 0.0
	for _, r := range st.Rules {
		t += r.Weight
	}
	return t
}

// stationary solves πP = π, Σπ = 1 for the grammar's state chain, after
// checking that it is irreducible.
func stationary(g Grammar) ([]float64, error) {
	n := len(g)
	reach := func(from int, fwd bool) int {
		seen := make([]bool, n)
		seen[from] = true
		stack, count := []int{from}, 1
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for t := range n {
				if seen[t] {
					continue
				}
				a, b := s, t
				if !fwd {
					a, b = t, s
				}
				for _, r := range g[a].Rules {
					if r.Next == b {
						seen[t] = true
						count++
						stack = append(stack, t)
						break
					}
				}
			}
		}
		return count
	}
	if reach(0, true) != n || reach(0, false) != n {
		return nil, algo.BadParam("grammar", "a reducible chain", "every state reachable from every other")
	}
	// (Pᵀ − I) π = 0 with its last row replaced by Σπ = 1.
	a := mat.NewDense(n, n, nil)
	for s, st := range g {
		tot := total(st)
		for _, r := range st.Rules {
			a.Set(r.Next, s, a.At(r.Next, s)+r.Weight/tot)
		}
	}
	for s := range n {
		a.Set(s, s, a.At(s, s)-1)
		a.Set(n-1, s, 1)
	}
	b := mat.NewVecDense(n, nil)
	b.SetVec(n-1, 1)
	var pi mat.VecDense
	if err := pi.SolveVec(a, b); err != nil {
		return nil, fmt.Errorf("stationary law of the grammar: %w", err)
	}
	out := make([]float64, n)
	for s := range n {
		out[s] = max(pi.AtVec(s), 0)
	}
	return out, nil
}

// build makes the character states: one trie per grammar state over its
// words, each word ending with the separator, which leads to the root of
// the rule's next state.
func (l *Language) build() {
	l.root = make([]int, len(l.g))
	for s := range l.g {
		l.root[s] = len(l.nodes)
		l.nodes = append(l.nodes, node{s: s})
	}
	for s, st := range l.g {
		for wi, r := range st.Rules {
			cur := l.root[s]
			l.nodes[cur].weight += r.Weight
			for _, c := range r.Word + string(Sep) {
				j := slices.IndexFunc(l.nodes[cur].next, func(e edge) bool { return e.r == c })
				if j < 0 {
					to, word := len(l.nodes), -1
					if c == Sep {
						to, word = -1, wi
					} else {
						l.nodes = append(l.nodes, node{s: s})
					}
					l.nodes[cur].next = append(l.nodes[cur].next, edge{r: c, to: to, word: word})
					j = len(l.nodes[cur].next) - 1
				}
				e := &l.nodes[cur].next[j]
				e.p += r.Weight // a weight for now, normalised below
				if e.word >= 0 {
					e.to = l.root[r.Next]
					break
				}
				cur = e.to
				l.nodes[cur].weight += r.Weight
			}
		}
	}
	for i := range l.nodes {
		for j := range l.nodes[i].next {
			l.nodes[i].next[j].p /= l.nodes[i].weight
		}
	}
}

// EntropyRate is h, the entropy per character in nats.
func (l *Language) EntropyRate() float64 { return l.rate }

// MeanWordLength is L̄, the mean characters per word, the space included.
func (l *Language) MeanWordLength() float64 { return l.meanLen }

// Stationary is π, the stationary law of the grammar states (a copy).
func (l *Language) Stationary() []float64 { return slices.Clone(l.pi) }

// Alphabet lists the characters the language writes, in order.
func (l *Language) Alphabet() []rune { return slices.Clone(l.alphabet) }

// Grammar is the language's grammar (not to be modified).
func (l *Language) Grammar() Grammar { return l.g }

// Generate writes n characters from the start of a sentence (state 0, a
// word's first character), with randomness from rng.
func (l *Language) Generate(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n)
	cur := l.root[0]
	for range n {
		nd := &l.nodes[cur]
		u, j := rng.Float64(), 0
		for ; j < len(nd.next)-1; j++ {
			if u -= nd.next[j].p; u < 0 {
				break
			}
		}
		b.WriteRune(nd.next[j].r)
		cur = nd.next[j].to
	}
	return b.String()
}

// LogLoss returns −log p(x_t | x_1 … x_{t−1}) for every character of text,
// read from the start of a sentence as Generate writes it: the loss of the
// true model, whose mean over a long text tends to the entropy rate. A
// character the language cannot write there is an error naming its
// position.
func (l *Language) LogLoss(text string) ([]float64, error) {
	out := make([]float64, 0, len(text))
	cur := l.root[0]
	for i, c := range text {
		nd := &l.nodes[cur]
		j := slices.IndexFunc(nd.next, func(e edge) bool { return e.r == c })
		if j < 0 {
			return nil, fmt.Errorf("text: %q at byte %d cannot follow %q in this language", c, i, text[max(0, i-20):i])
		}
		out = append(out, -math.Log(nd.next[j].p))
		cur = nd.next[j].to
	}
	return out, nil
}

// charRate is Σ_n μ(n) H(next | n) over the character states, with μ(n) =
// π_s W(n) / (W(root_s) L̄) the per-character frequency of state n: the
// entropy rate computed character by character (the tests check it equals
// h).
func (l *Language) charRate() float64 {
	h := 0.0
	for _, nd := range l.nodes {
		mu := l.pi[nd.s] * nd.weight / l.nodes[l.root[nd.s]].weight / l.meanLen
		for _, e := range nd.next {
			h -= mu * e.p * math.Log(e.p)
		}
	}
	return h
}
