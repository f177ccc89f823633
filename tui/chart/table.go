package chart

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// fillDim is how far a filled cell's class colour is pulled toward the
// shadow: a tint that the default ink stays readable on.
const fillDim = 0.55

// focusMark is drawn before the cell or node of the last step.
const focusMark = "▸"

// colGap is the room before a table column's text: a space and the slot.
const colGap = 2

// tableChart draws a title, a header row and one row per table row; a
// column is its widest text, right-aligned, after a space and a one-cell
// slot that holds the focus mark (or, in monochrome, a filled cell's class
// glyph).
// What does not fit is windowed around the first focused cell, and the
// title says which rows and columns are shown; given room, the table
// scales up (maxTableScale).
func tableChart(c sims.TableChart, w, h int, o Options) []string {
	b := newBuffer(w, h, o.Mono)
	labelW, colW := tableWidths(c)
	ncol := len(colW)
	labelW = min(labelW, w/3)
	fr, fc := -1, -1
	for i, r := range c.Rows {
		for j, cell := range r.Cells {
			if cell.Tone == sims.ToneFocus && fr < 0 {
				fr, fc = i, j
			}
		}
	}
	room := w - labelW
	for j := range colW {
		colW[j] = min(colW[j], room-colGap) // a lone column wider than the chart is cut
	}
	y0 := 1
	if c.Columns != nil {
		y0 = 2
	}
	// Given room, a matrix scales up: k lines a row, its text on the
	// middle one, and 2(k−1) more columns before each column's text, so
	// that it keeps its shape on a large screen.
	k := 1
	for ; k < tableScale(c); k++ {
		wide := labelW
		for _, cw := range colW {
			wide += cw + colGap + 2*k
		}
		if wide > w || y0+len(c.Rows)*(k+1) > h {
			break
		}
	}
	gap := colGap + 2*(k-1)
	c0, c1 := window(ncol, max(fc, 0), func(j int) int { return colW[j] + gap }, room)
	r0, r1 := window(len(c.Rows), max(fr, 0), func(int) int { return 1 }, h-y0)

	note := ""
	if r0 > 0 || r1 < len(c.Rows) {
		note = fmt.Sprintf("rows %d–%d/%d", r0+1, r1, len(c.Rows))
	}
	if c0 > 0 || c1 < ncol {
		if note != "" {
			note += ", "
		}
		note += fmt.Sprintf("cols %d–%d/%d", c0+1, c1, ncol)
	}
	titleLine(b, 0, c.Title, note)

	right := func(x, y, width int, s string, fg rgb, bold bool) {
		s = ansi.Truncate(s, width, "…")
		b.text(x+width-ansi.StringWidth(s), y, s, fg, bold)
	}
	if c.Columns != nil {
		b.text(0, 1, ansi.Truncate(c.Corner, labelW, "…"), axisColor, false)
		x := labelW
		for j := c0; j < c1; j++ {
			if j < len(c.Columns) {
				right(x+gap, 1, colW[j], c.Columns[j], axisColor, false)
			}
			x += colW[j] + gap
		}
	}
	for i := r0; i < r1; i++ {
		y := y0 + (i-r0)*k + (k-1)/2
		r := c.Rows[i]
		b.text(0, y, ansi.Truncate(r.Label, labelW, "…"), 0, false)
		x := labelW
		for j := c0; j < c1; j++ {
			if j < len(r.Cells) {
				drawCell(b, x+gap-1, y, colW[j], r.Cells[j], o, right)
			}
			x += colW[j] + gap
		}
	}
	return b.lines()
}

// drawCell draws one cell: the slot at x, the text right-aligned in the
// width after it.
func drawCell(b *buffer, x, y, width int, cell sims.Cell, o Options,
	right func(x, y, width int, s string, fg rgb, bold bool)) {
	ink := classColor(cell.Class)
	switch cell.Tone {
	case sims.ToneDim:
		right(x+1, y, width, cell.Text, axisColor, false)
	case sims.ToneInk:
		right(x+1, y, width, cell.Text, ink, true)
	case sims.ToneFill:
		right(x+1, y, width, cell.Text, 0, false)
		if o.Mono {
			b.text(x, y, string(classGlyph(cell.Class)), 0, false)
			return
		}
		tint := classTint(cell.Class, 1-fillDim)
		for i := 1; i <= width; i++ {
			if c := b.at(x+i, y); c != nil {
				c.bg = tint
			}
		}
	case sims.ToneFocus:
		b.text(x, y, focusMark, ink, true)
		right(x+1, y, width, cell.Text, ink, true)
	default:
		right(x+1, y, width, cell.Text, 0, false)
	}
}

// tableWidths are the widths of a table's row labels (and corner) and of
// each column's widest text (its header or a cell).
func tableWidths(c sims.TableChart) (labelW int, colW []int) {
	ncol := len(c.Columns)
	for _, r := range c.Rows {
		ncol = max(ncol, len(r.Cells))
	}
	labelW = ansi.StringWidth(c.Corner)
	for _, r := range c.Rows {
		labelW = max(labelW, ansi.StringWidth(r.Label))
	}
	colW = make([]int, ncol)
	for j := range colW {
		if j < len(c.Columns) {
			colW[j] = ansi.StringWidth(c.Columns[j])
		}
	}
	for _, r := range c.Rows {
		for j, cell := range r.Cells {
			colW[j] = max(colW[j], ansi.StringWidth(cell.Text))
		}
	}
	return labelW, colW
}

// maxTableScale is the most lines a matrix's row takes when its chart
// has room (see tableChart).
const maxTableScale = 3

// tableScale is the most lines a row of c takes: maxTableScale for a
// matrix, one for a table of records, which spread apart only reads worse.
func tableScale(c sims.TableChart) int {
	if c.Matrix {
		return maxTableScale
	}
	return 1
}

// window picks the run [lo, hi) of n items of the given sizes that fits in
// room and holds item keep, starting as early as it can: everything when it
// all fits, else a window scrolled just far enough to show keep.
func window(n, keep int, size func(int) int, room int) (lo, hi int) {
	keep = min(keep, n-1)
	used := 0
	for j := 0; j <= keep; j++ {
		used += size(j)
	}
	for ; lo < keep && used > room; lo++ { // shrink from the left until lo..keep fits
		used -= size(lo)
	}
	hi = keep + 1
	for hi < n && used+size(hi) <= room {
		used += size(hi)
		hi++
	}
	if n == 0 {
		return 0, 0
	}
	return lo, hi
}
