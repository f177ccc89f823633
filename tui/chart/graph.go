package chart

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// Box frames: plain, and doubled for the focused node.
var (
	plainFrame = [6]rune{'┌', '┐', '└', '┘', '─', '│'}
	focusFrame = [6]rune{'╔', '╗', '╚', '╝', '═', '║'}
)

// graphMinCell is the narrowest lattice column drawn: a box "[x1 ]" and a
// gap for the edges.
const graphMinCell = 7

// graphRowPitch is the most lines a lattice row puts to use: a box and
// room for the edges to turn.
const graphRowPitch = 6

// latticeSize is the number of lattice columns and rows a graph uses.
func latticeSize(c sims.GraphChart) (cols, rows int) {
	cols, rows = 1, 1
	for _, n := range c.Nodes {
		cols, rows = max(cols, n.Col+1), max(rows, n.Row+1)
	}
	return cols, rows
}

// graphLayout is where a graph's lattice lands in a chart: cell sizes,
// the box size and style.
type graphLayout struct {
	cw, rh int // lattice column width and row height, in cells
	bw, bh int // box width and height
	top    int // the first row of the drawing area
	boxed  bool
}

// box returns the top-left cell of node n's box.
func (l graphLayout) box(n sims.GraphNode) (x, y int) {
	return n.Col*l.cw + (l.cw-l.bw)/2, l.top + n.Row*l.rh + (l.rh-l.bh)/2
}

// graphChart draws a title, the edges as braille lines between the facing
// sides of the boxes (see route), the boxes over them, and the legend. A box is three
// lines (label in its top edge, detail inside) when the lattice rows have
// room, else one line "label detail", cut to the lattice column.
func graphChart(c sims.GraphChart, w, h int, o Options) []string {
	b, area := graphBuffer(c, w, h, o)
	if len(c.Nodes) == 0 || area < 1 {
		return b.lines()
	}
	cols, rows := latticeSize(c)
	textW := 0
	for _, n := range c.Nodes {
		textW = max(textW, ansi.StringWidth(n.Label), ansi.StringWidth(n.Detail))
	}
	// Rows beyond graphRowPitch a lattice row are left below the graph.
	l := graphLayout{cw: w / cols, rh: min(area/rows, graphRowPitch), top: 1}
	if l.cw < 1 || l.rh < 1 {
		b.text(0, 1, "graph too large to draw here", axisColor, false)
		return b.lines()
	}
	l.boxed = l.rh >= 3 && l.cw >= 5
	gap := max(2, l.cw/4) // room between boxes for the edges
	if l.cw < 6 {
		gap = 1
	}
	if l.boxed {
		// A box holds its whole text when a one-cell gap leaves it room:
		// a value cut to "0.6931…" says less than a narrower edge.
		l.bw, l.bh = min(textW+2, max(l.cw-gap, l.cw-1)), 3
		if l.bw < textW+2 {
			l.bw = min(textW+2, l.cw-gap)
		}
	} else {
		inline := 0
		for _, n := range c.Nodes {
			inline = max(inline, ansi.StringWidth(inlineText(n, math.MaxInt))+2)
		}
		// Inline, too, a node keeps its text over a wider edge: a
		// one-cell gap still shows the edge ("[s4 1|-…]" said nothing).
		l.bw, l.bh = max(1, min(inline, l.cw-1)), 1
	}

	// Edges first, on a braille canvas the size of the drawing area.
	cv := newCanvas(w, area, sims.Rect{XMin: 0, XMax: float64(w), YMin: 0, YMax: float64(area)}, o.Mono)
	for _, e := range c.Edges {
		if e.From < 0 || e.To < 0 || e.From >= len(c.Nodes) || e.To >= len(c.Nodes) || e.From == e.To {
			continue
		}
		pts := l.route(c.Nodes[e.From], c.Nodes[e.To])
		ink := axisColor
		switch e.Tone {
		case sims.ToneInk, sims.ToneFocus, sims.ToneFill:
			ink = classColor(e.Class)
		case sims.ToneDim:
			ink = blend(axisColor, heatShadow, 0.5)
		}
		count := 0
		for i := 2; i+1 < len(pts); i += 2 {
			cv.segment(pts[i-2], pts[i-1], pts[i], pts[i+1], ink, func(int) bool { return true }, &count)
		}
	}
	cv.draw(b, 0, l.top)

	for _, n := range c.Nodes {
		drawNode(b, l, n, o)
	}
	classLegend(b, h-1, 1, w, c.Legend, nil, o)
	return b.lines()
}

