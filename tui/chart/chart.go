package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// Options set how charts are drawn.
type Options struct {
	// Mono draws without colour: classes by glyph, fields by shade or
	// level lines. It is what NO_COLOR gets.
	Mono bool
	// Basic is for 16-colour terminals, where a shaded field would come out
	// as bands of loud colour hiding what is drawn over it: fields are
	// drawn as in Mono (level lines or shades), everything else in colour.
	Basic bool
	// Palette256 is for 256-colour terminals: colour ramps are drawn in
	// xterm-256 colours chosen to keep their levels apart (see paint),
	// instead of 24-bit colours that the terminal would round together.
	Palette256 bool
	// Primary draws the sim's hero picture (sims.Frame.Primary): its
	// legend keeps its entries' names before anything else on its line.
	Primary bool
}

// MinSize returns the smallest width and height at which a chart of this
// kind is drawn; below it Render says "pane too small". A graph needs room
// for a short label per lattice column and a line per lattice row; its
// list (GraphList) much less.
func MinSize(c sims.Chart) (w, h int) {
	switch c := c.(type) {
	case sims.LineChart:
		return 24, 5
	case sims.CanvasChart:
		if n := namedRows(c); n > 0 {
			// a row per labelled index, the title, the column labels
			// and the bottom line: fewer rows would merge two
			// queries of an attention map into one
			return 12, max(5, n+3)
		}
		return 12, 5
	case sims.HistChart:
		return 16, 5
	case sims.BarChart:
		return 16, 2
	case sims.ImageChart:
		return imageMinSize(c)
	case sims.TableChart:
		return 16, 3
	case sims.GraphChart:
		cols, rows := latticeSize(c)
		return max(16, graphMinCell*cols), max(4, rows+2)
	case GraphList:
		return 16, 4
	case sims.NetworkChart:
		return 16, 4
	}
	return 1, 1
}

// namedRows is the number of rows of a matrix whose rows are named
// (an attention map's queries), when there are few enough to need a
// line each (at most maxNamedRows); else 0.
func namedRows(c sims.CanvasChart) int {
	if c.Heat == nil || !indexLabelled(c.YIndex) {
		return 0
	}
	if n := c.YIndex.Last - c.YIndex.First + 1; n <= maxNamedRows {
		return n
	}
	return 0
}

// maxNamedRows is the most named rows a matrix asks a line each for.
const maxNamedRows = 16

// NaturalHeight is the number of lines a chart needs to show all it holds,
// or 0 when it can use any height (line charts, canvases, histograms,
// graphs).
func NaturalHeight(c sims.Chart) int {
	switch c := c.(type) {
	case sims.BarChart:
		return len(c.Bars) + 1
	case sims.TableChart:
		if c.Columns != nil {
			return len(c.Rows) + 2
		}
		return len(c.Rows) + 1
	}
	return 0
}

// Empty reports whether a chart has nothing to draw yet, where Render says
// "no data yet": a line chart without a value, a canvas whose view is not
// yet a rectangle (but not one off scale). A pane gives the room of an
// empty chart other than its primary to the rest.
func Empty(c sims.Chart) bool {
	switch c := c.(type) {
	case sims.LineChart:
		for _, s := range c.Series {
			if len(s.Y) > 0 {
				return false
			}
		}
		return true
	case sims.CanvasChart:
		dx, dy := c.View.XMax-c.View.XMin, c.View.YMax-c.View.YMin
		return isFinite(dx) && isFinite(dy) && !(dx > 0 && dy > 0)
	}
	return false
}

// loneImage is a chart's one image, if it has exactly one it can draw:
// only then is its size bounded (MaxCols, MaxRows).
func loneImage(c sims.ImageChart) (sims.Image, bool) {
	if len(c.Images) != 1 || !imageOK(c.Images[0]) {
		return sims.Image{}, false
	}
	return c.Images[0], true
}

// MaxCols is the most columns a chart puts to use however wide it is
// drawn, at its largest scale (a table's columns with tableScale's
// gaps, a lone image at its largest number scale or zoom), or 0 when it
// uses any width.
func MaxCols(c sims.Chart) int {
	switch c := c.(type) {
	case sims.ImageChart:
		im, ok := loneImage(c)
		if !ok {
			return 0
		}
		if c.Numbers {
			rl, _ := numberLabels(im)
			return rl + im.W*maxNumberScale*(numberWidth(c)+1) + 1
		}
		return int(math.Ceil(float64(im.W) * maxPixelZoom))
	case sims.TableChart:
		labelW, colW := tableWidths(c)
		wide := labelW
		for _, cw := range colW {
			wide += cw + colGap + 2*(tableScale(c)-1)
		}
		return max(wide, Width(c.Title))
	}
	return 0
}

