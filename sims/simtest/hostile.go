package simtest

import (
	"math/rand/v2"
	"strings"
)

// hostileAtoms are the pieces of HostileText: every byte value the text
// readers take as a character of its own (every C0 control but NUL,
// printable ASCII, DEL), every C1 control encoded in UTF-8, the bidi
// controls, zero-width and other format characters, line and paragraph
// separators, other spaces, combining marks on a character and alone,
// wide characters, emoji with a variation selector, a skin tone or a
// joiner, a flag, an Indic spacing mark, conjoining jamo, a prepended
// mark, a private-use character, and € (three bytes that BPE splits).
var hostileAtoms = func() []string {
	var a []string
	for r := rune(1); r < 0xa0; r++ {
		a = append(a, string(r))
	}
	return append(a, "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\u061c",
		"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u2028", "\u2029", "\u00a0", "\u3000",
		"e\u0301", "a\u0323\u0301", "\u0301", "\u20dd", "漢", "字", "한", "😀", "❤\ufe0f", "👍🏽", "👨\u200d👩", "🇫🇷", "का",
		"\u1100\u1161", "\u0d4e", "ﾊﾟ", "€", "\ue000")
}()

// HostileText is n bytes or so of hostileAtoms drawn at random from the
// seed: valid UTF-8 without NUL, which the readers accept, and the
// strongest text they do.
func HostileText(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0x686f7374)) // "host"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(hostileAtoms[rng.IntN(len(hostileAtoms))])
	}
	return b.String()
}

// HostileDocs are 60 documents for lda of words a terminal could draw at
// another width than the lab measures (a halfwidth voiced mark, which is
// a letter; conjoining jamo; a prepended letter; zero-width fillers),
// between every kind of control and format character: the corpus
// ldasim's TestTextShownSafely and tui's TestHostileTextAligned read.
func HostileDocs() string {
	words := []string{"topic", "model", "漢字漢", "한국어", "naïve", "ﬁnal", "ǅemo",
		"ﾊﾟﾊﾟﾊ", "ᄒᆞᆫ글", "ൎകക", "ᅟᅠabc", "dirichlet", "gibbs"}
	seps := []string{" ", "\t", "\x1b[31m", "\x1b]0;title\a", "\u0085", "\u009b", "\u202e", "\u2066", "\u200b", "\u200d",
		"\u2028", "\u00a0", "\x7f", " e\u0301 ", " \u0301 ", "\ufeff", "\x01"}
	rng := rand.New(rand.NewPCG(1, 2))
	var doc strings.Builder
	for range 60 {
		for range 12 {
			doc.WriteString(words[rng.IntN(len(words))])
			doc.WriteString(seps[rng.IntN(len(seps))])
		}
		doc.WriteString("\n")
	}
	return doc.String()
}