// GraphList is a graph drawn as a list of its nodes (graphList): what a
// pane shows in place of a graph whose lattice has no room there
// (Compact).
type GraphList struct{ sims.GraphChart }

// Compact is the form of c that needs less room, if it has one: a graph's
// list.
func Compact(c sims.Chart) (sims.Chart, bool) {
	if g, ok := c.(sims.GraphChart); ok {
		return GraphList{g}, true
	}
	return c, false
}

// graphList draws a graph whose lattice has no room here as a list: a
// line per node in the lattice's order (column by column, as the
// computation runs), its one-line box as the lattice would draw it, and
// the names of the nodes its edges come from. The lines that fit are those
// around the focused node.
func graphList(c sims.GraphChart, w, h int, o Options) []string {
	b, area := graphBuffer(c, w, h, o)
	order := make([]int, len(c.Nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := c.Nodes[i], c.Nodes[j]
		return cmp.Or(cmp.Compare(a.Col, b.Col), cmp.Compare(a.Row, b.Row))
	})
	name := func(n sims.GraphNode) string { first, _, _ := strings.Cut(n.Label, " "); return first }
	inputs := make([][]string, len(c.Nodes))
	for _, e := range c.Edges {
		if e.From >= 0 && e.To >= 0 && e.From < len(c.Nodes) && e.To < len(c.Nodes) && e.From != e.To {
			inputs[e.To] = append(inputs[e.To], name(c.Nodes[e.From]))
		}
	}
	bw := 0
	for _, n := range c.Nodes {
		bw = max(bw, ansi.StringWidth(inlineText(n, math.MaxInt))+2)
	}
	bw = max(3, min(bw, w*2/3))
	l := graphLayout{cw: bw, rh: 1, top: 1, bw: bw, bh: 1}
	from, shown := 0, min(area, len(order))
	if shown < len(order) {
		shown = max(0, area-1) // the last line counts the nodes left out
		if f := slices.IndexFunc(order, func(i int) bool { return c.Nodes[i].Tone == sims.ToneFocus }); f >= shown {
			from = min(f-shown/2, len(order)-shown)
		}
	}
	for i, k := range order[from : from+shown] {
		n := c.Nodes[k]
		n.Col, n.Row = 0, i
		drawNode(b, l, n, o)
		if in := inputs[k]; len(in) > 0 && w > bw+3 {
			b.text(bw+1, 1+i, ansi.Truncate("← "+strings.Join(in, ", "), w-bw-1, "…"), axisColor, false)
		}
	}
	if left := len(order) - shown; left > 0 && shown < area {
		b.text(0, 1+shown, ansi.Truncate(fmt.Sprintf("%d more nodes (a wider pane draws the graph)", left), w, "…"), axisColor, false)
	}
	classLegend(b, h-1, 1, w, c.Legend, nil, o)
	return b.lines()
}

// graphBuffer is a graph's w×h buffer with its title drawn, and the rows
// left between the title and the legend.
func graphBuffer(c sims.GraphChart, w, h int, o Options) (*buffer, int) {
	b := newBuffer(w, h, o.Mono)
	titleLine(b, 0, c.Title, "")
	area := h - 1
	if len(c.Legend) > 0 {
		area--
	}
	return b, area
}

// route is the braille-pixel polyline of an edge from a to b. Between
// columns it leaves the side of a that faces b, runs level through the
// columns in between (a lattice row that the layout keeps free for it) and
// turns across the last gap into the facing side of b; within a column it
// joins bottom to top.
func (l graphLayout) route(a, b sims.GraphNode) []float64 {
	ax, ay := l.box(a)
	bx, by := l.box(b)
	ay, by = ay-l.top, by-l.top // canvas rows
	midY := func(y int) float64 { return float64(4*y) + float64(4*l.bh)/2 }
	midX := func(x int) float64 { return float64(2*x) + float64(2*l.bw)/2 }
	gap := float64(2 * (l.cw - l.bw)) // pixels between neighbouring boxes
	switch {
	case a.Col < b.Col:
		x0, x1 := float64(2*(ax+l.bw)), float64(2*bx)-1
		return []float64{x0, midY(ay), x1 - gap + 1, midY(ay), x1, midY(by)}
	case a.Col > b.Col:
		x0, x1 := float64(2*ax)-1, float64(2*(bx+l.bw))
		return []float64{x0, midY(ay), x1 + gap - 1, midY(ay), x1, midY(by)}
	case a.Row < b.Row:
		return []float64{midX(ax), float64(4 * (ay + l.bh)), midX(bx), float64(4*by) - 1}
	default:
		return []float64{midX(ax), float64(4*ay) - 1, midX(bx), float64(4 * (by + l.bh))}
	}
}

