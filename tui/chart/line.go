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
	ax := yAxis(data, lo, hi, plotRows-1, c.LogY)
	lo, hi = ax.lo, ax.hi
	format := ax.format
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
		opts = append(opts, asciigraph.XAxisRange(c.X0, c.X1), asciigraph.XAxisTickCount(xTicks(c.X0, c.X1, max(2, min(5, width/10)))),
			asciigraph.XAxisValueFormatter(xfmt))
	}
	// asciigraph draws Height+0..2 rows depending on rounding: shrink until
	// the plot fits.
	opts = append(opts, asciigraph.LowerBound(lo), asciigraph.UpperBound(hi))
	var plot []string
	for height := ax.rows; height >= 1; height-- {
		if ax.step > 0 && height < ax.rows {
			// Integer ticks: fewer rows must still hold whole steps.
			if height = ax.rowsFor(height); height < 1 {
				break
			}
		}
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

// yScale is a line chart's y axis: the range drawn, the number of row
// intervals (asciigraph's Height) and how a tick is printed.
type yScale struct {
	lo, hi float64
	rows   int
	// step > 0 marks integer data: ticks are printed only on whole
	// multiples, and rows is a multiple of (hi−lo)/step.
	step   float64
	format func(float64) string
}

// yAxis chooses the y axis of data spanning [lo, hi] in at most rows
// intervals. Its rules: rounding noise never becomes a tick (a value
// within a millionth of the span of zero prints as 0); integer data
// (steps, mistakes, counts) get integer ticks only; a constant series
// gets a range around its value instead of a one-row chart.
func yAxis(data [][]float64, lo, hi float64, rows int, logY bool) yScale {
	rows = max(rows, 1)
	integer := !logY
	for _, s := range data {
		for _, v := range s {
			integer = integer && v == math.Trunc(v) && math.Abs(v) < 1e15
		}
	}
	if hi == lo { // a constant: room around it
		d := math.Max(math.Abs(lo)*0.1, 1e-9)
		switch {
		case integer || lo == 0:
			d = 1
		case logY:
			d = 0.5
		}
		lo, hi = lo-d, hi+d
		if integer && lo < 0 && hi-d >= 0 {
			lo = 0
		}
	}
	if integer {
		return intAxis(lo, hi, rows)
	}
	span := hi - lo
	// Enough significant digits that neighbouring ticks differ: a run that
	// converged spans 1e-6 of its value, which num's four digits would
	// print as one number on every row.
	digits := 0
	if mag := math.Max(math.Abs(lo), math.Abs(hi)); span > 0 && mag > 0 {
		digits = int(math.Ceil(math.Log10(mag*float64(rows)/span))) + 1
	}
	format := func(v float64) string {
		if math.Abs(v) < span*1e-6 {
			v = 0
		}
		if digits > 4 && v != 0 {
			return strconv.FormatFloat(v, 'g', min(digits, 10), 64)
		}
		return num(v)
	}
	if logY {
		format = func(v float64) string { return num(math.Pow(10, v)) }
		if span > 2 { // more than two decades: one scientific format for all
			format = func(v float64) string { return strconv.FormatFloat(math.Pow(10, v), 'e', 1, 64) }
		}
	}
	return yScale{lo: lo, hi: hi, rows: rows, format: format}
}

// intAxis is the axis of integer data in [lo, hi]: the range widened to
// whole steps of 1, 2 or 5 × 10^k, with rows a multiple of the steps so
// that every labelled row is a whole number.
func intAxis(lo, hi float64, rows int) yScale {
	step := 1.0
	for k := 0; ; k++ {
		step = []float64{1, 2, 5}[k%3] * math.Pow(10, float64(k/3))
		if math.Ceil(hi/step)-math.Floor(lo/step) <= float64(rows) {
			break
		}
	}
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	a := yScale{lo: lo, hi: hi, step: step}
	a.rows = a.rowsFor(rows)
	a.format = func(v float64) string {
		if r := math.Round(v / step); math.Abs(v/step-r) < 1e-6 {
			if math.Abs(r*step) >= 1e5 {
				return num(r * step)
			}
			return strconv.FormatFloat(r*step, 'f', 0, 64)
		}
		return ""
	}
	return a
}

// rowsFor is the largest number of row intervals at most n that is a
// multiple of the axis's steps (0 when n holds none).
func (a yScale) rowsFor(n int) int {
	steps := int(math.Round((a.hi - a.lo) / a.step))
	if steps <= 0 {
		return n
	}
	return n / steps * steps
}

// axisFormat prints x ticks: whole numbers when the axis spans steps
// (whole numbers at both ends, at least 2 apart) or at least 10.
func axisFormat(x0, x1 float64) func(float64) string {
	if x1-x0 >= 10 || integerSpan(x0, x1) {
		return func(v float64) string { return strconv.FormatFloat(math.Round(v), 'f', 0, 64) }
	}
	return num
}

// xTicks is the number of x ticks, at most n: on an axis of whole numbers
// shorter than 10, one that puts every tick on a whole number.
func xTicks(x0, x1 float64, n int) int {
	if !integerSpan(x0, x1) || x1-x0 >= 10 {
		return n
	}
	span := int(x1 - x0)
	for d := min(n-1, span); d > 1; d-- {
		if span%d == 0 {
			return d + 1
		}
	}
	return 2
}

func integerSpan(x0, x1 float64) bool {
	return x0 == math.Trunc(x0) && x1 == math.Trunc(x1) && x1-x0 >= 2
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

// legendLine draws "━ name  ┄ name" in the series' colours, dropping whole
// items from the end with "+N" when they do not fit, and the x label at the
// right when there is room.
func legendLine(items []legendItem, xlabel string, w int, o Options) string {
	b := newBuffer(w, 1, o.Mono)
	widths := make([]int, len(items))
	for i, it := range items {
		widths[i] = 3 + Width(it.label)
	}
	n, more := fitItems(widths, 2, w)
	x := 0
	for _, it := range items[:n] {
		b.text(x, 0, string(it.glyph)+string(it.glyph), classColor(it.class), true)
		b.text(x+3, 0, it.label, 0, false)
		x += 3 + Width(it.label) + 2
	}
	if n == 0 && len(items) > 0 {
		// Not one whole item fits: the first, clipped, and the count.
		tail := ""
		if len(items) > 1 {
			tail = " " + moreMarker(len(items)-1)
		}
		label := Clip(items[0].label, w-3-Width(tail))
		b.text(0, 0, string(items[0].glyph)+string(items[0].glyph), classColor(items[0].class), true)
		b.text(3, 0, label+tail, 0, false)
		return b.lines()[0]
	}
	if more != "" {
		b.text(x, 0, more, axisColor, false)
		x += len(more) + 2
	}
	if xlabel != "" {
		xl := xlabel + " →"
		if start := w - Width(xl); start >= x {
			b.text(start, 0, xl, axisColor, false)
		}
	}
	return b.lines()[0]
}
