package chart

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/thelab/lab/sims"
)

// A network diagram (sims.NetworkChart) is drawn as TensorFlow Playground
// draws one: a column per layer under its name, inputs at the left, each
// unit a thumbnail with its label left of it, the columns centred on the
// chart's middle row, and the weights as braille curves in the gaps
// between the columns, from the right edge of a unit's thumbnail to the
// left edge of the next unit's label, leaving and arriving level (a cubic
// Bézier, as TensorFlow Playground's links) so that they fan out in the
// middle of the gap and not at the units. A weight's line has
//
//   - the colour of its sign on the thumbnails' diverging ramp with a dark
//     middle (a positive weight in the colour of positive values), as
//     strong as |w| is large against the largest |w| of the chart, and
//     never fainter than netWeakest (weightInk);
//   - a thickness of 1, 2 or 3 braille pixels by the third of that range
//     |w| falls in (weightThickness);
//   - in monochrome, where there is no colour, a solid stroke when
//     positive and a dashed one when negative (weightPattern).
//
// The strongest lines are drawn last, over the weaker ones they cross.
// A legend row under the diagram shows the strokes. When the chart is
// small the diagram yields in this order (netSteps): the thumbnails
// shrink (to netLabelZoom) keeping gaps wide enough for every line
// (netFullGap) and for the lines to spread (netSteep); the layers' names
// go (their row); the lines may bunch; the units' labels go; the gaps
// narrow to netMinGap, where only the strongest lines of a gap are drawn,
// as many as the larger of its two layers has units (said in the title);
// then the lines go (thumbnails only, said in the title too).

// Sizes of a network diagram, in cells.
const (
	netMinGap   = 4  // the narrowest gap that the weights are drawn in
	netFullGap  = 8  // from this gap every weight is drawn; below it the strongest
	netMaxLabel = 7  // labels are cut to this width
	netWeakest  = .4 // the strength of a weight near 0 on the ramp: faint, but seen
	// netSteep is the most braille pixels the tallest column's units
	// span down per pixel across a gap, for the lines to spread out
	// rather than run as one bundle down the middle of the gap.
	netSteep = 2.5
)

// netZooms are the thumbnails' zooms tried, largest first (pixel columns
// per cell column; a cell row holds two pixel rows per zoom).
var netZooms = []float64{1, 0.75, 0.5, 0.375, 1. / 3, 0.25, 0.1875, 0.16, 0.125}

// netLabelZoom is the smallest zoom at which the labels are kept: below it
// the thumbnails are too small to be read, and the labels' room goes to
// them.
const netLabelZoom = 0.16

// netLayout is where a network diagram's columns land.
type netLayout struct {
	zoom         float64
	tileW, tileH int   // cells of a thumbnail (the largest image)
	names        bool  // layer names over the columns
	labels       bool  // unit labels left of the thumbnails
	lines        bool  // weights drawn (and the legend row)
	labelW       []int // per layer, its labels' column (a space after them included)
	x            []int // per layer, its first column (the labels')
	top, area    int   // the drawing area's first row and height
	gap          int   // columns between a layer's thumbnails and the next layer's labels
	width        int   // columns used
}

// unitY is the top row of unit u of a layer of n units, the column centred
// on the area's middle row.
func (l netLayout) unitY(n, u int) int {
	return l.top + (l.area-(n*(l.tileH+1)-1))/2 + u*(l.tileH+1)
}