// inlineText is a node on one line: the label, then the detail. In
// fewer than w columns the label keeps only its first word (the node's
// name: "s7" of "s7 exp"), so that the detail, the numbers a step
// changes, stays in view.
func inlineText(n sims.GraphNode, w int) string {
	if n.Detail == "" {
		return n.Label
	}
	s := n.Label + " " + n.Detail
	if name, _, ok := strings.Cut(n.Label, " "); ok && ansi.StringWidth(s) > w {
		s = name + " " + n.Detail
	}
	return s
}

// drawNode draws one node's box in its tone.
func drawNode(b *buffer, l graphLayout, n sims.GraphNode, o Options) {
	x, y := l.box(n)
	ink, text := axisColor, rgb(0)
	bold := false
	switch n.Tone {
	case sims.ToneDim:
		text = axisColor
	case sims.ToneInk, sims.ToneFill:
		ink, text = classColor(n.Class), classColor(n.Class)
	case sims.ToneFocus:
		ink, text, bold = classColor(n.Class), classColor(n.Class), true
	}
	frame := plainFrame
	if n.Tone == sims.ToneFocus {
		frame = focusFrame
	}
	// In monochrome a filled node's class glyph takes its first corner.
	glyph := ""
	if o.Mono && n.Tone == sims.ToneFill {
		glyph = string(classGlyph(n.Class))
	}
	inner := l.bw - 2
	if !l.boxed {
		s := inlineText(n, inner)
		if l.bw >= 3 {
			open, shut := "[", "]"
			if glyph != "" {
				open = glyph
			}
			if n.Tone == sims.ToneFocus {
				open, shut = focusMark, " "
			}
			s = open + ansi.Truncate(s, inner, "…") + shut
		} else {
			s = ansi.Truncate(n.Label, l.bw, "")
		}
		b.text(x, y, s, text, bold || n.Tone == sims.ToneInk)
		l.tint(b, x, y, n, o)
		return
	}
	// Top edge with the label centred in it, the detail line, the bottom edge.
	label := ansi.Truncate(n.Label, inner, "…")
	lw := ansi.StringWidth(label)
	left := (inner - lw) / 2
	corner := string(frame[0])
	if glyph != "" {
		corner = glyph
	}
	b.text(x, y, corner, ink, bold)
	for i := 0; i < inner; i++ {
		b.text(x+1+i, y, string(frame[4]), ink, bold)
		b.text(x+1+i, y+2, string(frame[4]), ink, bold)
	}
	b.text(x+1+left, y, label, text, true)
	b.text(x+l.bw-1, y, string(frame[1]), ink, bold)
	detail := ansi.Truncate(n.Detail, inner, "…")
	dw := ansi.StringWidth(detail)
	b.text(x, y+1, string(frame[5])+strings.Repeat(" ", max(inner, 0))+string(frame[5]), ink, bold)
	b.text(x+1+(inner-dw)/2, y+1, detail, text, bold)
	b.text(x, y+2, string(frame[2]), ink, bold)
	b.text(x+l.bw-1, y+2, string(frame[3]), ink, bold)
	l.tint(b, x+1, y+1, n, o)
}

// tint puts a filled node's class colour behind its inner line.
func (l graphLayout) tint(b *buffer, x, y int, n sims.GraphNode, o Options) {
	if n.Tone != sims.ToneFill || o.Mono {
		return
	}
	tint := classTint(n.Class, 1-fillDim)
	width := l.bw
	if l.boxed {
		width = l.bw - 2
	}
	for i := 0; i < width; i++ {
		if c := b.at(x+i, y); c != nil {
			c.bg, c.fg = tint, 0
		}
	}
}
