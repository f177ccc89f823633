package chart

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Width is the display width of s, as ansi.StringWidth measures it, but
// without grapheme segmentation for what the charts write: SGR escape
// sequences, printable ASCII and the runes of narrowRune. Anything else (a
// combining mark, an emoji, East Asian text, another escape sequence) is
// measured by ansi.StringWidth. Measuring the lines of a screen was a
// third of the cost of drawing it.
func Width(s string) int {
	w := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			w++
			i++
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			// CSI: parameter and intermediate bytes, then a final byte.
			j := i + 2
			for j < len(s) && s[j] >= 0x20 && s[j] < 0x40 {
				j++
			}
			if j == len(s) || s[j] < 0x40 || s[j] > 0x7e {
				return ansi.StringWidth(s)
			}
			i = j + 1
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !narrowRune(r) {
				return ansi.StringWidth(s)
			}
			w++
			i += size
		default:
			return ansi.StringWidth(s)
		}
	}
	return w
}

// narrowRune reports whether r is one of the single-cell runes the charts
// draw with (Latin-1 letters, Greek, punctuation, arrows, mathematical
// operators, box drawing, blocks, shapes, braille), on which Width and
// ansi.StringWidth agree (TestWidthAgrees checks every one).
func narrowRune(r rune) bool {
	switch {
	case r >= 0xa1 && r <= 0xff && r != 0xad, // Latin-1: ² ½ ± · × ÷, letters
		r >= 0x391 && r <= 0x3c9,   // Greek
		r >= 0x2010 && r <= 0x2027, // dashes, quotes, bullets, ellipsis
		r >= 0x2030 && r <= 0x205e,
		r >= 0x2070 && r <= 0x209c, // super- and subscripts
		r >= 0x2190 && r <= 0x21ff, // arrows
		r >= 0x2200 && r <= 0x22ff, // mathematical operators
		r >= 0x2500 && r <= 0x259f, // box drawing, block elements
		r >= 0x25a0 && r <= 0x25fc, // geometric shapes
		r >= 0x2800 && r <= 0x28ff: // braille
		return true
	}
	return false
}
