package chart

import (
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/sims"
)

// leftBlocks[i] fills i eighths of a cell from the left.
var leftBlocks = []rune{' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'}

// barChart draws one labelled horizontal bar per row, its value after it;
// when the chart has twice the rows its bars need, they scale up (thicker
// and apart, up to maxBarRows each).
// The full bar is Max or the largest finite value; a value above it
// (+Inf) fills its bar, and a NaN has none.
func barChart(c sims.BarChart, w, h int, o Options) []string {
	b := newBuffer(w, h, o.Mono)
	titleLine(b, 0, c.Title, "")
	full := 0.0
	if isFinite(c.Max) {
		full = c.Max
	}
	labelW, valueW := 0, 0
	for _, bar := range c.Bars {
		if isFinite(bar.Value) {
			full = math.Max(full, bar.Value)
		}
		labelW = max(labelW, Width(bar.Label))
		valueW = max(valueW, len(num(bar.Value)))
	}
	// Labels whole while the bars keep barRoom cells, else cut at a
	// third of the width.
	labelW = min(labelW, max(w/3, w-valueW-2-barRoom))
	if !(full > 0) {
		full = 1
	}
	room := w - labelW - valueW - 2
	rows := h - 1
	// Given room, the bars scale up: each takes per rows, drawn
	// thick on all but the last, which parts it from the next.
	per := 1
	if n := len(c.Bars); n > 0 && rows >= 2*n {
		per = min(maxBarRows, rows/n)
	}
	thick := max(1, per-1)
	if thick == 2 {
		// a bar two rows thick has no middle row for its label and
		// value: its second row read as an unlabelled second bar
		thick = 1
	}
	for i, bar := range c.Bars {
		y := 1 + i*per
		if per == 1 && i == rows-1 && len(c.Bars) > rows {
			b.text(0, y, fmt.Sprintf("… %d more", len(c.Bars)-i), axisColor, false)
			break
		}
		mid := y + (thick-1)/2 // the label's and the value's row
		// Width, not runes: a label may carry combining marks (x̄) or wide runes.
		// Cut after a word ("1 (π…", not "1 (π 0.3…").
		label := Clip(bar.Label, labelW)
		b.text(0, mid, label+strings.Repeat(" ", labelW-Width(label)), 0, false)
		eighths := int(math.Round(clamp01(bar.Value/full) * float64(room*8)))
		x := labelW + 1
		for ; eighths >= 8; eighths -= 8 {
			for r := range thick {
				b.text(x, y+r, "█", classColor(bar.Class), false)
			}
			x++
		}
		if eighths > 0 {
			for r := range thick {
				b.text(x, y+r, string(leftBlocks[eighths]), classColor(bar.Class), false)
			}
			x++
		}
		value := num(bar.Value)
		if sims.AtRounding(bar.Value, full) {
			value = "≈ 0" // (an attention weight of 1e-28 beside 0.95)
		}
		b.text(x+1, mid, value, axisColor, false)
	}
	return b.lines()
}

// barRoom is the fewest cells a bar chart keeps for its bars when its
// labels would take more than a third of its width.
const barRoom = 8

// maxBarRows is the most rows a bar takes when its chart has room: three
// thick and one apart (never two: see barChart).
const maxBarRows = 4
