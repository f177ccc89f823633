package chart

import (
	"math"
	"strconv"
	"strings"

	"github.com/guptarohit/asciigraph"
	"github.com/thelab/lab/sims"
)

// logFloor keeps log-scale values finite when a gap reaches zero.
const logFloor = 1e-16

// Bounds and references are drawn dotted, each in its own dot style so
// that several stay apart without colour; the mono charsets tell the other
// series apart.
var (
	boundSets = []asciigraph.CharSet{
		dotSet("┄", "┆", "·"),
		dotSet("╌", "╎", "'"),
		dotSet("·", ":", "·"),
	}
	monoSets = []asciigraph.CharSet{
		asciigraph.DefaultCharSet,
		asciigraph.CreateCharSet("•"),
		asciigraph.CreateCharSet("+"),
		asciigraph.CreateCharSet("x"),
		asciigraph.CreateCharSet("o"),
	}
)

// lineChart draws a title, the curves (asciigraph), an x axis when the
// chart has an x range and there is room, and a legend line.
func lineChart(c sims.LineChart, w, h int, o Options) []string {
	head := newBuffer(w, 1, o.Mono)
	note := ""
	if c.LogY {
		note = "(log scale)"
	}
	if c.YLabel != "" {
		note = strings.TrimSpace(c.YLabel + " " + note)
	}
	titleLine(head, 0, c.Title, note)
	out := head.lines()

	var data [][]float64
	var sets []asciigraph.CharSet
	var colors []asciigraph.AnsiColor
	var legend []legendItem
	bounds := 0
	for i, s := range c.Series {
		y := finite(s.Y, c.LogY)
		if len(y) == 0 {
			continue
		}
		if len(y) == 1 {
			y = append(y, y[0])
		}
		data = append(data, y)
		set := asciigraph.DefaultCharSet
		switch {
		case s.Bound:
			set = boundSets[bounds%len(boundSets)]
			bounds++
		case o.Mono:
			set = monoSets[i%len(monoSets)]
		}
		sets = append(sets, set)
		colors = append(colors, classAnsi[max(s.Class, 0)%len(classAnsi)])
		legend = append(legend, legendItem{glyph: []rune(set.Horizontal)[0], class: s.Class, label: s.Name})
	}
	if len(data) == 0 {
		return append(out, "", centre("no data yet", w))
	}

	withAxis := c.X1 > c.X0 && h >= 9
	plotRows := h - 2 // title and legend
	if withAxis {
		plotRows -= 2
	}
	lo, hi := extent(data)
	format := num
	if c.LogY {
		format = func(v float64) string { return num(math.Pow(10, v)) }
		if hi-lo > 2 { // more than two decades: one scientific format for all
			format = func(v float64) string { return strconv.FormatFloat(math.Pow(10, v), 'e', 1, 64) }
		}
	}
	labelW := 0
	for _, v := range []float64{lo, hi, (lo + hi) / 2} {
		labelW = max(labelW, len(format(v)))
	}
	// asciigraph centres the last x label on the last column: leave room
	// for its right half.
	xfmt := axisFormat(c.X0, c.X1)
	margin := 0
	if withAxis {
		margin = (len(xfmt(c.X1)) + 1) / 2
	}
	width := max(2, w-labelW-3-margin)
	opts := []asciigraph.Option{
		asciigraph.Width(width),
		asciigraph.Offset(2),
		asciigraph.SeriesChars(sets...),
		asciigraph.YAxisValueFormatter(format),
	}
	if !o.Mono {
		opts = append(opts, asciigraph.SeriesColors(colors...), asciigraph.AxisColor(244), asciigraph.LabelColor(244))
	}
	if withAxis {
		opts = append(opts, asciigraph.XAxisRange(c.X0, c.X1), asciigraph.XAxisTickCount(max(2, min(5, width/10))),
			asciigraph.XAxisValueFormatter(xfmt))
	}
	// asciigraph draws Height+0..2 rows depending on rounding: shrink until
	// the plot fits.
	var plot []string
	for height := plotRows - 1; height >= 1; height-- {
		plot = strings.Split(asciigraph.PlotMany(data, append(opts, asciigraph.Height(height))...), "\n")
		if len(plot) <= plotRows+boolInt(withAxis)*2 {
			break
		}
	}
	out = append(out, plot...)
	for len(out) < h-1 {
		out = append(out, "")
	}
	out = append(out[:h-1], legendLine(legend, c.XLabel, w, o))
	return out
}

// axisFormat prints x ticks: whole numbers when the axis spans steps.
func axisFormat(x0, x1 float64) func(float64) string {
	if x1-x0 >= 10 {
		return func(v float64) string { return strconv.FormatFloat(math.Round(v), 'f', 0, 64) }
	}
	return num
}

func dotSet(h, v, corner string) asciigraph.CharSet {
	return asciigraph.CharSet{
		Horizontal: h, VerticalLine: v,
		ArcDownRight: corner, ArcDownLeft: corner, ArcUpRight: corner, ArcUpLeft: corner,
		EndCap: corner, StartCap: corner, UpRight: "└", DownHorizontal: "┬",
	}
}

// finite returns the values to plot: logs (floored) on a log scale, with
// non-finite values dropped.
func finite(y []float64, logY bool) []float64 {
	out := make([]float64, 0, len(y))
	for _, v := range y {
		if logY {
			v = math.Log10(math.Max(v, logFloor))
		}
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

func extent(data [][]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range data {
		for _, v := range s {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo, hi
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func centre(s string, w int) string {
	n := Width(s)
	if n >= w {
		return s
	}
	return strings.Repeat(" ", (w-n)/2) + s
}

// legendItem is one entry of a legend line.
type legendItem struct {
	glyph rune
	class int
	label string
}

// legendLine draws "━ name  ┄ name" in the series' colours, with the x
// label at the right when there is room.
func legendLine(items []legendItem, xlabel string, w int, o Options) string {
	b := newBuffer(w, 1, o.Mono)
	x := 0
	for _, it := range items {
		b.text(x, 0, string(it.glyph)+string(it.glyph), classColor(it.class), true)
		b.text(x+3, 0, it.label, 0, false)
		x += 3 + Width(it.label) + 2
	}
	if xlabel != "" {
		xl := []rune(xlabel + " →")
		if start := w - len(xl); start > x {
			b.text(start, 0, string(xl), axisColor, false)
		}
	}
	return b.lines()[0]
}
