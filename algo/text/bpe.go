package text

import (
	"cmp"
	"slices"

	"github.com/thelab/lab/algo"
)

// FirstMerge is the token id of the first merged pair: ids 0..255 are the
// bytes (byte-level BPE starts from the 256 values of ISO 8859-1, seed 000
// L907).
const FirstMerge = 256

// Merge is one merge of BPE: the pair (Left, Right), which occurred Count
// times, became token New.
type Merge struct {
	Left, Right, New, Count int
}

// Pair is an adjacent pair of tokens and its number of occurrences.
type Pair struct {
	Left, Right, Count int
}

// BPE is byte-pair encoding (seed 000 §2.2.1–2.2.2, L875–909): starting
// from the bytes of a text, each Step merges the most frequent adjacent
// pair of tokens into a new token, until no pair occurs twice.
//
// The notes merge two pairs in one round (ab → X and ra → Y, L887–895,
// erratum 11 of the catalogue); here a step is one merge and ties need a
// rule. The rule that reproduces the notes' example exactly
// (catalogue §2.3): the most frequent pair, ties broken by the smallest
// (left id, right id), new tokens numbered 256, 257, …; occurrences are
// counted over all adjacent positions and replaced greedily from left to
// right without overlap. On "abracadabra" (11 tokens) it merges ab (97,
// 98) → 256 = X, then ra (114, 97) → 257 = Y ("XYcadXY", 7 tokens), then
// (256, 257) → 258 = Z ("ZcadZ", 5 tokens), as L889 and L895 write.
type BPE struct {
	seq    []int
	pieces [][]byte // token id → its bytes
	merges []Merge
	counts map[[2]int]int
}

// NewBPE starts from the bytes of data (at least one).
func NewBPE(data []byte) (*BPE, error) {
	if len(data) == 0 {
		return nil, algo.BadParam("text", "empty", "at least one byte")
	}
	b := &BPE{seq: make([]int, len(data)), pieces: make([][]byte, FirstMerge), counts: map[[2]int]int{}}
	for i, c := range data {
		b.seq[i] = int(c)
	}
	for i := range b.pieces {
		b.pieces[i] = []byte{byte(i)}
	}
	b.count()
	return b, nil
}

// BPEBytes is what a BPE of n bytes holds after merges merges: the token
// sequence, the pieces (a byte each, then a merge's, about 48 bytes with
// its header), the merges (appended) and the pair counts, a map entry
// for each distinct adjacent pair — at most n − 1 of them, and the map
// keeps the room of its largest count.
func BPEBytes(n, merges int) int64 {
	return 1<<10 + 8*int64(n) + FirstMerge*32 + int64(merges)*(48+5*32/4) + int64(min(n, FirstMerge*FirstMerge+merges*merges))*56
}

// count recounts the adjacent pairs of the sequence.
func (b *BPE) count() {
	clear(b.counts)
	for i := 1; i < len(b.seq); i++ {
		b.counts[[2]int{b.seq[i-1], b.seq[i]}]++
	}
}

// Best is the pair the next Step merges (by the rule above), and false when
// no pair occurs twice.
func (b *BPE) Best() (Pair, bool) {
	var best Pair
	for p, c := range b.counts {
		if c > best.Count || c == best.Count && less(p, [2]int{best.Left, best.Right}) {
			best = Pair{p[0], p[1], c}
		}
	}
	return best, best.Count >= 2
}

func less(a, b [2]int) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// Step merges the best pair everywhere, left to right, and returns
// algo.ErrConverged, merging nothing, when no pair occurs twice.
func (b *BPE) Step() error {
	best, ok := b.Best()
	if !ok {
		return algo.ErrConverged
	}
	id := len(b.pieces)
	out := b.seq[:0]
	for i := 0; i < len(b.seq); i++ {
		if i+1 < len(b.seq) && b.seq[i] == best.Left && b.seq[i+1] == best.Right {
			out = append(out, id)
			i++
			continue
		}
		out = append(out, b.seq[i])
	}
	b.seq = out
	b.pieces = append(b.pieces, slices.Concat(b.pieces[best.Left], b.pieces[best.Right]))
	b.merges = append(b.merges, Merge{Left: best.Left, Right: best.Right, New: id, Count: best.Count})
	b.count()
	return nil
}

// Tokens is the current token sequence (not to be modified).
func (b *BPE) Tokens() []int { return b.seq }

// Merges lists the merges made, in order (not to be modified).
func (b *BPE) Merges() []Merge { return b.merges }

// VocabSize is n_voc: the 256 bytes plus one token per merge.
func (b *BPE) VocabSize() int { return len(b.pieces) }

// Piece is the bytes token id stands for, which may split a UTF-8
// character: they are bytes, not text.
func (b *BPE) Piece(id int) []byte { return b.pieces[id] }

// Pairs lists the adjacent pairs with their counts in the order of the
// merge rule (most frequent first, then by (left, right)): the first is
// the next merge when its count is at least 2.
func (b *BPE) Pairs() []Pair {
	out := make([]Pair, 0, len(b.counts))
	for p, c := range b.counts {
		out = append(out, Pair{p[0], p[1], c})
	}
	slices.SortFunc(out, func(x, y Pair) int {
		if c := cmp.Compare(y.Count, x.Count); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Left, y.Left); c != 0 {
			return c
		}
		return cmp.Compare(x.Right, y.Right)
	})
	return out
}