// layoutNetwork places the diagram in w×h (title row included) at a zoom,
// with or without the units' labels and the layers' names (names only
// with labels), and with lines in gaps of at least minGap, no steeper
// than steep (netSteep), or without lines (minGap 0); ok is false when it
// does not fit.
func layoutNetwork(c sims.NetworkChart, w, h int, zoom float64, labels, names bool, minGap int, steep float64) (netLayout, bool) {
	lines := minGap > 0
	maxW, maxH, most := 1, 1, 0
	for _, ly := range c.Layers {
		most = max(most, len(ly.Units))
		for _, im := range ly.Units {
			if imageOK(im) {
				maxW, maxH = max(maxW, im.W), max(maxH, im.H)
			}
		}
	}
	l := netLayout{zoom: zoom, labels: labels, lines: lines, top: 1, area: h - 1,
		tileW: max(1, int(math.Ceil(float64(maxW)*zoom))), tileH: max(1, int(math.Ceil(float64(maxH)*zoom/2)))}
	if lines {
		l.area-- // the legend row
	}
	if names && labels && slices.ContainsFunc(c.Layers, func(ly sims.NetLayer) bool { return ly.Name != "" }) {
		l.names, l.top, l.area = true, l.top+1, l.area-1 // the names' row
	}
	if most*(l.tileH+1)-1 > l.area {
		return l, false
	}
	need := 0
	for _, ly := range c.Layers {
		lw := 0
		if labels {
			for _, im := range ly.Units {
				lw = max(lw, Width(ClipOrDrop(im.Caption, netMaxLabel)))
			}
			if lw > 0 {
				lw++
			}
		}
		l.labelW = append(l.labelW, lw)
		if l.names && lw+l.tileW < Width(ClipOrDrop(ly.Name, netMaxLabel)) {
			return l, false // a name wider than its column
		}
		need += lw + l.tileW
	}
	gaps := len(c.Layers) - 1
	minGap = max(minGap, 1)
	if need+gaps*minGap > w {
		return l, false
	}
	// Spare columns widen the gaps, up to a few thumbnails' width or what
	// the lines need to spread across the tallest column's span.
	span := 4 * (most - 1) * (l.tileH + 1) // braille pixels
	l.gap = minGap
	if gaps > 0 {
		l.gap = min(max(minGap, (w-need)/gaps), max(2*netFullGap, 3*l.tileW, int(math.Ceil(float64(span)/(2*netSteep)))))
	}
	if lines && float64(span) > steep*float64(2*l.gap) {
		return l, false
	}
	x := 0
	for k, lw := range l.labelW {
		l.x = append(l.x, x)
		x += lw + l.tileW + l.gap
		if k == len(l.labelW)-1 {
			l.width = x - l.gap
		}
	}
	return l, true
}

// chooseNetwork is the layout of the diagram in w×h, the first that fits
// of netSteps, each at the largest zoom that fits (down to netLabelZoom
// with labels). ok is false when not even the thumbnails alone fit.
func chooseNetwork(c sims.NetworkChart, w, h int) (netLayout, bool) {
	for _, st := range netSteps {
		for _, z := range netZooms {
			if st.labels && z < netLabelZoom {
				break
			}
			if l, ok := layoutNetwork(c, w, h, z, st.labels, st.names, st.gap, st.steep); ok {
				return l, true
			}
		}
	}
	return netLayout{}, false
}

// netSteps are the layouts tried, best first: the units' labels yield
// last, after the names, the lines' spread and every weight but the
// strongest; the thumbnails alone come when no line fits.
var netSteps = []struct {
	labels, names bool
	gap           int
	steep         float64
}{
	{true, true, netFullGap, netSteep},
	{true, false, netFullGap, netSteep},
	{true, true, netFullGap, math.Inf(1)},
	{true, false, netFullGap, math.Inf(1)},
	{false, false, netFullGap, netSteep},
	{false, false, netFullGap, math.Inf(1)},
	{true, false, netMinGap, math.Inf(1)},
	{false, false, netMinGap, math.Inf(1)},
	{false, false, 0, math.Inf(1)},
}

// netScale is the one scale of the thumbnails, for the colour bar: the
// chart's Lo and Hi on a scale of values (as imageScale).
func netScale(c sims.NetworkChart) (scale, bool) {
	if (c.Scale != sims.Sequential && c.Scale != sims.Diverging) || !(c.Lo < c.Hi) || !isFinite(c.Lo) || !isFinite(c.Hi) {
		return scale{}, false
	}
	return newScale(&sims.Grid{Scale: c.Scale, Lo: c.Lo, Hi: c.Hi}), true
}

// netWeights is the weights a NetworkChart can draw: those of layers
// whose In matches their size, finite; wmax is the largest |w| (0 when
// there are none).
func netWeights(c sims.NetworkChart) (wmax float64, n int) {
	for k, ly := range c.Layers {
		if !weightsOK(c, k) {
			continue
		}
		for _, w := range ly.In {
			if isFinite(w) {
				wmax, n = math.Max(wmax, math.Abs(w)), n+1
			}
		}
	}
	return wmax, n
}

// weightsOK reports whether layer k (k ≥ 1) has a weight for each pair of
// units of layer k−1 and k.
func weightsOK(c sims.NetworkChart, k int) bool {
	return k > 0 && k < len(c.Layers) && len(c.Layers[k].Units) > 0 &&
		len(c.Layers[k].In) == len(c.Layers[k-1].Units)*len(c.Layers[k].Units)
}

// weightStrength is |w| against the largest, from netWeakest (w = 0) to 1.
func weightStrength(w, wmax float64) float64 {
	if !(wmax > 0) {
		return netWeakest
	}
	return netWeakest + (1-netWeakest)*clamp01(math.Abs(w)/wmax)
}