// Used is the part of a w×h cell that a chart puts to use: pictures the
// room their tiles, captions and colour bar take at the largest zoom that
// fits (a gallery of eight digits used 60×20 of an 84×40 cell), other
// charts at most MaxCols and MaxRows.
func Used(c sims.Chart, w, h int) (uw, uh int) {
	if ic, ok := c.(sims.ImageChart); ok && len(ic.Images) > 0 {
		// Options{}: the layout is the same in every colour profile.
		return imageUsed(ic, w, h, Options{})
	}
	uw, uh = w, h
	if m := MaxCols(c); m > 0 {
		uw = min(w, m)
	}
	if m := MaxRows(c); m > 0 {
		uh = min(h, m)
	}
	return uw, uh
}

// MaxRows is the most lines a chart puts to use however tall it is drawn,
// at its largest scale (bars maxBarRows each, table rows tableScale
// each, a graph's lattice rows graphRowPitch each, a lone image at its
// largest zoom or number scale), or 0 when it uses any height (line
// charts, canvases, histograms, several images, whose rows depend on the
// width).
func MaxRows(c sims.Chart) int {
	switch c := c.(type) {
	case sims.ImageChart:
		im, ok := loneImage(c)
		if !ok {
			return 0
		}
		caption := 0
		if im.Caption != "" {
			caption = 1
		}
		if c.Numbers {
			_, cl := numberLabels(im)
			return 1 + cl + im.H*maxNumberScale + caption
		}
		return 1 + (im.H*maxPixelZoom+1)/2 + caption
	case sims.BarChart:
		return 1 + len(c.Bars)*maxBarRows
	case sims.TableChart:
		head := 1
		if c.Columns != nil {
			head = 2
		}
		return head + len(c.Rows)*tableScale(c)
	case sims.GraphChart:
		_, rows := latticeSize(c)
		legend := 0
		if len(c.Legend) > 0 {
			legend = 1
		}
		return 1 + rows*graphRowPitch + legend
	case GraphList:
		legend := 0
		if len(c.Legend) > 0 {
			legend = 1
		}
		return 1 + len(c.Nodes) + legend
	}
	return 0
}

// Render draws c in exactly h lines of display width w.
func Render(c sims.Chart, w, h int, o Options) string {
	return strings.Join(RenderLines(c, w, h, o), "\n")
}

// RenderLines is Render as a slice of lines.
func RenderLines(c sims.Chart, w, h int, o Options) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	if mw, mh := MinSize(c); w < mw || h < mh {
		return TooSmall(w, h)
	}
	var lines []string
	switch c := c.(type) {
	case sims.LineChart:
		lines = lineChart(c, w, h, o)
	case sims.CanvasChart:
		lines = canvasChart(c, w, h, o)
	case sims.HistChart:
		lines = histChart(c, w, h, o)
	case sims.BarChart:
		lines = barChart(c, w, h, o)
	case sims.ImageChart:
		lines = imageChart(c, w, h, o)
	case sims.TableChart:
		lines = tableChart(c, w, h, o)
	case sims.GraphChart:
		lines = graphChart(c, w, h, o)
	case GraphList:
		lines = graphList(c.GraphChart, w, h, o)
	case sims.NetworkChart:
		lines = networkChart(c, w, h, o)
	default:
		lines = []string{fmt.Sprintf("unknown chart %T", c)}
	}
	return Fit(lines, w, h)
}

// TooSmall is the block drawn when there is no room for a chart.
func TooSmall(w, h int) []string {
	if w <= 0 || h <= 0 {
		return make([]string, max(h, 0))
	}
	msg := "pane too small"
	if w < len(msg) {
		msg = "small"
	}
	lines := make([]string, h)
	for i := range lines {
		lines[i] = strings.Repeat(" ", w)
	}
	if w >= len(msg) {
		pad := (w - len(msg)) / 2
		lines[h/2] = strings.Repeat(" ", pad) + msg + strings.Repeat(" ", w-pad-len(msg))
	}
	return lines
}

