// Package chart draws the pictures of a sims.Frame as text: line charts
// (through asciigraph), 2-D canvases in braille and half blocks, histograms
// with an exact density over them, bar charts, tables and boxed graphs.
//
// Every chart is a pure function of its data and a size: Render returns
// exactly h lines of display width w. In colour mode it emits 24-bit ANSI
// colours, which Bubble Tea (or colorprofile, for headless output) reduces to
// what the terminal supports; in monochrome mode (NO_COLOR) it emits no
// colour at all and tells classes apart by glyphs and shades instead.
package chart

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// rgb is a 24-bit colour; the zero value means the terminal's default.
type rgb uint32

const colorSet rgb = 1 << 24

func newRGB(r, g, b uint8) rgb { return colorSet | rgb(r)<<16 | rgb(g)<<8 | rgb(b) }

func (c rgb) parts() (r, g, b uint8) { return uint8(c >> 16), uint8(c >> 8), uint8(c) }

// blend mixes a and b (t = 0 gives a, 1 gives b); a default colour stays default.
func blend(a, b rgb, t float64) rgb {
	if a == 0 || b == 0 {
		return a
	}
	ar, ag, ab := a.parts()
	br, bg, bb := b.parts()
	mix := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t + 0.5) }
	return newRGB(mix(ar, br), mix(ag, bg), mix(ab, bb))
}

// cell is one terminal cell: a rune and any combining marks after it.
type cell struct {
	r      rune
	marks  string // combining marks (K̂, λ̃) drawn in the same cell
	fg, bg rgb
	bold   bool
}

// buffer is a w×h grid of cells, row 0 at the top. A mono buffer drops
// colours when it is serialised (bold stays).
type buffer struct {
	w, h  int
	mono  bool
	cells []cell
}

func newBuffer(w, h int, mono bool) *buffer {
	b := &buffer{w: w, h: h, mono: mono, cells: make([]cell, w*h)}
	for i := range b.cells {
		b.cells[i].r = ' '
	}
	return b
}

func (b *buffer) at(x, y int) *cell {
	if x < 0 || y < 0 || x >= b.w || y >= b.h {
		return nil
	}
	return &b.cells[y*b.w+x]
}

// text writes s from (x, y), clipped to the row. A combining mark joins
// the cell before it, so "K̂" takes one cell, as the terminal draws it; a
// wide rune (漢) takes two, the second a continuation cell (rune 0) that
// is not written out. A wide rune that would straddle the right edge is
// drawn as a space.
func (b *buffer) text(x, y int, s string, fg rgb, bold bool) {
	for _, r := range s {
		if unicode.In(r, unicode.Mn, unicode.Me) {
			if c := b.at(x-1, y); c != nil {
				c.marks += string(r)
			}
			continue
		}
		wide := r >= 0x1100 && ansi.StringWidth(string(r)) == 2
		if c := b.at(x, y); c != nil {
			b.unsplit(x, y)
			c.r, c.marks, c.fg, c.bold = r, "", fg, bold
			if wide {
				if next := b.at(x+1, y); next != nil {
					b.unsplit(x+1, y)
					next.r, next.marks = 0, ""
				} else {
					c.r = ' '
				}
			}
		}
		x++
		if wide {
			x++
		}
	}
}

// unsplit blanks the other half of a wide rune about to be overwritten at
// (x, y), so no half of it is left to shift the row.
func (b *buffer) unsplit(x, y int) {
	c := b.at(x, y)
	switch {
	case c.r == 0:
		if prev := b.at(x-1, y); prev != nil {
			prev.r, prev.marks = ' ', ""
		}
	case c.r >= 0x1100 && ansi.StringWidth(string(c.r)) == 2:
		if next := b.at(x+1, y); next != nil && next.r == 0 {
			next.r = ' '
		}
	}
}

// lines serialises the buffer, changing SGR attributes only where they
// change and resetting them at the end of every line.
func (b *buffer) lines() []string {
	out := make([]string, b.h)
	var sb strings.Builder
	for y := 0; y < b.h; y++ {
		sb.Reset()
		var fg, bg rgb
		bold := false
		for x := 0; x < b.w; x++ {
			c := b.cells[y*b.w+x]
			if b.mono {
				c.fg, c.bg = 0, 0
			}
			if c.fg != fg || c.bg != bg || c.bold != bold {
				writeSGR(&sb, c.fg, c.bg, c.bold)
				fg, bg, bold = c.fg, c.bg, c.bold
			}
			if c.r == 0 {
				continue // the right half of a wide rune
			}
			sb.WriteRune(c.r)
			sb.WriteString(c.marks)
		}
		if fg != 0 || bg != 0 || bold {
			sb.WriteString("\x1b[m")
		}
		out[y] = sb.String()
	}
	return out
}

func writeSGR(sb *strings.Builder, fg, bg rgb, bold bool) {
	sb.WriteString("\x1b[0")
	if bold {
		sb.WriteString(";1")
	}
	if fg != 0 {
		r, g, b := fg.parts()
		sb.WriteString(";38;2;")
		writeTriple(sb, r, g, b)
	}
	if bg != 0 {
		r, g, b := bg.parts()
		sb.WriteString(";48;2;")
		writeTriple(sb, r, g, b)
	}
	sb.WriteByte('m')
}

func writeTriple(sb *strings.Builder, r, g, b uint8) {
	var buf [12]byte
	n := strconv.AppendUint(buf[:0], uint64(r), 10)
	n = append(n, ';')
	n = strconv.AppendUint(n, uint64(g), 10)
	n = append(n, ';')
	n = strconv.AppendUint(n, uint64(b), 10)
	sb.Write(n)
}