// weightInk is the colour of weight w: its sign's end of the thumbnails'
// diverging ramp (with a dark middle), as far from the middle as the
// weight is strong.
func weightInk(w, wmax float64, o Options) rgb {
	s := weightStrength(w, wmax)
	if w < 0 {
		s = -s
	}
	return paint(rampDarkDiverging, 0.5+0.5*s, pixelTone, o)
}

// weightThickness is the braille pixels across a weight's line: 1, 2 or 3
// by the third of [0, wmax] that |w| lies in.
func weightThickness(w, wmax float64) int {
	if !(wmax > 0) {
		return 1
	}
	return 1 + clampInt(3*math.Abs(w)/wmax, 0, 2)
}

// weightPattern is the stroke of weight w in monochrome: "#" a pixel kept,
// "." one left out, repeated along the line; solid when w ≥ 0, dashed
// when w < 0. In colour every stroke is solid.
func weightPattern(w float64, mono bool) string {
	if mono && w < 0 {
		return "##.."
	}
	return "#"
}

// netCurveSteps is the most segments of a weight's curve; a short one has
// a segment per netCurveRun pixels across, so that a dashed stroke's
// pattern, which counts the samples of each segment, runs by pixels.
const (
	netCurveSteps = 16
	netCurveRun   = 3
)

// weightLine draws weight w's line from (x0, y0) to (x1, y1), in braille
// pixels, in its ink, thickness and pattern: a cubic Bézier curve with
// control points level with each end halfway across, so that it leaves
// and arrives level (a straight line when y0 = y1).
func weightLine(cv *canvas, x0, y0, x1, y1, w, wmax float64, o Options) {
	ink := weightInk(w, wmax, o)
	pat := weightPattern(w, o.Mono)
	keep := func(i int) bool { return pat[i%len(pat)] == '#' }
	xm := (x0 + x1) / 2
	at := func(t float64) (x, y float64) {
		u := 1 - t
		// From the start, so that a level line stays on its pixel row.
		b, c, d := 3*u*u*t, 3*u*t*t, t*t*t
		return x0 + (b+c)*(xm-x0) + d*(x1-x0), y0 + (c+d)*(y1-y0)
	}
	for k := range weightThickness(w, wmax) {
		// Offsets 0, +1, −1: a thicker line grows about its middle.
		off := float64((k + 1) / 2)
		if k%2 == 0 {
			off = -off
		}
		count := 0
		px, py := at(0)
		cv.dot(px, py+off, ink, pathLayer) // segment leaves out its first pixel
		steps := clampInt(math.Abs(x1-x0)/netCurveRun, 1, netCurveSteps)
		for i := 1; i <= steps; i++ {
			x, y := at(float64(i) / float64(steps))
			cv.segment(px, py+off, x, y+off, ink, keep, &count)
			px, py = x, y
		}
	}
}

// edge is one weight to draw: from unit i of layer k−1 to unit j of
// layer k.
type edge struct {
	k, i, j int
	w       float64
}

// netEdges are the lines a layout draws, weakest first; shown is how many
// of the finite weights that is.
func netEdges(c sims.NetworkChart, l netLayout) (edges []edge, shown int) {
	if !l.lines {
		return nil, 0
	}
	for k := 1; k < len(c.Layers); k++ {
		if !weightsOK(c, k) {
			continue
		}
		out := len(c.Layers[k].Units)
		var es []edge
		for p, w := range c.Layers[k].In {
			if isFinite(w) {
				es = append(es, edge{k: k, i: p / out, j: p % out, w: w})
			}
		}
		slices.SortStableFunc(es, func(a, b edge) int { return cmp.Compare(math.Abs(b.w), math.Abs(a.w)) })
		if l.gap < netFullGap {
			es = es[:min(len(es), max(out, len(c.Layers[k-1].Units)))]
		}
		edges = append(edges, es...)
	}
	slices.SortStableFunc(edges, func(a, b edge) int { return cmp.Compare(math.Abs(a.w), math.Abs(b.w)) })
	return edges, len(edges)
}

