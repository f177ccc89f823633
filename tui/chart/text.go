package chart

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The layout rules for text, which every chart and the pane follow:
//
//   - a title, a note or a label that does not fit is cut at a word
//     boundary and marked with "…" (Clip); a single word longer than the
//     room is cut where it must, still marked;
//   - a legend drops whole items from its end and says how many with "+N"
//     (fitItems), never a part of a name;
//   - a note longer than its line wraps at word boundaries (Wrap);
//   - neighbours keep at least one blank cell between them.

// Ellipsis marks text cut to fit.
const Ellipsis = "…"

// Clip returns s (plain text, no escape sequences) if it fits in w cells,
// else its longest prefix that ends at a word boundary and fits with "…"
// after it; a first word too long for w is cut inside, still marked.
func Clip(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	room := w - 1 // for the ellipsis
	cut, width, lastSpace := 0, 0, -1
	for i, r := range s {
		if r == ' ' {
			lastSpace = i
		}
		rw := Width(string(r))
		if width+rw > room {
			break
		}
		width += rw
		cut = i + utf8.RuneLen(r)
	}
	if cut < len(s) && !strings.ContainsRune(" ,;:", rune(s[cut])) && lastSpace > 0 && lastSpace < cut {
		cut = lastSpace // the word at the cut does not fit whole (a word's trailing comma may go)
	}
	kept := strings.TrimRight(s[:cut], " ,;:·–—(")
	// Brackets the cut leaves open inside one another go with what they
	// opened ("s·W₂(μ,ν) (under W₂(μ…" → "s·W₂(μ,ν)…"), unless that is
	// all there is; one open bracket stays ("trace of x (burn-in…").
	if i, n := unclosed(kept); n > 1 && i > 0 {
		kept = strings.TrimRight(kept[:i], " ,;:·–—(")
	}
	// A text cut after a word that only leads to what was cut ("for time
	// T =…", "burn-in ends at…") ends before it: "for time T…".
	for {
		i := strings.LastIndexByte(kept, ' ')
		if i <= 0 || !dangling(kept[i+1:]) {
			break
		}
		kept = strings.TrimRight(kept[:i], " ,;:·–—(")
	}
	return kept + Ellipsis
}

// unclosed is the index of the first "(" of s left open by the end of s
// (or -1) and how many are open there.
func unclosed(s string) (int, int) {
	var open []int
	for i, r := range s {
		switch r {
		case '(':
			open = append(open, i)
		case ')':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return -1, 0
	}
	return open[0], len(open)
}

// dangling reports whether a word only leads to the words after it: an
// operator or relation ("=", "±", "→"), a word ending in one ("T=",
// "(ε"'s opening bracket is trimmed apart), or a preposition.
func dangling(word string) bool {
	switch word {
	case "at", "of", "for", "to", "by", "in", "on", "with", "and", "or", "the", "a", "an", "is", "vs", "from", "than",
		"per", "while", "not", "under", "over", "against", "into", "as":
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(word)
	return strings.ContainsRune("=≈±<>≤≥→←×+−-|:", last)
}

// ClipOrDrop is Clip(s, w) when that keeps s's first word whole, else "":
// a note or a caption cut inside its first word says nothing, and is left
// out rather than shown as a stub ("0.…", "gr…").
func ClipOrDrop(s string, w int) string {
	c := Clip(s, w)
	if f := strings.Fields(s); len(f) > 0 && !strings.HasPrefix(c, strings.TrimRight(f[0], ",;:")) {
		return ""
	}
	return c
}

// Wrap breaks s (plain text) into lines of at most w cells at word
// boundaries; a word longer than w is split. An empty s gives one empty
// line.
func Wrap(s string, w int) []string { return wrap(s, w, true) }

// WrapWhole breaks s into lines of at most w cells at spaces only, for
// text a person copies from (lab help): a flag such as --data, a name such
// as k-means and a word longer than a line stay whole (such a word
// overflows its line). A newline in s ends a line.
func WrapWhole(s string, w int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		lines = append(lines, wrap(para, max(w, 1), false)...)
	}
	return lines
}

// wrap is Wrap, splitting a word longer than w only when split is set.
func wrap(s string, w int, split bool) []string {
	if w <= 0 {
		return nil
	}
	if Width(s) <= w {
		return []string{s}
	}
	var lines []string
	line, lw := "", 0
	for _, word := range strings.Fields(s) {
		ww := Width(word)
		for split && ww > w { // a word longer than a line: split it
			if lw > 0 {
				lines = append(lines, line)
				line, lw = "", 0
			}
			head := headOf(word, w)
			lines = append(lines, head)
			word = word[len(head):]
			ww = Width(word)
		}
		switch {
		case lw == 0:
			line, lw = word, ww
		case lw+1+ww <= w:
			line, lw = line+" "+word, lw+1+ww
		default:
			lines = append(lines, line)
			line, lw = word, ww
		}
	}
	if lw > 0 || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// headOf is the longest prefix of s at most w cells wide, and at least
// its first rune (wider than w when w is 1 and the rune wide), so that
// splitting a word always moves on.
func headOf(s string, w int) string {
	width := 0
	for i, r := range s {
		rw := Width(string(r))
		if width+rw > w && i > 0 {
			return s[:i]
		}
		width += rw
	}
	return s
}

// fitItems returns how many of the items (their widths, with gap cells
// between them) fit in w cells, leaving room for a "+N" that counts the
// items left out; more is that marker, or "".
func fitItems(widths []int, gap, w int) (n int, more string) {
	used := 0
	for i, iw := range widths {
		if i > 0 {
			iw += gap
		}
		rest := len(widths) - i - 1
		marker := 0
		if rest > 0 {
			marker = gap + len(moreMarker(rest))
		}
		if used+iw+marker > w {
			// This item does not fit beside a marker for the rest: the
			// marker, which the last round left room for, counts it too.
			return i, moreMarker(len(widths) - i)
		}
		used += iw
	}
	return len(widths), ""
}

// itemRows splits items of these widths, gap apart, over at most rows
// lines of w cells, returning the index of each line's first item: every
// line but the last takes as many whole items as fit, the last the rest,
// which its caller fits with "+N" (fitItems). No more lines are used than
// the items need.
func itemRows(widths []int, gap, w, rows int) []int {
	starts := []int{0}
	i := 0
	for len(starts) < rows {
		if n, _ := fitItems(widths[i:], gap, w); n == len(widths)-i {
			break
		}
		k, used := i, 0
		for k < len(widths) {
			iw := widths[k]
			if k > i {
				iw += gap
			}
			if used+iw > w {
				break
			}
			used += iw
			k++
		}
		if k == i { // not one whole item fits a line
			break
		}
		i = k
		starts = append(starts, i)
	}
	return starts
}

func moreMarker(n int) string { return "+" + strconv.Itoa(n) }
