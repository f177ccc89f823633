package text

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

// batchMeans is the mean of x and its standard error from the means of nb
// consecutive batches (which absorbs the correlation of a Markov source).
func batchMeans(x []float64, nb int) (mean, se float64) {
	size := len(x) / nb
	var means []float64
	for b := range nb {
		s := 0.0
		for _, v := range x[b*size : (b+1)*size] {
			s += v
		}
		means = append(means, s/float64(size))
	}
	for _, m := range means {
		mean += m
	}
	mean /= float64(nb)
	v := 0.0
	for _, m := range means {
		v += (m - mean) * (m - mean)
	}
	return mean, math.Sqrt(v / float64(nb-1) / float64(nb))
}

// TestEntropyRateClosedForms: grammars whose entropy rate is known by hand.
func TestEntropyRateClosedForms(t *testing.T) {
	h2 := func(p float64) float64 { return -p*math.Log(p) - (1-p)*math.Log(1-p) }
	for _, tt := range []struct {
		name string
		g    Grammar
		want float64
	}{
		// i.i.d. words "a" and "b": one bit per two characters.
		{"coin", Grammar{{Rules: []Rule{{"a", 1, 0}, {"b", 1, 0}}}}, math.Log(2) / 2},
		// "a" with p = 0.3, "bb" with 0.7: H(0.3) over a mean length 0.3·2 + 0.7·3.
		{"lengths", Grammar{{Rules: []Rule{{"a", 3, 0}, {"bb", 7, 0}}}}, h2(0.3) / 2.7},
		// Deterministic alternation of two states: no entropy at all.
		{"cycle", Grammar{{Rules: []Rule{{"x", 1, 1}}}, {Rules: []Rule{{"yy", 1, 0}}}}, 0},
		// Two states, each choosing its word (two of equal length): π =
		// (2/3, 1/3) for P = [[0.5, 0.5], [1, 0]], H = (log 2, log 2).
		{"two-state", Grammar{
			{Rules: []Rule{{"ab", 1, 0}, {"cd", 1, 1}}},
			{Rules: []Rule{{"ef", 1, 0}, {"gh", 1, 0}}},
		}, math.Log(2) / 3},
	} {
		l, err := NewLanguage(tt.g)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		algotest.Near(t, tt.name+" h", l.EntropyRate(), tt.want, 1e-14)
		algotest.Near(t, tt.name+" h by characters", l.charRate(), tt.want, 1e-14)
	}
}

// TestAnimalsEntropyRate: the built-in language's entropy rate, computed
// word by word, equals the character-by-character sum, and the mean loss of
// the true model on a long text matches it within 4 standard errors (batch
// means) — the Shannon–McMillan–Breiman limit.
func TestAnimalsEntropyRate(t *testing.T) {
	l, err := NewLanguage(Animals())
	if err != nil {
		t.Fatal(err)
	}
	h := l.EntropyRate()
	algotest.Near(t, "Σπ H_s / L̄ against Σ μ(n) H(n)", l.charRate(), h, 1e-12)
	pi := l.Stationary()
	sum := 0.0
	for _, p := range pi {
		sum += p
	}
	algotest.Near(t, "Σπ", sum, 1, 1e-12)
	text := l.Generate(rand.New(rand.NewPCG(1, 2)), 400_000)
	loss, err := l.LogLoss(text)
	if err != nil {
		t.Fatal(err)
	}
	mean, se := batchMeans(loss, 100)
	if math.Abs(mean-h) > 4*se {
		t.Errorf("mean loss %.5f ± %.5f, entropy rate %.5f: %.1f standard errors apart", mean, se, h, math.Abs(mean-h)/se)
	}
	// The empirical word-length mean agrees with L̄.
	words := strings.Fields(text)
	algotest.Near(t, "characters per word", float64(len(text))/float64(len(words)), l.MeanWordLength(), 0.01)
	if got := len(l.Alphabet()); got != 22 {
		t.Errorf("alphabet of %d characters %q, want 22", got, string(l.Alphabet()))
	}
	algotest.Near(t, "h (the value the doc comment states)", h, 0.3391, 5e-5)
}