// networkChart draws the title, the lines, the labelled thumbnails, the
// colour bar right of them when there is room, and the legend row.
func networkChart(c sims.NetworkChart, w, h int, o Options) []string {
	b := newBuffer(w, h, o.Mono)
	if len(c.Layers) == 0 {
		titleLine(b, 0, c.Title, "")
		b.text(0, 1, "no network yet", axisColor, false)
		return b.lines()
	}
	// The colour bar takes its columns when the diagram keeps its lines
	// and labels without them.
	l, ok := chooseNetwork(c, w, h)
	var bar *scale
	if s, sok := netScale(c); ok && sok {
		bw := colorBarWidth(s, l.area)
		if l.width+bw <= w {
			bar = &s
		} else if l2, ok2 := chooseNetwork(c, w-bw, h); ok2 && l2.labels == l.labels && l2.names == l.names && l2.lines == l.lines && l2.gap >= min(l.gap, netFullGap) {
			l, bar = l2, &s
		}
	}
	if !ok {
		titleLine(b, 0, c.Title, "")
		b.text(0, 1, Clip("network too large to draw here: enter zooms", w), axisColor, false)
		return b.lines()
	}
	wmax, total := netWeights(c)
	edges, shown := netEdges(c, l)
	note := ""
	switch {
	case !l.lines && total > 0:
		note = "(weights hidden)"
	case shown < total:
		note = fmt.Sprintf("(%d of %d weights)", shown, total)
	}
	titleLine(b, 0, c.Title, note)

	if len(edges) > 0 {
		cv := newCanvas(w, l.area, sims.Rect{XMin: 0, XMax: float64(w), YMin: 0, YMax: float64(l.area)}, o.Mono)
		for _, e := range edges {
			from, to := c.Layers[e.k-1], c.Layers[e.k]
			x0 := float64(2*(l.x[e.k-1]+l.labelW[e.k-1]+l.tileW)) + 1
			x1 := float64(2*l.x[e.k]) - 2
			y0 := float64(4*(l.unitY(len(from.Units), e.i)-l.top)) + float64(4*l.tileH)/2
			y1 := float64(4*(l.unitY(len(to.Units), e.j)-l.top)) + float64(4*l.tileH)/2
			weightLine(cv, x0, y0, x1, y1, e.w, wmax, o)
		}
		cv.draw(b, 0, l.top)
	}
	// The names go over the tallest column, the row above its first unit.
	most := 0
	for _, ly := range c.Layers {
		most = max(most, len(ly.Units))
	}
	for k, ly := range c.Layers {
		if l.names {
			// Centred over the thumbnails, or ending with them when wider.
			name := ClipOrDrop(ly.Name, netMaxLabel)
			x := l.x[k] + l.labelW[k] + (l.tileW-Width(name))/2
			if Width(name) > l.tileW {
				x = l.x[k] + l.labelW[k] + l.tileW - Width(name)
			}
			b.text(x, l.unitY(most, 0)-1, name, axisColor, false)
		}
		for u, im := range ly.Units {
			y := l.unitY(len(ly.Units), u)
			if lw := l.labelW[k]; lw > 0 {
				label := ClipOrDrop(im.Caption, netMaxLabel)
				b.text(l.x[k]+lw-1-Width(label), y+(l.tileH-1)/2, label, axisColor, false)
			}
			if imageOK(im) {
				s := newScale(&sims.Grid{NX: im.W, NY: im.H, Z: im.Pix, Scale: c.Scale, Lo: c.Lo, Hi: c.Hi})
				drawPixels(b, l.x[k]+l.labelW[k], y, im, s, l.zoom, o)
			}
		}
	}
	if bar != nil && l.area >= 2 {
		colorBar(b, l.width, l.top, l.area, *bar, barLook(*bar, pixelTone, o))
	}
	if l.lines && total > 0 {
		weightLegend(b, h-1, wmax, o)
	}
	return b.lines()
}

// weightLegend writes the strokes' key along row y: a positive and a
// negative weight at full strength, then the three thicknesses with the
// largest |w|, dropping parts from the end that do not fit. A gap that
// draws only its strongest lines says so in the title ("6 of 9 weights").
func weightLegend(b *buffer, y int, wmax float64, o Options) {
	type part struct {
		text string
		w    float64 // a stroke of this weight after the text; NaN for none
	}
	parts := []part{{"w>0 ", wmax}, {" w<0 ", -wmax}}
	if wmax > 0 {
		parts = append(parts, part{"  |w| ", wmax / 6}, part{" ", wmax / 2}, part{" ", wmax},
			part{" ≤ " + num(wmax), math.NaN()})
	}
	const stroke = 3 // cells of a sample stroke
	cv := newCanvas(b.w, 1, sims.Rect{XMin: 0, XMax: float64(b.w), YMin: 0, YMax: 1}, o.Mono)
	x := 0
	for _, p := range parts {
		n := Width(p.text)
		if !math.IsNaN(p.w) {
			n += stroke
		}
		if x+n > b.w {
			break
		}
		b.text(x, y, p.text, axisColor, false)
		x += Width(p.text)
		if !math.IsNaN(p.w) {
			weightLine(cv, float64(2*x), 1.5, float64(2*(x+stroke))-1, 1.5, p.w, wmax, o)
			x += stroke
		}
	}
	cv.draw(b, 0, y)
}
