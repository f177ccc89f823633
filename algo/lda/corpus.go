// Package lda holds latent Dirichlet allocation (seed 002 §3.5, L1432–1499):
// a bag-of-words corpus built from lines of text, a generator of corpora from
// planted topics by the model's own generative process, and the notes'
// coordinate-ascent variational inference (CAVI).
package lda

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/thelab/lab/algo"
)

// Corpus is a bag-of-words corpus: each document is the list of the distinct
// words it holds, with their counts.
type Corpus struct {
	Vocab []string // word id → word
	// Document d holds words Words[Start[d]:Start[d+1]], Counts[...] times each.
	Start  []int
	Words  []int32
	Counts []float64
	// Dropped is the number of input lines that held no word of the
	// vocabulary and were left out.
	Dropped int
}

// D is the number of documents; V the vocabulary size.
func (c *Corpus) D() int { return len(c.Start) - 1 }

// V is the vocabulary size.
func (c *Corpus) V() int { return len(c.Vocab) }

// Tokens is the total number of word occurrences.
func (c *Corpus) Tokens() int {
	n := 0.0
	for _, v := range c.Counts {
		n += v
	}
	return int(n)
}

// DocLen is the number of words in document d.
func (c *Corpus) DocLen(d int) float64 {
	n := 0.0
	for _, v := range c.Counts[c.Start[d]:c.Start[d+1]] {
		n += v
	}
	return n
}

// TokenizeOptions says which words a corpus keeps.
type TokenizeOptions struct {
	MinLen   int // shortest word kept, in letters (default 3)
	MinDocs  int // a word must appear in at least this many documents (default 2)
	MaxVocab int // keep at most the MaxVocab most frequent words (default DefaultMaxVocab)
	// KeepStopwords keeps the common English function words that are
	// dropped by default ("the", "and", ...): they would dominate every
	// topic of a real text.
	KeepStopwords bool
}

// Limits of a corpus: above them a sweep of the pane would be too slow to
// watch.
const (
	MaxDocs         = 20000
	MaxTokens       = 1_000_000
	DefaultMaxVocab = 2000
)

// Tokenize builds a corpus from lines of text, one document per line: words
// are maximal runs of letters (and digits or apostrophes inside a word),
// lower-cased; words shorter than MinLen, stopwords, words in fewer than
// MinDocs documents and all but the MaxVocab most frequent are dropped; so
// are lines left with no word. Vocabulary ids are in order of first
// appearance. It returns an error naming "corpus" when fewer than two
// documents or two words remain, or the corpus is over MaxDocs documents or
// MaxTokens words.
func Tokenize(lines []string, opt TokenizeOptions) (*Corpus, error) {
	if opt.MinLen <= 0 {
		opt.MinLen = 3
	}
	if opt.MinDocs <= 0 {
		opt.MinDocs = 2
	}
	if opt.MaxVocab <= 0 {
		opt.MaxVocab = DefaultMaxVocab
	}
	if len(lines) > MaxDocs {
		return nil, algo.BadParam("corpus", fmt.Sprintf("%d documents", len(lines)), fmt.Sprintf("at most %d documents (lines)", MaxDocs))
	}
	docs := make([][]string, len(lines))
	freq := map[string]int{}    // occurrences
	docFreq := map[string]int{} // documents
	var order []string          // first appearance
	tokens := 0
	for d, line := range lines {
		seen := map[string]bool{}
		for _, w := range words(line) {
			if len([]rune(w)) < opt.MinLen || (!opt.KeepStopwords && stopwords()[w]) {
				continue
			}
			docs[d] = append(docs[d], w)
			if _, ok := freq[w]; !ok {
				order = append(order, w)
			}
			freq[w]++
			if !seen[w] {
				seen[w] = true
				docFreq[w]++
			}
			tokens++
		}
		if tokens > MaxTokens {
			return nil, algo.BadParam("corpus", fmt.Sprintf("over %d words", MaxTokens), fmt.Sprintf("at most %d words", MaxTokens))
		}
	}
	var keep []string
	for _, w := range order {
		if docFreq[w] >= opt.MinDocs {
			keep = append(keep, w)
		}
	}
	if len(keep) > opt.MaxVocab {
		byFreq := slices.Clone(keep)
		slices.SortStableFunc(byFreq, func(a, b string) int { return freq[b] - freq[a] })
		top := map[string]bool{}
		for _, w := range byFreq[:opt.MaxVocab] {
			top[w] = true
		}
		keep = slices.DeleteFunc(keep, func(w string) bool { return !top[w] })
	}
	id := make(map[string]int32, len(keep))
	for i, w := range keep {
		id[w] = int32(i)
	}
	c := &Corpus{Vocab: keep, Start: []int{0}}
	counts := map[int32]float64{}
	var ids []int32
	for _, doc := range docs {
		clear(counts)
		ids = ids[:0]
		for _, w := range doc {
			if i, ok := id[w]; ok {
				if counts[i] == 0 {
					ids = append(ids, i)
				}
				counts[i]++
			}
		}
		if len(ids) == 0 {
			c.Dropped++
			continue
		}
		for _, i := range ids {
			c.Words = append(c.Words, i)
			c.Counts = append(c.Counts, counts[i])
		}
		c.Start = append(c.Start, len(c.Words))
	}
	if c.D() < 2 || c.V() < 2 {
		return nil, algo.BadParam("corpus", fmt.Sprintf("%d documents over %d words after tokenising", c.D(), c.V()),
			fmt.Sprintf("at least 2 documents (lines) and 2 words kept (words of %d+ letters, not stopwords, in %d+ documents)", opt.MinLen, opt.MinDocs))
	}
	return c, nil
}

// words splits a line into lower-case words: runs of letters, with digits
// and inner apostrophes allowed after the first letter.
func words(line string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, strings.TrimRight(b.String(), "'’"))
			b.Reset()
		}
	}
	for _, r := range line {
		switch {
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToLower(r))
		case b.Len() > 0 && (unicode.IsDigit(r) || r == '\'' || r == '’'):
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// stopwords are common English function words, dropped by Tokenize unless
// KeepStopwords is set. The set is built on first use, not when every run
// of the lab starts (issue 14.7).
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are aren't as at be
		because been before being below between both but by can can't cannot could couldn't did didn't do does
		doesn't doing don't down during each few for from further had hadn't has hasn't have haven't having he
		her here hers herself him himself his how i if in into is isn't it it's its itself just let's me more
		most much must my myself no nor not now of off on once only or other ought our ours ourselves out over
		own same shall she should shouldn't so some such than that that's the their theirs them themselves then
		there there's these they they're this those through to too under until up upon very was wasn't we were
		weren't what when where which while who whom why will with won't would wouldn't you your yours yourself
		yourselves one two also may might like get got said says say made make many every within without`) {
		m[w] = true
	}
	return m
})