func TestLanguageValidation(t *testing.T) {
	for name, g := range map[string]Grammar{
		"empty":       {},
		"no rules":    {{Name: "s"}},
		"space":       {{Rules: []Rule{{"a b", 1, 0}}}},
		"empty word":  {{Rules: []Rule{{"", 1, 0}}}},
		"twice":       {{Rules: []Rule{{"a", 1, 0}, {"a", 1, 0}}}},
		"weight":      {{Rules: []Rule{{"a", 0, 0}}}},
		"next":        {{Rules: []Rule{{"a", 1, 1}}}},
		"reducible":   {{Rules: []Rule{{"a", 1, 1}}}, {Rules: []Rule{{"b", 1, 1}}}},
		"invalid utf": {{Rules: []Rule{{"\xff", 1, 0}}}},
	} {
		_, err := NewLanguage(g)
		algotest.WantParam(t, err, "grammar")
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	l, _ := NewLanguage(Animals())
	if _, err := l.LogLoss("the zebra"); err == nil || !strings.Contains(err.Error(), "byte 4") {
		t.Errorf("an impossible character: %v", err)
	}
}

func TestVocab(t *testing.T) {
	v, err := NewVocab("hello, world")
	if err != nil {
		t.Fatal(err)
	}
	if v.Size() != 9 || v.Rune(0) != ' ' {
		t.Errorf("size %d, first %q", v.Size(), v.Rune(0))
	}
	ids, err := v.Encode("world")
	if err != nil || v.Decode(ids) != "world" {
		t.Errorf("round trip: %v %v", ids, err)
	}
	if _, err := v.Encode("wordy"); err == nil || !strings.Contains(err.Error(), "byte 4") {
		t.Errorf("unknown character: %v", err)
	}
	_, err = NewVocab("")
	algotest.WantParam(t, err, "text")
	var many strings.Builder
	for r := rune(0x100); r < 0x100+MaxVocab+1; r++ {
		many.WriteRune(r)
	}
	_, err = NewVocab(many.String())
	algotest.WantParam(t, err, "text")
}

// markov1 is a first-order Markov chain over three symbols with its
// entropy rate Σ_i π_i H(P_i).
func markov1(rng *rand.Rand, n int) (ids []int, rate float64) {
	P := [3][3]float64{{0.1, 0.6, 0.3}, {0.5, 0.25, 0.25}, {0.7, 0.2, 0.1}}
	// π by power iteration (the chain is primitive).
	pi := []float64{1. / 3, 1. / 3, 1. / 3}
	for range 200 {
		next := make([]float64, 3)
		for i := range 3 {
			for j := range 3 {
				next[j] += pi[i] * P[i][j]
			}
		}
		pi = next
	}
	for i := range 3 {
		for _, p := range P[i] {
			rate -= pi[i] * p * math.Log(p)
		}
	}
	ids = make([]int, n)
	for t := 1; t < n; t++ {
		ids[t] = Draw(P[ids[t-1]][:], rng)
	}
	return ids, rate
}

// TestKGramCounts: the rows are the empirical frequencies (the MLE) and sum
// to 1; add-δ smoothing is (c + δ)/(n + δV); an unseen context has the
// uniform row when smoothed and none otherwise.
func TestKGramCounts(t *testing.T) {
	v, _ := NewVocab("abc")
	ids, _ := v.Encode("abacabab")
	m, err := NewKGram(1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(ids, 0, len(ids)); err != nil {
		t.Fatal(err)
	}
	// After a: b, c, b, b (3 of b, 1 of c); after b: a, a; after c: a.
	row := make([]float64, 3)
	m.Row([]int{0, 0}, 1, 0, row)
	if !slices.Equal(row, []float64{0, 0.75, 0.25}) {
		t.Errorf("row after a = %v", row)
	}
	m.Row([]int{0, 0}, 1, 1, row)
	if !slices.Equal(row, []float64{1. / 7, 4. / 7, 2. / 7}) {
		t.Errorf("add-1 row after a = %v", row)
	}
	if m.Contexts() != 3 || m.Transitions() != 7 || m.TableSize() != 9 {
		t.Errorf("contexts %d, transitions %d, table %g", m.Contexts(), m.Transitions(), m.TableSize())
	}
	m2, _ := NewKGram(2, 3)
	m2.Add(ids, 0, len(ids))
	cc, _ := v.Encode("ccb")
	if seen := m2.Row(cc, 2, 0, row); seen || !slices.Equal(row, []float64{0, 0, 0}) {
		t.Errorf("unseen context, δ = 0: %v %v", seen, row)
	}
	if m2.Row(cc, 2, 0.5, row); !slices.Equal(row, []float64{1. / 3, 1. / 3, 1. / 3}) {
		t.Errorf("unseen context, δ > 0: %v", row)
	}
	s, err := m2.Eval(cc, 2, 0)
	if err != nil || !math.IsInf(s.NLL, 1) || s.Unseen != 1 || s.Zero != 1 {
		t.Errorf("unseen context scored %+v, %v", s, err)
	}
	_, err = NewKGram(MaxK+1, 3)
	algotest.WantParam(t, err, "k")
	_, err = NewKGram(1, 0)
	algotest.WantParam(t, err, "vocab")
	_, err = m.Eval(ids, 0, 0)
	algotest.WantParam(t, err, "from")
	_, err = m.Eval(ids, 1, -1)
	algotest.WantParam(t, err, "delta")
	algotest.WantParam(t, m.Add([]int{0, 5}, 0, 2), "token")
}

// TestKGramOrder: on the same tokens, the training log-likelihood never
// falls as k grows (a longer context refines the partition of the
// positions); held out, without smoothing, it is −∞ once a transition was
// never seen.
func TestKGramOrder(t *testing.T) {
	l, _ := NewLanguage(Animals())
	txt := l.Generate(rand.New(rand.NewPCG(3, 4)), 20_000)
	v, _ := VocabOf(l.Alphabet())
	ids, _ := v.Encode(txt)
	prev := math.Inf(1)
	for k := 0; k <= MaxK; k++ {
		m, _ := NewKGram(k, v.Size())
		m.Add(ids, 0, len(ids))
		s, err := m.Eval(ids, MaxK, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.NLL > prev+1e-12 {
			t.Errorf("k = %d: training NLL %.6f above k − 1's %.6f", k, s.NLL, prev)
		}
		if s.Unseen != 0 {
			t.Errorf("k = %d: training text has unseen contexts", k)
		}
		prev = s.NLL
	}
	held := l.Generate(rand.New(rand.NewPCG(5, 6)), 2000)
	hids, _ := v.Encode(held)
	m, _ := NewKGram(MaxK, v.Size())
	m.Add(ids, 0, 300) // little data: many held-out contexts are new
	if s, _ := m.Eval(hids, MaxK, 0); !math.IsInf(s.NLL, 1) || s.Unseen == 0 {
		t.Errorf("held out without smoothing: %+v", s)
	}
	if s, _ := m.Eval(hids, MaxK, 0.1); math.IsInf(s.NLL, 0) {
		t.Errorf("held out with add-δ: %+v", s)
	}
}

// TestKGramConsistent: on a first-order Markov chain the k = 1 model's
// held-out cross-entropy tends to the entropy rate, and k = 0 stays above
// it by the mutual information of successive symbols. The tolerance is 4
// standard errors of the held-out mean plus the O(V²/n) bias of the
// estimated table.
func TestKGramConsistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	train, rate := markov1(rng, 100_000)
	held, _ := markov1(rng, 100_000)
	m1, _ := NewKGram(1, 3)
	m1.Add(train, 0, len(train))
	s1, _ := m1.Eval(held, 1, 0)
	loss := make([]float64, 0, len(held))
	row := make([]float64, 3)
	for t := 1; t < len(held); t++ {
		m1.Row(held, t, 0, row)
		loss = append(loss, -math.Log(row[held[t]]))
	}
	mean, se := batchMeans(loss, 50)
	algotest.Near(t, "Eval against the per-token losses", s1.NLL, mean, 1e-9*(1+float64(len(held))))
	if d := math.Abs(mean - rate); d > 4*se+9.0/float64(len(train)) {
		t.Errorf("k = 1: held-out %.5f ± %.5f, entropy rate %.5f", mean, se, rate)
	}
	m0, _ := NewKGram(0, 3)
	m0.Add(train, 0, len(train))
	if s0, _ := m0.Eval(held, 1, 0); s0.NLL < rate+0.05 {
		t.Errorf("unigram %.4f not above the rate %.4f", s0.NLL, rate)
	}
}

// TestBPEAbracadabra: the notes' example exactly (catalogue §2.3), one merge
// per step: ab → 256 (X), ra → 257 (Y), XY → 258 (Z): 11 → 9 → 7 → 5 tokens,
// then nothing occurs twice. A first-occurrence tie-break would merge Xr
// second instead of ra.
func TestBPEAbracadabra(t *testing.T) {
	b, err := NewBPE([]byte("abracadabra"))
	if err != nil {
		t.Fatal(err)
	}
	if p := b.Pairs(); p[0] != (Pair{97, 98, 2}) || p[1] != (Pair{98, 114, 2}) || p[2] != (Pair{114, 97, 2}) {
		t.Errorf("pairs in merge order: %v", p[:3])
	}
	want := []struct {
		merge Merge
		seq   []int
	}{
		{Merge{97, 98, 256, 2}, []int{256, 114, 97, 99, 97, 100, 256, 114, 97}},
		{Merge{114, 97, 257, 2}, []int{256, 257, 99, 97, 100, 256, 257}},
		{Merge{256, 257, 258, 2}, []int{258, 99, 97, 100, 258}},
	}
	for i, w := range want {
		if err := b.Step(); err != nil {
			t.Fatalf("merge %d: %v", i+1, err)
		}
		if got := b.Merges()[i]; got != w.merge || !slices.Equal(b.Tokens(), w.seq) {
			t.Errorf("merge %d: %+v → %v, want %+v → %v", i+1, got, b.Tokens(), w.merge, w.seq)
		}
	}
	if string(b.Piece(258)) != "abra" || b.VocabSize() != 259 {
		t.Errorf("Z = %q, vocabulary %d", b.Piece(258), b.VocabSize())
	}
	if err := b.Step(); !errors.Is(err, algo.ErrConverged) {
		t.Errorf("fourth merge: %v, want converged", err)
	}
	_, err = NewBPE(nil)
	algotest.WantParam(t, err, "text")
}

// TestBPELossless: the pieces of the tokens always spell the text, every
// merge shortens it by the pair's non-overlapping occurrences, and runs of
// one symbol merge without overlap.
func TestBPELossless(t *testing.T) {
	l, _ := NewLanguage(Animals())
	txt := []byte(l.Generate(rand.New(rand.NewPCG(9, 9)), 3000))
	b, _ := NewBPE(txt)
	for range 60 {
		before := len(b.Tokens())
		if err := b.Step(); err != nil {
			break
		}
		var got []byte
		for _, id := range b.Tokens() {
			got = append(got, b.Piece(id)...)
		}
		if !slices.Equal(got, txt) {
			t.Fatal("the tokens no longer spell the text")
		}
		if before <= len(b.Tokens()) {
			t.Fatal("a merge did not shorten the sequence")
		}
	}
	a, _ := NewBPE([]byte("aaaaa"))
	a.Step()
	if !slices.Equal(a.Tokens(), []int{256, 256, 97}) {
		t.Errorf("aaaaa → %v", a.Tokens())
	}
}
