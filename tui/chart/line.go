package chart

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"
	"github.com/thelab/lab/sims"
)

// logFloor keeps log-scale values finite when a gap reaches zero.
const logFloor = 1e-16

// Bounds and references are drawn dotted, each in its own dot style so
// that several stay apart without colour; curves are drawn solid, or in
// monochrome each in the next of curveSets, and a curve of the colour of
// an earlier one in the next free of curveSets (lineStyles).
var (
	boundSets = []asciigraph.CharSet{
		dotSet("┄", "┆", "·"),
		dotSet("╌", "╎", "'"),
		dotSet("·", ":", "·"),
		dotSet("┈", "┊", "·"),
		dotSet("╍", "╏", "'"),
	}
	curveSets = []asciigraph.CharSet{
		asciigraph.DefaultCharSet,
		asciigraph.CreateCharSet("•"),
		asciigraph.CreateCharSet("+"),
		asciigraph.CreateCharSet("x"),
		asciigraph.CreateCharSet("o"),
	}
)

// lineStyle is how a line chart draws one series: its charset (whose
// horizontal stroke is its legend glyph) and its class colour.
type lineStyle struct {
	set   asciigraph.CharSet
	class int
}

// lineStyles chooses every series' charset so that no two series share
// both colour and glyph: a bound takes the next dot style, a curve the
// solid line (in monochrome its class's of curveSets), and one whose choice
// an earlier series of the same colour already has (every series, in
// monochrome) takes the next free one of its kind. The classes' colours
// are distinct in truecolor, 256 and 16 colours alike (classAnsi), so the
// class index stands for the colour.
func lineStyles(series []sims.Series, o Options) []lineStyle {
	type key struct {
		colour int
		glyph  string
	}
	used := map[key]bool{}
	out := make([]lineStyle, len(series))
	bounds := 0
	for i, s := range series {
		colour := max(s.Class, 0) % len(classAnsi)
		if o.Mono {
			colour = -1
		}
		sets, first := curveSets, 0
		switch {
		case s.Bound:
			sets, first = boundSets, bounds
			bounds++
		case o.Mono:
			// by class, so that one series keeps its glyph from chart to
			// chart (dp-sgd's σ = 0.04 was xx in one and ++ in the next,
			// where σ = 0 has no curve)
			first = max(s.Class, 0)
		}
		pick := sets[first%len(sets)]
		for k := range sets {
			set := sets[(first+k)%len(sets)]
			if !used[key{colour, set.Horizontal}] {
				pick = set
				break
			}
		}
		used[key{colour, pick.Horizontal}] = true
		out[i] = lineStyle{set: pick, class: s.Class}
	}
	return out
}