// Fit makes exactly h lines of display width exactly w: long lines are cut,
// short ones padded with spaces, missing lines added.
func Fit(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		s := ""
		if i < len(lines) {
			s = lines[i]
		}
		out[i] = FitLine(s, w)
	}
	return out
}

// FitLine cuts or pads one line to display width w.
func FitLine(s string, w int) string {
	sw := Width(s)
	if sw > w {
		s = ansi.Truncate(s, w, "")
		sw = Width(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// titleLine draws a chart's title in bold, clipped to the row, with an
// optional note after it: whole when it fits, else clipped when its first
// word fits, else left out.
func titleLine(b *buffer, y int, title, note string) {
	title = Clip(title, b.w)
	b.text(0, y, title, titleColor, true)
	x := Width(title) + 1
	if note == "" || x >= b.w {
		return
	}
	if n := ClipOrDrop(note, b.w-x); n != "" {
		b.text(x, y, n, axisColor, false)
	}
}

// num formats a number compactly in at most about 8 characters.
func num(x float64) string {
	ax := math.Abs(x)
	switch {
	case x == 0:
		return "0"
	case math.IsNaN(x) || math.IsInf(x, 0):
		return strconv.FormatFloat(x, 'g', -1, 64)
	case ax >= 1e5 || ax < 1e-3:
		return strconv.FormatFloat(x, 'e', 1, 64)
	case x == math.Trunc(x):
		return strconv.FormatFloat(x, 'f', 0, 64) // a count: 20, not 20.0 beside 4 and 126
	case ax >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case ax >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	default:
		s := strconv.FormatFloat(x, 'f', 3, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		return s
	}
}

// clampInt is x truncated to an int in [lo, hi], NaN giving lo. Go leaves
// the conversion of NaN, or of a float beyond an int's range, to the
// platform, so no cell or bin index is taken from a value without it.
func clampInt(x float64, lo, hi int) int {
	switch {
	case !(x > float64(lo)): // NaN too
		return lo
	case x >= float64(hi):
		return hi
	}
	return int(x)
}

// isFinite reports whether x is neither NaN nor infinite.
func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// LegendWhole reports whether c, drawn w×h as the primary chart
// (Options.Primary), names every entry of its legend: its line's, or the
// rows a primary's legend may take (legendRows). A chart without a legend
// has it whole.
func LegendWhole(c sims.Chart, w, h int) bool {
	var widths []int
	keep, rows := 0, 1
	switch c := c.(type) {
	case sims.LineChart:
		widths = lineLegendWidths(c)
		keep = 5
		if c.X1 > c.X0 && onAxis(c.X0, c.X1) && h >= 9 {
			keep += 2
		}
	case sims.CanvasChart:
		_, widths = legendClasses(c.Legend, canvasSwatches(c, false))
		keep = 6
	case sims.HistChart:
		label := c.Label
		if label == "" {
			label = "samples"
		}
		widths = append(widths, 3+Width(label))
		for _, cu := range c.Curves {
			widths = append(widths, 3+Width(cu.Name))
		}
	case sims.GraphChart:
		_, widths = legendClasses(c.Legend, nil)
	case GraphList:
		_, widths = legendClasses(c.Legend, nil)
	}
	if len(widths) == 0 {
		return true
	}
	if keep > 0 {
		rows = max(1, h-keep)
	}
	starts := itemRows(widths, 2, w, rows)
	n, _ := fitItems(widths[starts[len(starts)-1]:], 2, w)
	return starts[len(starts)-1]+n == len(widths)
}

// lineLegendWidths are the widths of a line chart's legend items at most:
// which series a later one hides, "(under L_D)", is known only once
// plotted, so every series but the last drawn is counted with the note
// naming the longest of those drawn after it (bounds are drawn first).
func lineLegendWidths(c sims.LineChart) []int {
	var drawn []sims.Series
	for _, s := range c.Series {
		if len(s.Y) > 0 {
			drawn = append(drawn, s)
		}
	}
	rank := func(s sims.Series) int { // drawing order: bounds, then data
		if s.Bound {
			return 0
		}
		return 1
	}
	widths := make([]int, len(drawn))
	for i, s := range drawn {
		widths[i] = 3 + Width(s.Name)
		longest := 0
		for j, t := range drawn {
			if rank(t) > rank(s) || rank(t) == rank(s) && j > i {
				longest = max(longest, Width(t.Name))
			}
		}
		if longest > 0 {
			widths[i] += len(" (under )") + longest
		}
	}
	return widths
}
