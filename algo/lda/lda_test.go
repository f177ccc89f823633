package lda

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus.txt from the planted generator")

const corpusFile = "../../testdata/corpus.txt"

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x1da)) }

// shipped returns the planted corpus of testdata/corpus.txt, regenerated.
func shipped(t testing.TB) *Planted {
	t.Helper()
	p, err := NewPlanted(DefaultPlanted, rand.New(rand.NewPCG(PlantedSeed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShippedCorpus checks that testdata/corpus.txt is the planted corpus
// (seed PlantedSeed, DefaultPlanted): so its truth is known to the tests and
// to the sim. Run with -update to rewrite it after changing the generator.
func TestShippedCorpus(t *testing.T) {
	want := strings.Join(shipped(t).Lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(corpusFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("testdata/corpus.txt is not the planted corpus of seed 1 (go test ./algo/lda -run Shipped -update)")
	}
	if n := strings.Count(want, "\n"); n != DefaultPlanted.D {
		t.Fatalf("%d documents, want %d", n, DefaultPlanted.D)
	}
}

func TestTokenize(t *testing.T) {
	lines := []string{
		"The Rocket's orbit, the ROCKET and the moon!",
		"a moon; orbit 42 times: rocket-science",
		"",
		"the of and",              // only stopwords: dropped
		"unique words nowhere",    // words in one document only: dropped
		"Orbit x7 moon ab rocket", // "ab" too short, "x7" is a word of 2 letters
	}
	c, err := Tokenize(lines, TokenizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Vocab, " "); got != "orbit rocket moon" {
		t.Fatalf("vocabulary %q", got)
	}
	if c.D() != 3 || c.Dropped != 3 {
		t.Fatalf("%d documents, %d dropped; want 3 and 3", c.D(), c.Dropped)
	}
	// Document 0: rocket ×2 ("rocket's" keeps its apostrophe: a different
	// word, in one document only, so dropped), orbit, moon.
	if c.DocLen(0) != 3 || c.Tokens() != 3+3+3 {
		t.Fatalf("doc 0 has %v words, corpus %d", c.DocLen(0), c.Tokens())
	}
	if _, err := Tokenize([]string{"one line only"}, TokenizeOptions{}); !algo.IsParamError(err, "corpus") {
		t.Errorf("a one-document corpus: got %v, want an error naming corpus", err)
	}
	if _, err := Tokenize([]string{"the and", "of the"}, TokenizeOptions{}); !algo.IsParamError(err, "corpus") {
		t.Errorf("a corpus of stopwords: got %v", err)
	}
	c, err = Tokenize([]string{"the cat", "the dog"}, TokenizeOptions{KeepStopwords: true, MinDocs: 1})
	if err != nil || c.V() != 3 {
		t.Errorf("KeepStopwords: %v, %v", c, err)
	}
}

// TestPlanted checks the generator: the shipped corpus tokenises back to
// exactly its planted vocabulary and word counts, each θ_d is a distribution,
// and the frequencies of the planted topics' words follow β (the complete-
// data estimate is within 0.1 in L1 of β for ~3000 words per topic).
func TestPlanted(t *testing.T) {
	p := shipped(t)
	c, err := Tokenize(p.Lines, TokenizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.V() != len(p.Vocab) || c.D() != len(p.Lines) {
		t.Fatalf("tokenised to %d documents over %d words, want %d over %d", c.D(), c.V(), len(p.Lines), len(p.Vocab))
	}
	tokens := 0
	for _, d := range p.Docs {
		tokens += len(d)
	}
	if c.Tokens() != tokens {
		t.Fatalf("%d tokens, want %d", c.Tokens(), tokens)
	}
	for d, th := range p.Theta {
		s := 0.0
		for _, v := range th {
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("θ_%d sums to %v", d, s)
		}
	}
	for k, row := range p.CompleteData() {
		if l1 := l1(row, p.Beta[k]); l1 > 0.1 {
			t.Errorf("topic %d: complete-data L1 error %v", k, l1)
		}
	}
	if _, err := NewPlanted(PlantedConfig{K: 9, D: 10, MinLen: 1, MaxLen: 2, Alpha: 1}, newRNG(1)); !algo.IsParamError(err, "k") {
		t.Errorf("k = 9: %v", err)
	}
}

func l1(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s
}

// fit tokenises the shipped corpus and runs CAVI to convergence.
func fit(t testing.TB, p *Planted, cfg Config, seed uint64) (*LDA, *Corpus) {
	t.Helper()
	c, err := Tokenize(p.Lines, TokenizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(c, cfg, newRNG(seed))
	if err != nil {
		t.Fatal(err)
	}
	for e.Sweeps() < 1000 {
		if err := e.Step(); errors.Is(err, algo.ErrConverged) {
			return e, c
		} else if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no convergence in 1000 sweeps")
	return nil, nil
}

// TestRecovery is item C12's oracle: on the planted corpus CAVI recovers the
// planted topics. The fitted topics E_q[β_k] = λ_k/Σλ_k are matched to the
// planted β by the permutation of least total L1 distance (all K! = 24), and
// each matched topic must be within twice the L1 error of the complete-data
// estimate (the word frequencies given the true topic of every word: the best
// one can do from this sample; about 0.06) of β. As for EM (§2.6), CAVI finds
// a local optimum: of seeds 1..10, seven reach an ELBO of −3.342 to −3.346
// per word and recover every topic within 1.13–1.27 times the complete-data
// error; three stop at −3.39 to −3.57 with two topics merged (up to 32
// times). The ELBO tells them apart, so the best ELBO of three starts is
// kept, as in practice.
func TestRecovery(t *testing.T) {
	p := shipped(t)
	var best *LDA
	var corpus *Corpus
	for seed := uint64(1); seed <= 3; seed++ {
		e, c := fit(t, p, DefaultConfig(4), seed)
		if best == nil || e.ELBOPerWord() > best.ELBOPerWord() {
			best, corpus = e, c
		}
	}
	idx := map[string]int{}
	for i, w := range corpus.Vocab {
		idx[w] = i
	}
	fitted := best.Topics(nil)
	// Re-express the fitted topics over the planted vocabulary.
	over := make([][]float64, len(fitted))
	for j := range fitted {
		over[j] = make([]float64, len(p.Vocab))
		for v, w := range p.Vocab {
			over[j][v] = fitted[j][idx[w]]
		}
	}
	perm, dist := MatchTopics(over, p.Beta)
	cd := p.CompleteData()
	for k := range p.Beta {
		got, bench := dist[k], l1(cd[k], p.Beta[k])
		if math.Abs(got-l1(over[perm[k]], p.Beta[k])) > 1e-12 {
			t.Fatalf("MatchTopics' distance %v for topic %d is not its L1", got, k)
		}
		if got > 2*bench {
			t.Errorf("planted topic %d (%s) ↔ fitted %d: L1 error %.4f > 2 × complete-data %.4f", k, PlantedTopics[k].Name, perm[k], got, bench)
		}
	}
}

// TestMatchTopics checks the matching on a permuted copy with an extra row:
// it finds the permutation, and the extra row stays unmatched.
func TestMatchTopics(t *testing.T) {
	_, beta := PlantedBeta(4)
	fit := [][]float64{beta[2], beta[0], make([]float64, len(beta[0])), beta[3], beta[1]}
	fit[2][0] = 1
	match, dist := MatchTopics(fit, beta)
	if fmt.Sprint(match) != "[1 4 0 3]" {
		t.Fatalf("match %v, want [1 4 0 3]", match)
	}
	for k, d := range dist {
		if d != 0 {
			t.Errorf("topic %d at distance %v", k, d)
		}
	}
}

// TestELBOMonotone is the coordinate-ascent guarantee: the ELBO never
// decreases, neither over the local step (φ and γ of every document) nor over
// the global step (λ), on the planted corpus and on a corpus with K above
// the planted number, for several starts, priors and local budgets. Slack:
// 1e-9 relative (rounding in a sum over ~10⁴ words). It also checks, after
// every sweep, that γ_d sums to Kα + N_d (γ_dk = α + Σ_n φ_dnk, Σ_k φ = 1).
//
// Each setting runs from one start, the starts alternating (seeds 1 and 2
// of every setting took twice the time). The 40 sweeps stay: a global step
// that overshoots or undershoots (λ = η + c·s, c = 1.5, 1.1, 1.02, 0.8)
// first lowers the ELBO at sweeps 14–33, and these four starts catch each
// of the four (K = 3 the first three, K = 4 the last, K = 10 the first).
func TestELBOMonotone(t *testing.T) {
	p := shipped(t)
	c, err := Tokenize(p.Lines, TokenizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		seed uint64
	}{
		{DefaultConfig(4), 1},
		{Config{K: 6, Alpha: 0.1, Eta: 0.01, LocalIters: 1, Tol: 0}, 2},
		{Config{K: 3, Alpha: 2, Eta: 1, LocalIters: 5, LocalTol: 0, Tol: 0}, 1},
		{Config{K: 10, Alpha: 0.05, Eta: 0.5, LocalIters: 100, LocalTol: 1e-6, Tol: 0}, 2},
	} {
		cfg, seed := tc.cfg, tc.seed
		t.Run(fmt.Sprintf("k=%d/alpha=%g/eta=%g/iters=%d/seed=%d", cfg.K, cfg.Alpha, cfg.Eta, cfg.LocalIters, seed), func(t *testing.T) {
			e, err := New(c, cfg, newRNG(seed))
			if err != nil {
				t.Fatal(err)
			}
			prev := e.ELBO()
			slack := func(x float64) float64 { return 1e-9 * math.Abs(x) }
			for sweep := 0; sweep < 40; sweep++ {
				e.local()
				l := e.ELBO()
				if l < prev-slack(prev) {
					t.Fatalf("sweep %d: the local step lowered the ELBO from %.12g to %.12g", sweep, prev, l)
				}
				e.global()
				g := e.ELBO()
				if g < l-slack(l) {
					t.Fatalf("sweep %d: the global step lowered the ELBO from %.12g to %.12g", sweep, l, g)
				}
				prev = g
				for d := 0; d < c.D(); d++ {
					s := 0.0
					for _, x := range e.Gamma(d) {
						s += x
					}
					if want := float64(cfg.K)*cfg.Alpha + c.DocLen(d); math.Abs(s-want) > 1e-9*want {
						t.Fatalf("sweep %d: Σ_k γ_%d,k = %.12g, want Kα + N_d = %.12g", sweep, d, s, want)
					}
				}
			}
		})
	}
}

// TestStep checks the engine's own loop: the trace is the ELBO per word after
// each sweep, non-decreasing, and ErrConverged comes once a sweep gains less
// than Tol, without moving.
func TestStep(t *testing.T) {
	p := shipped(t)
	e, _ := fit(t, p, DefaultConfig(4), 7)
	tr := e.Trace()
	if len(tr) != e.Sweeps()+1 || tr[len(tr)-1] != e.ELBOPerWord() {
		t.Fatalf("trace of %d values after %d sweeps", len(tr), e.Sweeps())
	}
	for i := 1; i < len(tr); i++ {
		if tr[i] < tr[i-1]-1e-9*math.Abs(tr[i-1]) {
			t.Fatalf("ELBO fell at sweep %d: %v → %v", i, tr[i-1], tr[i])
		}
	}
	if d := tr[len(tr)-1] - tr[len(tr)-2]; d >= DefaultConfig(4).Tol {
		t.Fatalf("converged with a last gain of %v", d)
	}
	n := e.Sweeps()
	if err := e.Step(); !errors.Is(err, algo.ErrConverged) || e.Sweeps() != n {
		t.Fatalf("second Step after convergence: %v", err)
	}
	shares := e.Shares()
	s := 0.0
	for _, v := range shares {
		s += v
	}
	if math.Abs(s-1) > 1e-9 {
		t.Errorf("topic shares sum to %v", s)
	}
}

func TestBadParams(t *testing.T) {
	c, err := Tokenize(shipped(t).Lines, TokenizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good := DefaultConfig(4)
	cases := []struct {
		name  string
		cfg   func(*Config)
		param string
	}{
		{"k=1", func(c *Config) { c.K = 1 }, "k"},
		{"k=11", func(c *Config) { c.K = 11 }, "k"},
		{"alpha=0", func(c *Config) { c.Alpha = 0 }, "alpha"},
		{"eta NaN", func(c *Config) { c.Eta = math.NaN() }, "eta"},
		{"iters=0", func(c *Config) { c.LocalIters = 0 }, "iters"},
		{"local_tol<0", func(c *Config) { c.LocalTol = -1 }, "local_tol"},
		{"tol Inf", func(c *Config) { c.Tol = math.Inf(1) }, "tol"},
	}
	for _, tc := range cases {
		cfg := good
		tc.cfg(&cfg)
		if _, err := New(c, cfg, newRNG(1)); !algo.IsParamError(err, tc.param) {
			t.Errorf("%s: got %v, want an error naming %s", tc.name, err, tc.param)
		}
	}
	if _, err := New(nil, good, newRNG(1)); !algo.IsParamError(err, "corpus") {
		t.Errorf("nil corpus: %v", err)
	}
	if _, err := New(c, good, nil); !algo.IsParamError(err, "rng") {
		t.Errorf("nil rng: %v", err)
	}
}

// BenchmarkSweep: one sweep (local + global + ELBO) over a planted corpus of
// 10 000 words (250 documents of 40 words on average), K = 4. A run that
// converges is restarted from a new random λ (outside the timer), so the
// figure mixes the early sweeps, where each document takes several φ/γ
// rounds, with the late ones, where it takes one.
func BenchmarkSweep(b *testing.B) {
	cfg := DefaultPlanted
	cfg.D = 250
	p, err := NewPlanted(cfg, newRNG(3))
	if err != nil {
		b.Fatal(err)
	}
	c, err := Tokenize(p.Lines, TokenizeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(c.Tokens()), "tokens")
	start := func(seed uint64) *LDA {
		e, err := New(c, DefaultConfig(4), newRNG(seed))
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	e := start(0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := e.Step(); errors.Is(err, algo.ErrConverged) {
			b.StopTimer()
			e = start(uint64(i))
			b.StartTimer()
		} else if err != nil {
			b.Fatal(err)
		}
	}
}
