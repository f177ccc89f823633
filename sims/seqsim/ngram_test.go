package seqsim

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/text"
	"github.com/thelab/lab/sims/simtest"
)

// TestNGramOracles (G1): counted on all the training text, the training
// loss of the maximum-likelihood tables never rises with k and at k = 0 is
// the empirical entropy of the characters; the unseen-context fraction of
// held-out text never falls with k; no model beats the entropy rate
// (within 4 standard errors of the held-out mean); and the best held-out k
// is neither 0 nor K on the built-in language.
func TestNGramOracles(t *testing.T) {
	s := simtest.Build(t, NGram, nil, 1, nil)
	simtest.RunToEnd(t, s, ngSlices+1)
	g := s.(*ngramSim)
	n := float64(len(g.c.train))
	counts := map[int]float64{}
	for _, id := range g.c.train {
		counts[id]++
	}
	h := 0.0
	for _, c := range counts {
		h -= c / n * math.Log(c/n)
	}
	// The k = 0 score skips the first K characters.
	algotest.Near(t, "k = 0 training loss", g.train[0], h, 1e-3)
	for k := 1; k < len(g.models); k++ {
		if g.train[k] > g.train[k-1]+1e-12 || g.unseen[k] < g.unseen[k-1] {
			t.Errorf("k = %d: training %.5f after %.5f, unseen %.4f after %.4f", k, g.train[k], g.train[k-1], g.unseen[k], g.unseen[k-1])
		}
	}
	b := g.best()
	// The per-character losses of a unifilar source are correlated over a
	// sentence; 4 i.i.d. standard errors of a loss of spread ≈ 1.5 nats
	// are a loose floor.
	se := 1.5 / math.Sqrt(float64(len(g.c.held)))
	if g.held[b] < g.c.rate()-4*se || b == 0 || b == len(g.models)-1 {
		t.Errorf("best k %d: held-out %.4f, entropy rate %.4f", b, g.held[b], g.c.rate())
	}
	f := s.Frame()
	if simtest.Metric(t, f, "best k") != float64(b) || !simtest.FiniteMetrics(t, f) {
		t.Errorf("frame: %v", f.Metrics)
	}
}

// TestTextFileErrors: an empty, binary or too short file is refused with
// a message naming the parameter (and the line of a binary byte); a good
// file trains with its own vocabulary and no entropy-rate line.
func TestTextFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct{ name, body, want string }{
		{"empty.txt", " \n\n", "no text"},
		{"binary.txt", "line one\nline\x00two\n", "line 2"},
		{"short.txt", "abc", "need at least"},
	} {
		_, err := simtest.BuildErr(NGram, map[string]string{"text": write(tt.name, tt.body)}, 1, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "text") {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	p := write("good.txt", strings.Repeat("to be or not to be, that is the question.\n", 40))
	s := simtest.Build(t, NGram, map[string]string{"text": p, "k": "3"}, 1, nil)
	simtest.RunToEnd(t, s, ngSlices+1)
	f := s.Frame()
	if _, ok := f.Metric("entropy rate"); ok || !simtest.FiniteMetrics(t, f) {
		t.Errorf("file metrics %v", f.Metrics)
	}
}

// TestAnimalsContexts: the built-in language can write exactly
// animalsContexts distinct contexts of each length, which ngram's size
// counts on. The contexts are enumerated from the grammar (grammarContexts:
// every k characters on a path of words, each followed by a space, through
// the states), which bounds them however long a text is and, the chain
// being irreducible, a long text reaches every one; a generated text shows
// only contexts of that set, and its k-gram table has a row for each
// context it shows.
// (Counting four million generated characters instead took 4.5 s of CPU
// under -race and gave only a lower bound.)
func TestAnimalsContexts(t *testing.T) {
	l, err := text.NewLanguage(text.Animals())
	if err != nil {
		t.Fatal(err)
	}
	voc, err := text.VocabOf(l.Alphabet())
	if err != nil {
		t.Fatal(err)
	}
	sample := l.Generate(rand.New(rand.NewPCG(5, 6)), 100_000)
	ids, _ := voc.Encode(sample)
	for k, want := range animalsContexts {
		all := grammarContexts(l.Grammar(), k)
		if len(all) != want {
			t.Errorf("k = %d: the grammar writes %d contexts, animalsContexts says %d", k, len(all), want)
		}
		seen := map[string]bool{}
		for i := k; i < len(sample); i++ {
			if c := sample[i-k : i]; !all[c] {
				t.Fatalf("k = %d: the text holds %q at %d, which the grammar cannot write", k, c, i-k)
			}
			seen[sample[i-k:i]] = true
		}
		m, err := text.NewKGram(k, voc.Size())
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Add(ids, 0, len(ids)); err != nil {
			t.Fatal(err)
		}
		if got := m.Contexts(); got != len(seen) {
			t.Errorf("k = %d: %d contexts counted in %d characters, which hold %d", k, got, len(ids), len(seen))
		}
	}
}

// grammarContexts is the set of strings of k characters that g writes
// somewhere: from every character of every word (and the space after it)
// of every state, k characters on, a word's end leading to every word of
// the rule's next state. The built-in language writes one byte a
// character.
func grammarContexts(g text.Grammar, k int) map[string]bool {
	out := map[string]bool{}
	var walk func(s, r, i int, prefix string)
	walk = func(s, r, i int, prefix string) {
		if len(prefix) == k {
			out[prefix] = true
			return
		}
		w := g[s].Rules[r].Word + string(text.Sep)
		if i < len(w) {
			walk(s, r, i+1, prefix+w[i:i+1])
			return
		}
		next := g[s].Rules[r].Next
		for r2 := range g[next].Rules {
			walk(next, r2, 0, prefix)
		}
	}
	for s := range g {
		for r := range g[s].Rules {
			w := g[s].Rules[r].Word
			for i := range len(w) + 1 {
				walk(s, r, i, "")
			}
		}
	}
	return out
}
