package text

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thelab/lab/algo"
)

// MaxVocab bounds the characters of a vocabulary (so that a k-gram context
// of up to MaxK of them fits in 64 bits, and a model's output layer stays
// small).
const MaxVocab = 256

// Vocab numbers the distinct characters of a text: the tokens of a
// character-level model (seed 000 §2.2: "one-hot … n_voc = 26" for
// letters).
type Vocab struct {
	runes []rune
	id    map[rune]int
}

// NewVocab is the vocabulary of the characters of text, in code-point
// order. An empty text, or one of more than MaxVocab distinct characters,
// is an error.
func NewVocab(text string) (*Vocab, error) {
	seen := map[rune]bool{}
	for _, c := range text {
		seen[c] = true
	}
	if len(seen) == 0 {
		return nil, algo.BadParam("text", "empty", "at least one character")
	}
	if len(seen) > MaxVocab {
		return nil, algo.BadParam("text", fmt.Sprintf("%d distinct characters", len(seen)), fmt.Sprintf("at most %d", MaxVocab))
	}
	runes := make([]rune, 0, len(seen))
	for c := range seen {
		runes = append(runes, c)
	}
	slices.Sort(runes)
	return VocabOf(runes)
}

// VocabOf is the vocabulary of the given distinct characters, in their
// order.
func VocabOf(runes []rune) (*Vocab, error) {
	if len(runes) == 0 || len(runes) > MaxVocab {
		return nil, algo.BadParam("runes", len(runes), fmt.Sprintf("1..%d characters", MaxVocab))
	}
	v := &Vocab{runes: slices.Clone(runes), id: make(map[rune]int, len(runes))}
	for i, c := range runes {
		if _, dup := v.id[c]; dup {
			return nil, algo.BadParam("runes", string(c), "distinct characters")
		}
		v.id[c] = i
	}
	return v, nil
}

// Size is the number of characters n_voc.
func (v *Vocab) Size() int { return len(v.runes) }

// Rune is the character of token id.
func (v *Vocab) Rune(id int) rune { return v.runes[id] }

// ID is the token of c, and whether c is in the vocabulary.
func (v *Vocab) ID(c rune) (int, bool) {
	id, ok := v.id[c]
	return id, ok
}

// Encode turns text into tokens; a character outside the vocabulary is an
// error naming its position.
func (v *Vocab) Encode(text string) ([]int, error) {
	ids := make([]int, 0, len(text))
	for i, c := range text {
		id, ok := v.id[c]
		if !ok {
			return nil, fmt.Errorf("text: %q at byte %d is not in the vocabulary", c, i)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// Decode turns tokens back into text.
func (v *Vocab) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteRune(v.runes[id])
	}
	return b.String()
}