// lineChart draws a title, the curves (asciigraph), an x axis when the
// chart has an x range and there is room, and a legend line. Bounds and
// references are drawn first and the data over them; a series hidden
// under the ones drawn after it over most of its length says so in the
// legend ("(under L_D)"), and is the first left out of a legend too
// long for the chart.
func lineChart(c sims.LineChart, w, h int, o Options) []string {
	var data [][]float64
	var sets []asciigraph.CharSet
	var colors []asciigraph.AnsiColor
	var legend []legendItem
	var off offScale
	var drawn []sims.Series // the series with values, in the chart's order
	for _, s := range c.Series {
		if len(s.Y) > 0 {
			drawn = append(drawn, s)
		}
	}
	styles := lineStyles(drawn, o)
	// order[k] is the index in drawn of the k-th series plotted: bounds
	// first.
	var order []int
	for _, bound := range []bool{true, false} {
		for i, s := range drawn {
			if s.Bound == bound {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		data = append(data, plotValues(drawn[i].Y, c.LogY, &off))
		sets = append(sets, styles[i].set)
		colors = append(colors, classAnsi[max(drawn[i].Class, 0)%len(classAnsi)])
	}
	for i, s := range drawn {
		legend = append(legend, legendItem{glyph: []rune(styles[i].set.Horizontal)[0], class: s.Class, label: s.Name})
	}
	var notes []string
	if c.YLabel != "" {
		notes = append(notes, c.YLabel)
	}
	if c.LogY {
		notes = append(notes, "(log scale)")
	}
	if n := off.note(); n != "" {
		notes = append(notes, n)
	}
	head := newBuffer(w, 1, o.Mono)
	titleLine(head, 0, c.Title, strings.Join(notes, " "))
	out := head.lines()
	if len(data) == 0 {
		return append(out, "", centre("no data yet", w))
	}
	limit := axisLimit
	if c.LogY {
		limit = math.Log10(axisLimit)
	}
	lo, hi, ok := extent(data, limit)
	if !ok {
		return append(out, "", centre("no finite values", w))
	}

	withAxis := c.X1 > c.X0 && onAxis(c.X0, c.X1) && h >= 9
	// The primary's legend takes the rows it needs to name every series,
	// leaving the plot at least 4 (legendRows): counted first without the
	// notes of hidden series, "(under L_D)", which are only known once
	// plotted, then again with them, plotting anew if they need more.
	keep := 5
	if withAxis {
		keep += 2
	}
	names := make([]string, len(legend))
	for i, it := range legend {
		names[i] = it.label
	}
	labelWidths := func(items []legendItem) []int {
		out := make([]int, len(items))
		for i, it := range items {
			out[i] = 3 + Width(it.label)
		}
		return out
	}
	nLegend := legendRows(labelWidths(legend), w, h, keep, o)
	var plot []string
	var width int
	var hidden []bool
	var shown []legendItem // the legend in the order it is drawn
	for {
		for i := range legend {
			legend[i].label = names[i]
		}
		plotRows := h - 1 - nLegend // title and legend
		if withAxis {
			plotRows -= 2
		}
		ylo, yhi := lo, hi
		if c.Fraction && !c.LogY && lo >= 0 && hi <= 1 && narrow(lo, hi, minSpan) {
			ylo, yhi = 0, 1 // a constant rate: the whole range, not 1 ± 1
		}
		ax := yAxis(data, ylo, yhi, plotRows-1, c.LogY, c.Fraction && hi <= 1)
		// Off-scale values go to the edge; a NaN stays, a gap. What asciigraph
		// gets is then safe: values within an axis no wider than about
		// ±axisLimit and at least a billionth of its size across, so that its
		// rows, value · rows / span, are finite and at most a billion times
		// the rows.
		for _, y := range data {
			for k, v := range y {
				if math.IsInf(v, 0) {
					y[k] = math.Max(ax.lo, math.Min(ax.hi, v))
				}
			}
		}
		labelW := 0
		for i := 0; i <= ax.rows; i++ {
			labelW = max(labelW, len([]rune(ax.format(ax.hi-float64(i)*(ax.hi-ax.lo)/float64(ax.rows)))))
		}
		// An x label centred on the last column reaches past it.
		margin := 0
		if withAxis {
			margin = 2
		}
		width = max(2, w-labelW-3-margin)
		opts := []asciigraph.Option{
			asciigraph.Width(width),
			asciigraph.Offset(2),
			asciigraph.SeriesChars(sets...),
			asciigraph.YAxisValueFormatter(ax.format),
			asciigraph.LowerBound(ax.lo), asciigraph.UpperBound(ax.hi),
		}
		if !o.Mono {
			opts = append(opts, asciigraph.SeriesColors(colors...), asciigraph.AxisColor(244), asciigraph.LabelColor(244))
		}
		// asciigraph may draw a row more than Height when the bounds round
		// badly: shrink until the plot fits (a label stays on its value, as
		// the formatter labels only whole multiples of the step).
		for height := ax.rows; height >= 1; height-- {
			plot = strings.Split(asciigraph.PlotMany(data, append(opts, asciigraph.Height(height))...), "\n")
			if len(plot) <= plotRows {
				opts = append(opts, asciigraph.Height(height))
				break
			}
		}
		hidden = make([]bool, len(legend))
		for k, under := range hiddenUnder(data, opts, len(plot)) {
			if under >= 0 {
				i, j := order[k], order[under]
				legend[i].label += " (under " + drawn[j].Name + ")"
				hidden[i] = true
			}
		}
		// When the legend does not fit a line, the lines one sees keep
		// their names first: the hidden ones go last, the first to be
		// counted in +N.
		shown = legend
		if n, _ := fitItems(labelWidths(legend), 2, w); n < len(legend) {
			shown = nil
			for _, under := range []bool{false, true} {
				for i, it := range legend {
					if hidden[i] == under {
						shown = append(shown, it)
					}
				}
			}
		}
		if need := legendRows(labelWidths(shown), w, h, keep, o); need > nLegend {
			nLegend = need
			continue
		}
		break
	}
	legend = shown
	if withAxis {
		plot = append(plot, xAxis(plot[0], c.X0, c.X1, wholeX(c), width, w, o)...)
	}
	out = append(out, plot...)
	for len(out) < h-nLegend {
		out = append(out, "")
	}
	out = append(out[:h-nLegend], legendLines(legend, c.XLabel, w, nLegend, o)...)
	return out
}

// hiddenFrac is the share of a series' cells that the series drawn after
// it cover for it to count as hidden under them.
const hiddenFrac = 0.5

// hiddenUnder reports, for each series of data in drawing order, the
// series drawn after it that covers the most of its cells when that and
// the others drawn after it cover at least hiddenFrac of them, else -1.
// Each series is plotted alone with the options of the chart (its bounds
// and height fixed, so that its cells are those it has in the chart),
// the first rows lines taken.
func hiddenUnder(data [][]float64, opts []asciigraph.Option, rows int) []int {
	out := make([]int, len(data))
	if len(data) < 2 {
		out[0] = -1
		return out
	}
	cells := make([]map[[2]int]bool, len(data))
	for k, y := range data {
		lines := strings.Split(asciigraph.PlotMany([][]float64{y}, opts...), "\n")
		cells[k] = map[[2]int]bool{}
		for r, line := range lines[:min(len(lines), rows)] {
			runes := []rune(ansi.Strip(line))
			axis := slices.IndexFunc(runes, func(r rune) bool { return r == '┤' || r == '┼' })
			for x := axis + 1; axis >= 0 && x < len(runes); x++ {
				if runes[x] != ' ' {
					cells[k][[2]int{r, x}] = true
				}
			}
		}
	}
	for k := range data {
		out[k] = -1
		covered, most, best := 0, 0, -1
		for cell := range cells[k] {
			hit := false
			for j := k + 1; j < len(data); j++ {
				hit = hit || cells[j][cell]
			}
			if hit {
				covered++
			}
		}
		for j := k + 1; j < len(data); j++ {
			n := 0
			for cell := range cells[k] {
				if cells[j][cell] {
					n++
				}
			}
			if n > most {
				most, best = n, j
			}
		}
		if len(cells[k]) > 0 && float64(covered) >= hiddenFrac*float64(len(cells[k])) {
			out[k] = best
		}
	}
	return out
}

// offScale counts the values a chart draws at the edge of its scale
// rather than where they are: ±Inf, and finite values beyond ±axisLimit.
type offScale int

// note is what a title says of them: "(3 off scale)", or "".
func (n offScale) note() string {
	if n == 0 {
		return ""
	}
	return "(" + strconv.Itoa(int(n)) + " off scale)"
}

// plotValues returns the values a series is drawn at: log10 on a log
// scale (values at or below zero floored at logFloor); NaN, a value not
// there, stays NaN (a gap); ±Inf and values beyond ±axisLimit become ±Inf,
// counted in off, which the axis leaves out and the plot pins to its top
// or bottom row. A single point is drawn as a level line.
func plotValues(y []float64, logY bool, off *offScale) []float64 {
	out := make([]float64, len(y), max(len(y), 2))
	for i, v := range y {
		if logY {
			v = math.Log10(math.Max(v, logFloor))
		}
		if math.Abs(v) > axisLimit {
			v = math.Inf(int(math.Copysign(1, v)))
			*off++
		}
		out[i] = v
	}
	if len(out) == 1 {
		out = append(out, out[0])
	}
	return out
}

// yScale is a line chart's y axis: the range drawn, the number of row
// intervals (asciigraph's Height) and how a row's value is labelled ("" for
// a row without a label). step > 0 is the round step whose multiples are
// labelled.
type yScale struct {
	lo, hi float64
	rows   int
	step   float64
	format func(float64) string
}

// yAxis chooses the y axis of data whose finite values span [lo, hi]
// (within ±axisLimit) in rows intervals. Its rules: labels are round
// numbers to the precision the axis needs (niceAxis), so rounding noise
// never becomes a tick; integer data (steps, mistakes, counts; not a
// fraction's, whose 1 is a rate) get integer ticks only; a constant
// series, or one too narrow to tell apart (narrow), gets a range around
// its value instead of a one-row chart; a log scale is labelled at whole decades when it spans one or more, else
// at round values on their nearest rows (logRoundTicks).
func yAxis(data [][]float64, lo, hi float64, rows int, logY, fraction bool) yScale {
	rows = max(rows, 1)
	integer := !logY && !fraction
	top := math.Inf(1) // a fraction's axis stops at 1
	if fraction {
		top = 1
	}
	for _, s := range data {
		for _, v := range s {
			if isFinite(v) {
				integer = integer && v == math.Trunc(v) && math.Abs(v) < 1e15
			}
		}
	}
	floor := minSpan
	if logY {
		floor = 1e-9 // decades: rows closer than that would print alike
	}
	if narrow(lo, hi, floor) { // a constant: room around it
		mid := lo + (hi-lo)/2
		d := math.Max(math.Abs(mid)*0.1, 1e-9)
		switch {
		case (integer || mid == 0) && math.Abs(mid) < 1e8:
			d = 1
		case logY:
			d = 0.5
		}
		lo, hi = mid-d, mid+d
		if integer && lo < 0 && mid >= 0 {
			lo = 0
		}
	}
	switch {
	case logY && hi-lo >= 1:
		ax := niceAxis(lo, hi, rows, 1, true, math.Inf(1))
		first, last := math.Ceil(ax.lo/ax.step-1e-9)*ax.step, math.Floor(ax.hi/ax.step+1e-9)*ax.step
		plain := first >= -3 && last <= 4
		ax.format = func(v float64) string {
			if k, ok := onStep(v, ax.step); ok {
				return decade(k, plain)
			}
			return ""
		}
		return ax
	case logY:
		if ax, ok := logRoundTicks(lo, hi, rows); ok {
			return ax
		}
		// No round values on rows of their own: every row labelled, to
		// the decimals that tell the two closest rows (the bottom ones)
		// apart.
		r := math.Pow(10, (hi-lo)/float64(rows))
		format := func(v float64) string {
			return significant(math.Pow(10, v), max(2, int(math.Ceil(-math.Log10(r-1)))+1))
		}
		if x0, x1 := math.Pow(10, lo), math.Pow(10, hi); x0 >= 1e-3 && x1 < 1e5 {
			decimals := max(0, int(math.Ceil(-math.Log10(x0*(r-1))-1e-9)))
			format = func(v float64) string { return strconv.FormatFloat(math.Pow(10, v), 'f', decimals, 64) }
		}
		return yScale{lo: lo, hi: hi, rows: rows, format: format}
	case integer:
		return niceAxis(lo, hi, rows, 1, false, top)
	}
	return niceAxis(lo, hi, rows, 0, false, top)
}

// logRoundTicks labels a log axis of less than a decade, log₁₀ values lo
// to hi over rows intervals, at round values as a linear axis is (k·s for
// s = 1, 2 or 5 × 10^j: 0.85, 0.9, 0.95, 1, not 1.00, 0.93, 0.87), each on
// the row nearest its logarithm (off by at most half a row's ratio, the
// resolution of the plot itself). The step is the finest that leaves at
// least a row between labels and at most rows/2 + 1 of them; near a
// decade, where none fits, 1, 2 and 5 × 10^j; false when neither gives two.
func logRoundTicks(lo, hi float64, rows int) (yScale, bool) {
	x0, x1 := math.Pow(10, lo), math.Pow(10, hi)
	row := func(x float64) int { return int(math.Round((math.Log10(x) - lo) / (hi - lo) * float64(rows))) }
	most := max(2, rows/2+1)
	s := stepAtLeast((x1 - x0) / float64(most))
	for range maxSteps {
		format := tickFormat(s, x1)
		labels := map[int]string{}
		last := -2
		ok := true
		for k := math.Ceil(x0/s - 1e-9); k*s <= x1*(1+1e-12) && ok; k++ {
			r := row(k * s)
			ok = len(labels) < most && r > last+1
			labels[r], last = format(k*s), r
		}
		if ok && len(labels) >= 2 {
			return labelledRows(lo, hi, rows, labels), true
		}
		if s > x1-x0 {
			break
		}
		s = nextStep(s)
	}
	// Near a decade, no step fits its top and bottom alike: 1, 2 and 5
	// × 10^j, as a log axis over decades would add.
	labels := map[int]string{}
	for j := math.Floor(lo); j <= math.Ceil(hi); j++ {
		for _, m := range []float64{1, 2, 5} {
			if x := m * math.Pow(10, j); x >= x0*(1-1e-12) && x <= x1*(1+1e-12) {
				labels[row(x)] = significant(x, 1)
			}
		}
	}
	if len(labels) >= 2 {
		return labelledRows(lo, hi, rows, labels), true
	}
	// A short axis (kl-flow's 2.2…5.7 in four rows): the round values of
	// the finest step that puts two on rows of their own, the one nearer
	// the bottom kept where two would share a row.
	for s := stepAtLeast((x1 - x0) / float64(rows)); s <= x1-x0; s = nextStep(s) {
		format := tickFormat(s, x1)
		labels := map[int]string{}
		for k := math.Ceil(x0/s - 1e-9); k*s <= x1*(1+1e-12) && len(labels) < most; k++ {
			if r := row(k * s); labels[r] == "" {
				labels[r] = format(k * s)
			}
		}
		if len(labels) >= 2 {
			return labelledRows(lo, hi, rows, labels), true
		}
	}
	return yScale{}, false
}

// labelledRows is the scale of rows intervals over lo…hi whose row j from
// the bottom is labelled labels[j] (no label when there is none).
func labelledRows(lo, hi float64, rows int, labels map[int]string) yScale {
	at := func(v float64) int { return int(math.Round((v - lo) / (hi - lo) * float64(rows))) }
	return yScale{lo: lo, hi: hi, rows: rows, format: func(v float64) string { return labels[at(v)] }}
}

// decade prints 10^k: plainly (0.001 to 10000) on an axis that stays in
// that range, else as 1e-05.
func decade(k float64, plain bool) string {
	if plain {
		return strconv.FormatFloat(math.Pow(10, k), 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Pow(10, k), 'e', 0, 64)
}

// significant prints x rounded to sig significant digits, without
// trailing zeros; in scientific form from 1e5 and below 1e-3.
func significant(x float64, sig int) string {
	if ax := math.Abs(x); ax != 0 && (ax >= 1e5 || ax < 1e-3) {
		return strconv.FormatFloat(x, 'e', sig-1, 64)
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'e', sig-1, 64), 64)
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// xAxis draws the x axis under a plot whose first line is first: the
// line └┬──┬ from the y axis's column and the labels of round ticks
// (axisTicks) over x0..x1, the series' width points, in a chart w wide. An
// axis of whole numbers (whole ends at least 2 apart, or whole says the
// points sit on whole numbers: steps) gets whole ticks.
func xAxis(first string, x0, x1 float64, whole bool, width, w int, o Options) []string {
	line := []rune(ansi.Strip(first))
	x := 0 // the column of the y axis
	for i, r := range line {
		if r == '┤' || r == '┼' {
			x = i
			break
		}
	}
	minStep := 0.0
	if whole || integerSpan(x0, x1) {
		minStep = 1
	}
	col := func(v float64) int { return clampInt(math.Round((v-x0)/(x1-x0)*float64(width-1)), 0, width-1) }
	ticks := axisTicks(x0, x1, width, col, -x-1, w-x-1, minStep)
	rule := []rune("└" + strings.Repeat("─", width))
	for _, t := range ticks {
		rule[1+t.col] = '┬'
	}
	b := newBuffer(w, 2, o.Mono)
	b.text(x, 0, string(rule), axisColor, false)
	b.text(0, 1, tickRow(ticks, -x-1, w-x-1), axisColor, false)
	return b.lines()
}

// wholeX reports whether every point of c's series sits on a whole x:
// whole ends and a whole spacing (X1 − X0)/(L − 1) ≥ 1 between the L
// points of the longest series (a chart of steps 1 and 2, say).
func wholeX(c sims.LineChart) bool {
	longest := 0
	for _, s := range c.Series {
		longest = max(longest, len(s.Y))
	}
	if longest < 2 || c.X0 != math.Trunc(c.X0) || c.X1 != math.Trunc(c.X1) {
		return false
	}
	gap := (c.X1 - c.X0) / float64(longest-1)
	return gap >= 1 && math.Abs(gap-math.Round(gap)) < 1e-9
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

// extent is the range of the finite values of data; ok is false when
// there is none. When every value is off scale, the range is theirs at
// ±limit (the axis's limit, in decades on a log scale), so that an axis
// shows where they went.
func extent(data [][]float64, limit float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	var offLo, offHi bool
	for _, s := range data {
		for _, v := range s {
			switch {
			case math.IsInf(v, -1):
				offLo = true
			case math.IsInf(v, 1):
				offHi = true
			case !math.IsNaN(v):
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo <= hi {
		return lo, hi, true
	}
	switch {
	case offLo && offHi:
		return -limit, limit, true
	case offLo:
		return -limit, -limit, true
	case offHi:
		return limit, limit, true
	}
	return 0, 0, false
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

// legendLines draws a legend over at most rows lines: each but the last
// with as many whole items as fit (itemRows), the last with the rest as
// legendLine draws them.
func legendLines(items []legendItem, xlabel string, w, rows int, o Options) []string {
	widths := make([]int, len(items))
	for i, it := range items {
		widths[i] = 3 + Width(it.label)
	}
	starts := itemRows(widths, 2, w, rows)
	out := make([]string, 0, rows)
	for r, from := range starts {
		if r+1 < len(starts) {
			out = append(out, legendLine(items[from:starts[r+1]], "", w, o))
		} else {
			out = append(out, legendLine(items[from:], xlabel, w, o))
		}
	}
	for len(out) < rows { // fewer lines than allowed for: blank rows above
		out = append([]string{strings.Repeat(" ", w)}, out...)
	}
	return out
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
