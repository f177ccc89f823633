package seq

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
)

// Task supplies training sequences: T tokens each, of which the
// predictions at positions From..T−1 are scored (the next token of a text
// at every position; only the answer of a puzzle).
type Task interface {
	Seq() (T, from int)
	Vocab() int
	// Batch writes B sequences into inputs (B·T tokens) and the tokens
	// that follow positions from..T−1 of each into targets (B·(T − from)).
	Batch(rng *rand.Rand, B int, inputs, targets []int)
}

// Corpus is next-token prediction on a text: random windows of T tokens,
// every position scored.
type Corpus struct {
	ids  []int
	t, v int
}

// NewCorpus draws windows of T tokens from ids (tokens in 0..v−1, at
// least T + 1 of them, not copied).
func NewCorpus(ids []int, T, v int) (*Corpus, error) {
	if T < 1 || len(ids) < T+1 {
		return nil, algo.BadParam("text", fmt.Sprintf("%d tokens", len(ids)), fmt.Sprintf("at least %d (context + 1)", T+1))
	}
	for i, id := range ids {
		if id < 0 || id >= v {
			return nil, algo.BadParam("token", id, fmt.Sprintf("in 0..%d (position %d)", v-1, i))
		}
	}
	return &Corpus{ids: ids, t: T, v: v}, nil
}

// Seq is (T, 0).
func (c *Corpus) Seq() (int, int) { return c.t, 0 }

// Vocab is the number of tokens.
func (c *Corpus) Vocab() int { return c.v }

// Batch copies B random windows.
func (c *Corpus) Batch(rng *rand.Rand, B int, inputs, targets []int) {
	T := c.t
	for b := range B {
		s := rng.IntN(len(c.ids) - T)
		copy(inputs[b*T:(b+1)*T], c.ids[s:s+T])
		copy(targets[b*T:(b+1)*T], c.ids[s+1:s+T+1])
	}
}

// Puzzle names an algorithmic task.
type Puzzle string

// The puzzles: L digits, a separator, then the answer: the digits again,
// sorted, or reversed. Copying needs a head that attends L+1 positions
// back (so positions); sorting needs counting.
const (
	Copy    Puzzle = "copy"
	Sort    Puzzle = "sort"
	Reverse Puzzle = "reverse"
)

func (p Puzzle) String() string { return string(p) }

// Puzzle bounds.
const (
	MaxDigits    = 16
	MaxPuzzleLen = 32
)

// PuzzleTask is a puzzle over L digits 0..A−1 with the separator A:
// sequences x₁ … x_L | y₁ … y_L of 2L + 1 tokens, the model reading the
// first 2L and scored on the answer y only (positions L..2L−1 predict
// y₁ … y_L).
type PuzzleTask struct {
	kind Puzzle
	l, a int
	seq  []int
}

// NewPuzzle validates L in 1..MaxPuzzleLen and A in 2..MaxDigits.
func NewPuzzle(kind Puzzle, L, A int) (*PuzzleTask, error) {
	switch kind {
	case Copy, Sort, Reverse:
	default:
		return nil, algo.BadParam("task", kind, fmt.Sprintf("%s, %s or %s", Copy, Sort, Reverse))
	}
	if L < 1 || L > MaxPuzzleLen {
		return nil, algo.BadParam("length", L, fmt.Sprintf("in 1..%d", MaxPuzzleLen))
	}
	if A < 2 || A > MaxDigits {
		return nil, algo.BadParam("digits", A, fmt.Sprintf("in 2..%d", MaxDigits))
	}
	return &PuzzleTask{kind: kind, l: L, a: A, seq: make([]int, 2*L+1)}, nil
}

// Seq is (2L, L).
func (p *PuzzleTask) Seq() (int, int) { return 2 * p.l, p.l }

// Vocab is A + 1 (the digits and the separator).
func (p *PuzzleTask) Vocab() int { return p.a + 1 }

// Len is L.
func (p *PuzzleTask) Len() int { return p.l }

// Sep is the separator token A.
func (p *PuzzleTask) Sep() int { return p.a }

// Answer writes the answer to x into y.
func (p *PuzzleTask) Answer(x, y []int) {
	copy(y, x)
	switch p.kind {
	case Sort:
		slices.Sort(y)
	case Reverse:
		slices.Reverse(y)
	}
}

// Draw writes a random question into x (L digits).
func (p *PuzzleTask) Draw(rng *rand.Rand, x []int) {
	for i := range x {
		x[i] = rng.IntN(p.a)
	}
}

// Batch writes B random puzzles with their answers.
func (p *PuzzleTask) Batch(rng *rand.Rand, B int, inputs, targets []int) {
	L := p.l
	s := p.seq
	for b := range B {
		p.Draw(rng, s[:L])
		s[L] = p.a
		p.Answer(s[:L], s[L+1:])
		copy(inputs[b*2*L:(b+1)*2*L], s[:2*L])
		copy(targets[b*L:(b+1)*L], s[L+1:])
	}
}
