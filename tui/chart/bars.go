package chart

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"math"
	"strings"

	"github.com/thelab/lab/sims"
)

// leftBlocks[i] fills i eighths of a cell from the left.
var leftBlocks = []rune{' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'}

// barChart draws one labelled horizontal bar per row, its value after it.
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
	labelW = min(labelW, w/3)
	if !(full > 0) {
		full = 1
	}
	room := w - labelW - valueW - 2
	rows := h - 1
	for i, bar := range c.Bars {
		y := 1 + i
		if i == rows-1 && len(c.Bars) > rows {
			b.text(0, y, fmt.Sprintf("… %d more", len(c.Bars)-i), axisColor, false)
			break
		}
		// Width, not runes: a label may carry combining marks (x̄) or wide runes.
		label := ansi.Truncate(bar.Label, labelW, Ellipsis)
		b.text(0, y, label+strings.Repeat(" ", labelW-Width(label)), 0, false)
		eighths := int(math.Round(clamp01(bar.Value/full) * float64(room*8)))
		x := labelW + 1
		for ; eighths >= 8; eighths -= 8 {
			b.text(x, y, "█", classColor(bar.Class), false)
			x++
		}
		if eighths > 0 {
			b.text(x, y, string(leftBlocks[eighths]), classColor(bar.Class), false)
			x++
		}
		b.text(x+1, y, num(bar.Value), axisColor, false)
	}
	return b.lines()
}
