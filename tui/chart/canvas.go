package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/thelab/lab/sims"
)

// brailleBit[row][col] is the dot of a braille cell (2 columns, 4 rows).
var brailleBit = [4][2]uint8{{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}}

// canvas is the drawing area of a CanvasChart: per cell a background field
// (two half-block colours, or a shade glyph in mono), braille dots with
// their colour, and an optional glyph on top.
type canvas struct {
	w, h  int // in cells
	view  sims.Rect
	mono  bool
	top   []rgb // heat colour of the upper half of each cell
	bot   []rgb // heat colour of the lower half
	shade []rune
	dots  []uint8
	ink   []rgb
	layer []uint8 // the drawing layer that owns each cell's dots

	glyph []rune
	gink  []rgb
}

func newCanvas(w, h int, view sims.Rect, mono bool) *canvas {
	n := w * h
	return &canvas{
		w: w, h: h, view: view, mono: mono,
		top: make([]rgb, n), bot: make([]rgb, n), shade: make([]rune, n),
		dots: make([]uint8, n), ink: make([]rgb, n), layer: make([]uint8, n),
		glyph: make([]rune, n), gink: make([]rgb, n),
	}
}

// pixel maps world coordinates to braille-pixel coordinates (y down).
func (cv *canvas) pixel(x, y float64) (float64, float64) {
	v := cv.view
	px := (x - v.XMin) / (v.XMax - v.XMin) * float64(2*cv.w)
	py := (v.YMax - y) / (v.YMax - v.YMin) * float64(4*cv.h)
	// The view's right and bottom edges are in it too: a point at XMax
	// (logits' ● pinned to the edge, a view fitted to its data) falls in
	// the last pixel, not past it.
	if px == float64(2*cv.w) {
		px = math.Nextafter(px, 0)
	}
	if py == float64(4*cv.h) {
		py = math.Nextafter(py, 0)
	}
	return px, py
}

// Dot layers: a cell's dots belong to one layer; a higher layer (a path)
// clears a lower one (level lines) so that it stays legible.
const (
	levelLayer uint8 = iota
	pathLayer
	pointLayer
)

// dot sets the braille pixel at (x, y), truncated; nothing when that is
// off the canvas or not a number.
func (cv *canvas) dot(x, y float64, ink rgb, layer uint8) {
	if !(x >= 0 && y >= 0 && x < float64(2*cv.w) && y < float64(4*cv.h)) {
		return
	}
	px, py := int(x), int(y)
	i := (py/4)*cv.w + px/2
	if layer < cv.layer[i] && cv.dots[i] != 0 {
		return
	}
	if layer > cv.layer[i] {
		cv.dots[i] = 0
	}
	cv.layer[i] = layer
	cv.dots[i] |= brailleBit[py%4][px%2]
	cv.ink[i] = ink
}

// put sets a glyph at world position (x, y); nothing when that is off
// the canvas or not a number.
func (cv *canvas) put(x, y float64, g rune, ink rgb) {
	px, py := cv.pixel(x, y)
	if !(px >= 0 && py >= 0 && px < float64(2*cv.w) && py < float64(4*cv.h)) {
		return
	}
	cx, cy := int(px/2), int(py/4)
	cv.glyph[cy*cv.w+cx] = g
	cv.gink[cy*cv.w+cx] = ink
}

// A heat field is dimmed toward a dark shadow so that the points, paths and
// markers drawn over it stand out.
var heatShadow = newRGB(0x14, 0x14, 0x1a)

const heatDim = 0.4

// heat fills the background from a field: half blocks in colour; when
// plain (mono, 16 colours), level lines for a banded field and, for a
// continuous one, the shades shade gives places on its scale (no value is
// blank).
func (cv *canvas) heat(g *sims.Grid, plain, contoured, sparse bool, shade func(scale, float64) rune, o Options) {
	if !gridOK(g) {
		return
	}
	s := newScale(g)
	if plain {
		// A field with levels is drawn as its level lines, unless the
		// chart has level lines of another field (Contours: logreg's
		// p = ½), which its field's would look just like: then as shades.
		if g.Levels > 0 && !contoured {
			cv.levelLines(g, 0, sparse)
			return
		}
		for cy := 0; cy < cv.h; cy++ {
			for cx := 0; cx < cv.w; cx++ {
				z := gridAt(g, (float64(cx)+0.5)/float64(cv.w), 1-(float64(cy)+0.5)/float64(cv.h))
				if math.IsNaN(z) {
					continue // no value: blank, as no shade is
				}
				cv.shade[cy*cv.w+cx] = shade(s, s.unit(z))
			}
		}
		return
	}
	shaded := len(g.Shade) >= g.NX*g.NY
	at := func(u, v float64) rgb {
		z := gridAt(g, u, v)
		keep := 1.0
		if shaded {
			keep = 0.2 + 0.8*clamp01(gridValue(g, g.Shade, u, v))
		}
		if g.Scale == sims.Categorical && !math.IsNaN(z) {
			return classTint(classOf(z), keep*(1-heatDim))
		}
		return s.color(z, tone{keep, heatDim}, false, o)
	}
	for cy := 0; cy < cv.h; cy++ {
		for cx := 0; cx < cv.w; cx++ {
			u := (float64(cx) + 0.5) / float64(cv.w)
			cv.top[cy*cv.w+cx] = at(u, 1-(float64(cy)+0.25)/float64(cv.h))
			cv.bot[cy*cv.w+cx] = at(u, 1-(float64(cy)+0.75)/float64(cv.h))
		}
	}
}

// bandDim is how far a band's tint is pulled toward the shadow: dim enough
// that the paths and points drawn over it keep their contrast.
const bandDim = 0.78

// band fills the cells (half cells in colour) whose centre lies between
// the band's curves, linearly interpolated in x.
func (cv *canvas) band(bd sims.Band, plain bool) {
	n := min(len(bd.X), len(bd.Lo), len(bd.Hi))
	if n < 2 {
		return
	}
	tint := classTint(bd.Class, 1-bandDim)
	v := cv.view
	k := 0 // the segment [X[k], X[k+1]] holding the current x
	for cx := 0; cx < cv.w; cx++ {
		x := v.XMin + (float64(cx)+0.5)/float64(cv.w)*(v.XMax-v.XMin)
		if x < bd.X[0] || x > bd.X[n-1] {
			continue
		}
		for k < n-2 && bd.X[k+1] < x {
			k++
		}
		t := 0.0
		if dx := bd.X[k+1] - bd.X[k]; dx > 0 {
			t = (x - bd.X[k]) / dx
		}
		lo := bd.Lo[k] + t*(bd.Lo[k+1]-bd.Lo[k])
		hi := bd.Hi[k] + t*(bd.Hi[k+1]-bd.Hi[k])
		inside := func(cy, quarter float64) bool {
			y := v.YMax - (cy+quarter)/float64(cv.h)*(v.YMax-v.YMin)
			return y >= lo && y <= hi
		}
		for cy := 0; cy < cv.h; cy++ {
			i := cy*cv.w + cx
			if plain {
				if inside(float64(cy), 0.5) {
					cv.shade[i] = '░'
				}
				continue
			}
			if inside(float64(cy), 0.25) {
				cv.top[i] = tint
			}
			if inside(float64(cy), 0.75) {
				cv.bot[i] = tint
			}
		}
	}
}

// levelLines sets a braille dot wherever the band of the (bilinearly
// interpolated) field changes between a pixel and its right or lower
// neighbour.
func (cv *canvas) levelLines(g *sims.Grid, ink rgb, sparse bool) {
	if !gridOK(g) {
		return
	}
	s := newScale(g)
	pw, ph := 2*cv.w, 4*cv.h
	prev := make([]int, pw) // bands of the row above
	row := make([]int, pw)
	for py := 0; py < ph; py++ {
		v := 1 - (float64(py)+0.5)/float64(ph)
		for px := 0; px < pw; px++ {
			row[px] = s.band(gridLerp(g, (float64(px)+0.5)/float64(pw), v))
		}
		for px := 0; px < pw; px++ {
			if sparse && (px+py)%2 == 1 {
				continue
			}
			if (px+1 < pw && row[px+1] != row[px]) || (py > 0 && prev[px] != row[px]) {
				cv.dot(float64(px), float64(py), ink, levelLayer)
			}
		}
		prev, row = row, prev
	}
}

// path draws a polyline at braille resolution; a vertex that is not
// finite is a gap.
func (cv *canvas) path(p sims.Path, ink rgb) {
	n := min(len(p.X), len(p.Y))
	if n == 0 {
		return
	}
	x0, y0 := cv.pixel(p.X[0], p.Y[0])
	cv.dot(x0, y0, ink, pathLayer)
	count := 0
	for i := 1; i < n; i++ {
		x1, y1 := cv.pixel(p.X[i], p.Y[i])
		cv.segment(x0, y0, x1, y1, ink, dashes(p, cv.mono), &count)
		x0, y0 = x1, y1
	}
}

// dashes is a path's pixel pattern (pathPattern) as a test of the i-th
// pixel sampled.
func dashes(p sims.Path, mono bool) func(int) bool {
	pattern := pathPattern(p, mono)
	if pattern == "#" {
		return func(int) bool { return true }
	}
	return func(i int) bool { return pattern[i%len(pattern)] == '#' }
}

// pathPattern is the pixels a path keeps, '#' drawn and '.' skipped,
// repeating: every other pixel for a dotted path, solid for the rest;
// in monochrome, where colour cannot tell curves apart, one pattern per
// class, solid for class 0 and dashes for the others (monoDashes), and
// dots per class for a dotted path (monoDots).
func pathPattern(p sims.Path, mono bool) string {
	c := max(p.Class, 0)
	switch {
	case p.Dotted && mono:
		return monoDots[c%len(monoDots)]
	case p.Dotted:
		return "#."
	case !mono || c == 0:
		return "#"
	}
	return monoDashes[(c-1)%len(monoDashes)]
}

// monoDashes are the dash patterns of classes 1 to 9 in monochrome and
// monoDots the dotted patterns of classes 0 to 9, all different.
var (
	monoDashes = []string{"######..", "###...", "#####..#..", "##.", "##....", "####.##.", "#######...", "##..#..", "###.#."}
	monoDots   = []string{"#.", "#...", "#.#...", "#..#....", "#.#.#.....", "#.....", "#..", "#.#..#....", "#...#.....", "#.#.#.#......"}
)

// segment draws a line between pixel positions by uniform sampling along
// its longer axis, keeping the pixels the dash pattern keeps; nothing
// when an end is not finite. Only the samples within a pixel of the
// canvas are taken, so a segment to a point far outside (1e300) costs no
// more than one across it; those skipped still advance the pattern.
func (cv *canvas) segment(x0, y0, x1, y1 float64, ink rgb, keep func(int) bool, count *int) {
	dx, dy := x1-x0, y1-y0
	steps := math.Ceil(math.Max(math.Abs(dx), math.Abs(dy)))
	if !isFinite(steps) {
		return
	}
	box := [4]float64{-1, -1, float64(2*cv.w + 1), float64(4*cv.h + 1)}
	if steps > 1<<52 {
		// Past 2⁵² samples s/steps no longer tell places apart: the part
		// in view is drawn as a segment of its own.
		var ok bool
		if x0, y0, x1, y1, ok = cut(x0, y0, x1, y1, box); !ok {
			return
		}
		dx, dy = x1-x0, y1-y0
		steps = math.Ceil(math.Max(math.Abs(dx), math.Abs(dy)))
	}
	// The samples are s/steps for s = 1..steps; those in view run from
	// first to last.
	first, last := steps+1, steps
	if t0, t1, _, _, ok := clip(x0, y0, dx, dy, box); ok {
		first, last = math.Max(1, math.Ceil(t0*steps)), math.Min(steps, math.Floor(t1*steps))
	}
	skip(count, first-1)
	for i := range clampInt(last-first+1, 0, 2*cv.w+4*cv.h+4) {
		t := (first + float64(i)) / steps
		*count++
		if keep(*count) {
			cv.dot(x0+dx*t, y0+dy*t, ink, pathLayer)
		}
	}
	skip(count, steps-math.Max(last, first-1))
}

// skip advances a dash pattern's count by n samples: exactly for a segment
// shorter than 2³⁰ pixels, to some phase for a longer one.
func skip(count *int, n float64) {
	*count += int(math.Mod(n, 1<<30))
}

// clip returns the part t0 ≤ t ≤ t1 of the segment (x, y) + t·(dx, dy),
// 0 ≤ t ≤ 1, that lies within the box (xmin, ymin, xmax, ymax) (Liang and
// Barsky's clipping), and the edges that cut it there (0 to 3 in the
// box's order; -1 where the segment's own end is); ok is false when no
// part does.
func clip(x, y, dx, dy float64, box [4]float64) (t0, t1 float64, e0, e1 int, ok bool) {
	t0, t1, e0, e1 = 0, 1, -1, -1
	for e, pq := range [4][2]float64{{-dx, x - box[0]}, {-dy, y - box[1]}, {dx, box[2] - x}, {dy, box[3] - y}} {
		p, q := pq[0], pq[1]
		switch {
		case p == 0 && q < 0:
			return 0, 0, -1, -1, false // parallel to the edge, outside it
		case p < 0 && q/p > t0:
			t0, e0 = q/p, e
		case p > 0 && q/p < t1:
			t1, e1 = q/p, e
		}
	}
	return t0, t1, e0, e1, t0 <= t1
}

// cut is the part of the segment from (x0, y0) to (x1, y1) within the
// box, its ends exactly on the edges that cut it, reckoned from the end
// nearer the box: a segment from a point in view to one at 1e300 is cut
// where it leaves the view, not at a rounding of 1e300.
func cut(x0, y0, x1, y1 float64, box [4]float64) (ax, ay, bx, by float64, ok bool) {
	mx, my := (box[0]+box[2])/2, (box[1]+box[3])/2
	swap := math.Hypot(x1-mx, y1-my) < math.Hypot(x0-mx, y0-my)
	if swap {
		x0, y0, x1, y1 = x1, y1, x0, y0
	}
	dx, dy := x1-x0, y1-y0
	t0, t1, e0, e1, ok := clip(x0, y0, dx, dy, box)
	if !ok {
		return 0, 0, 0, 0, false
	}
	at := func(t float64, e int) (x, y float64) {
		x, y = x0+dx*t, y0+dy*t
		switch e {
		case 0, 2:
			x = box[e]
		case 1, 3:
			y = box[e]
		}
		return x, y
	}
	ax, ay = at(t0, e0)
	bx, by = at(t1, e1)
	if swap {
		ax, ay, bx, by = bx, by, ax, ay
	}
	return ax, ay, bx, by, true
}

// points draws a point set: braille dots in class colours, or class glyphs
// at cell resolution in mono or when the set asks for them (Glyph).
func (cv *canvas) points(ps sims.PointSet) {
	n := min(len(ps.X), len(ps.Y))
	for i := 0; i < n; i++ {
		class := ps.Class
		if ps.Classes != nil && i < len(ps.Classes) {
			class = ps.Classes[i]
		}
		if cv.mono {
			cv.put(ps.X[i], ps.Y[i], classGlyph(class), 0)
			continue
		}
		if ps.Glyph {
			cv.put(ps.X[i], ps.Y[i], classGlyph(class), classColor(class))
			continue
		}
		px, py := cv.pixel(ps.X[i], ps.Y[i])
		cv.dot(px, py, classColor(class), pointLayer)
	}
}

// draw composes the canvas into b at (x0, y0).
func (cv *canvas) draw(b *buffer, x0, y0 int) {
	for cy := 0; cy < cv.h; cy++ {
		for cx := 0; cx < cv.w; cx++ {
			i := cy*cv.w + cx
			c := b.at(x0+cx, y0+cy)
			if c == nil {
				continue
			}
			top, bot := cv.top[i], cv.bot[i]
			bg := blend(top, bot, 0.5) // one colour under a glyph
			if top == 0 {
				bg = bot
			}
			switch {
			case cv.glyph[i] != 0:
				c.r, c.fg, c.bold, c.bg = cv.glyph[i], cv.gink[i], true, bg
			case cv.dots[i] != 0:
				c.r, c.fg, c.bg = rune(0x2800+int(cv.dots[i])), cv.ink[i], bg
			case top != 0:
				c.r, c.fg, c.bg = '▀', top, bot
			case bot != 0: // a band's edge in the lower half only
				c.r, c.fg = '▄', bot
			case cv.shade[i] != 0:
				c.r = cv.shade[i]
			}
		}
	}
}

// classLegend writes legend[i], the name of class i, after its swatch
// (swatches[i], or where there is none a ■ in its colour, its glyph in
// mono) along rows y, y+1, … (rows of them) within w cells,
// skipping classes with no name: each row but the last takes as many
// whole entries as fit (itemRows), the last drops whole entries from the
// end with "+N" when they do not fit. It returns the column after what it
// wrote on its last row.
func classLegend(b *buffer, y, rows, w int, legend, swatches []string, o Options) int {
	classes, widths := legendClasses(legend, swatches)
	starts := itemRows(widths, 2, w, rows)
	x := 0
	for r, from := range starts {
		var to int
		more := ""
		if r+1 < len(starts) {
			to = starts[r+1]
		} else {
			n, m := fitItems(widths[from:], 2, w)
			to, more = from+n, m
		}
		x = 0
		for _, i := range classes[from:to] {
			sw := swatchOf(i, swatches, o)
			b.text(x, y+r, sw, classColor(i), true)
			b.text(x+Width(sw)+1, y+r, legend[i], 0, false)
			x += Width(sw) + 1 + Width(legend[i]) + 2
		}
		if more != "" && x+len(more) <= w { // a marker with no room is left out, never overlaid
			b.text(x, y+r, more, axisColor, false)
			x += len(more) + 2
		}
	}
	return x
}

// legendClasses are the classes a legend names and their entries' widths
// (swatch, space, name).
func legendClasses(legend, swatches []string) (classes, widths []int) {
	for i, name := range legend {
		if name != "" {
			classes = append(classes, i)
			widths = append(widths, Width(swatchOf(i, swatches, Options{}))+1+Width(name))
		}
	}
	return classes, widths
}

// swatchOf is class i's legend swatch: swatches[i] when there is one, else
// its glyph in mono and a ■ in its colour otherwise (one cell either way).
func swatchOf(i int, swatches []string, o Options) string {
	switch {
	case i < len(swatches) && swatches[i] != "":
		return swatches[i]
	case o.Mono:
		return string(classGlyph(i))
	}
	return "■"
}

// canvasSwatches are the legend swatches of a canvas's classes, each
// showing the class as the canvas draws it, so that a reader without
// colour can match entry and picture: a class with points drawn as glyphs
// shows its glyph; one drawn as paths (and perhaps a marker on them, a
// current position), four cells of its first path's line (its dash
// pattern in mono, solid in colour: the same width in both), after the
// shade of its band if it has one, or its marker when it is stems
// (three or more single segments, a marker at each head); one drawn only as markers, its first
// marker's glyph; one only as bands, their shade in mono. The others have the default swatch.
func canvasSwatches(c sims.CanvasChart, mono bool) []string {
	n := len(c.Legend)
	sw := make([]string, n)
	in := func(class int) bool { return class >= 0 && class < n }
	points, bands := make([]bool, n), make([]bool, n)
	paths, marks := make([]*sims.Path, n), make([]rune, n)
	for _, ps := range c.Points {
		mark := func(k int) {
			if in(k) {
				points[k] = true
				if ps.Glyph && sw[k] == "" {
					sw[k] = string(classGlyph(k))
				}
			}
		}
		mark(ps.Class)
		for _, k := range ps.Classes {
			mark(k)
		}
	}
	// Stems: a class drawn as several segments (paths of two points), a
	// marker at the head of each.
	long := make([]bool, n) // some path of the class has more than two points
	nPaths, nMarks := make([]int, n), make([]int, n)
	for i := range c.Paths {
		if k := c.Paths[i].Class; in(k) {
			if paths[k] == nil {
				paths[k] = &c.Paths[i]
			}
			long[k] = long[k] || len(c.Paths[i].X) > 2
			nPaths[k]++
		}
	}
	for _, m := range c.Markers {
		if in(m.Class) {
			if marks[m.Class] == 0 {
				marks[m.Class] = m.Glyph
			}
			nMarks[m.Class]++
		}
	}
	for _, b := range c.Bands {
		if in(b.Class) {
			bands[b.Class] = true
		}
	}
	fans := fanClasses(c)
	for k := range sw {
		if sw[k] != "" || points[k] {
			continue
		}
		switch p, g := paths[k], marks[k]; {
		case p != nil && !long[k] && nPaths[k] >= 3 && nMarks[k] >= nPaths[k] && !bands[k]:
			// stems or arrows, each a segment too short to show a
			// dash pattern, told apart by their heads
			sw[k] = string(g)
		case p != nil && mono && fans[k]:
			sw[k] = lineSwatch("#") // drawn solid (fanClasses)
		case p != nil && !bands[k]:
			sw[k] = lineSwatch(pathPattern(*p, mono))
		case p != nil && g == 0:
			// a band around its line (a GP's mean ± 2σ): both
			sw[k] = "░" + lineSwatch(pathPattern(*p, mono))
		case p == nil && g != 0 && !bands[k]:
			sw[k] = string(g)
		case p == nil && g == 0 && bands[k] && mono:
			sw[k] = "░"
		}
	}
	return sw
}

// fanClasses is the class of a canvas drawn as a fan of segments (three
// or more paths of two points, no markers: a coupling's lines, a map's
// arrows), when it is the only one and no class-0 path is drawn solid
// beside it: in
// monochrome they are drawn solid, as a dash pattern on many short
// steep lines breaks them into crumbs (ot-1d's coupling, forward-noise's
// arrows).
func fanClasses(c sims.CanvasChart) map[int]bool {
	segments, long, marked := map[int]int{}, map[int]bool{}, map[int]bool{}
	for _, p := range c.Paths {
		if p.Class == 0 && !p.Dotted {
			return nil
		}
		segments[p.Class]++
		long[p.Class] = long[p.Class] || len(p.X) > 2
	}
	for _, m := range c.Markers {
		marked[m.Class] = true
	}
	fan := -1
	for k, n := range segments {
		if n >= 3 && !long[k] && !marked[k] {
			if fan >= 0 {
				return nil // two fans drawn solid would look alike (score-match's ε* and ε_θ)
			}
			fan = k
		}
	}
	if fan < 0 {
		return nil
	}
	return map[int]bool{fan: true}
}

// lineSwatch is a dash pattern (pathPattern: '#' a pixel drawn) over the
// eight pixels of four braille cells, on their middle row: ⠒ both, ⠂ the
// left, ⠐ the right. The ten classes' patterns read apart in it.
func lineSwatch(pattern string) string {
	var s strings.Builder
	on := func(px int) bool { return pattern[px%len(pattern)] == '#' }
	for cell := range 4 {
		l, r := on(2*cell), on(2*cell+1)
		switch {
		case l && r:
			s.WriteRune('⠒')
		case l:
			s.WriteRune('⠂')
		case r:
			s.WriteRune('⠐')
		default:
			s.WriteRune('⠀')
		}
	}
	return s.String()
}

// legendRows is how many rows of w cells the primary chart's legend takes
// to name every entry, leaving the chart's h rows at least keep for the
// rest. Another chart's legend takes one row, or two where they name more
// and its plot keeps at least secondLegendRoom rows besides (at 80×24,
// rff's "iid theory  +2" hid both measured series, gd's both bounds).
func legendRows(widths []int, w, h, keep int, o Options) int {
	if !o.Primary {
		if h-keep-1 >= secondLegendRoom {
			return len(itemRows(widths, 2, w, 2))
		}
		return 1
	}
	return len(itemRows(widths, 2, w, max(1, h-keep)))
}

// lastLegendRow is the width the last of a legend's rows takes (its
// "+N" marker included) when it is drawn in rows rows of w.
func lastLegendRow(widths []int, w, rows int) int {
	starts := itemRows(widths, 2, w, rows)
	from := starts[len(starts)-1]
	n, more := fitItems(widths[from:], 2, w)
	used := 0
	for i, iw := range widths[from : from+n] {
		if i > 0 {
			used += 2
		}
		used += iw
	}
	if more != "" {
		used += 2 + Width(more)
	}
	return used
}

// rangeRowRoom is the fewest rows a canvas keeps when its axis ranges
// take a row of their own.
const rangeRowRoom = 5

// secondLegendRoom is the rows beyond its least that a chart other than
// the primary keeps when its legend takes a second row.
const secondLegendRoom = 4

// legendWidth is the width of a whole class legend.
func legendWidth(legend, swatches []string) int {
	n := 0
	_, widths := legendClasses(legend, swatches)
	for _, w := range widths {
		n += w + 2
	}
	return max(0, n-2)
}

// axisRanges says what a canvas spans: "x -3…3  y -2…2" with the chart's
// axis labels, and the short form "-3…3 × -2…2"; an index axis by its
// first and last index ("key j 0…4").
func axisRanges(c sims.CanvasChart) (full, short string) {
	v := c.View
	xl, yl := c.XLabel, c.YLabel
	if xl == "" {
		xl = "x"
	}
	if yl == "" {
		yl = "y"
	}
	xr, yr := rangeNum(v.XMin)+"…"+rangeNum(v.XMax), rangeNum(v.YMin)+"…"+rangeNum(v.YMax)
	if ix := c.XIndex; ix != nil {
		xr = fmt.Sprintf("%d…%d", ix.First, ix.Last)
	}
	if ix := c.YIndex; ix != nil {
		yr = fmt.Sprintf("%d…%d", ix.First, ix.Last)
	}
	return fmt.Sprintf("%s %s  %s %s", xl, xr, yl, yr), xr + " × " + yr
}

// rangeNum prints an end of an axis range to three significant digits.
func rangeNum(x float64) string {
	ax := math.Abs(x)
	switch {
	case x == 0:
		return "0"
	case ax >= 1e5 || ax < 1e-3:
		return strconv.FormatFloat(x, 'e', 1, 64)
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(ax))))
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// canvasChart draws a title, the canvas, and a line with the axis ranges and
// the legend. A view that is not finite (or whose width overflows) is said
// instead of drawn; what lies outside the view, or at a position that is
// not finite, is not drawn (a path's segment is clipped at the edge).
func canvasChart(c sims.CanvasChart, w, h int, o Options) []string {
	b := newBuffer(w, h, o.Mono)
	titleLine(b, 0, c.Title, "")
	v := c.View
	full, short := axisRanges(c)
	switch dx, dy := v.XMax-v.XMin, v.YMax-v.YMin; {
	case !isFinite(dx) || !isFinite(dy):
		b.text(0, 1, Clip("off scale: "+full, w), axisColor, false)
		return b.lines()
	case !(dx > 0) || !(dy > 0):
		b.text(0, 1, "no data yet", axisColor, false)
		return b.lines()
	}
	swatches := canvasSwatches(c, o.Mono)
	_, widths := legendClasses(c.Legend, swatches)
	rows := legendRows(widths, w, h, 6, o)
	lw := legendWidth(c.Legend, swatches)
	titleW := Width(Clip(c.Title, w))
	// The ranges on a row of their own above the legend when neither the
	// title line nor the legend's leaves them room and the canvas keeps
	// rangeRowRoom rows (poisoning's and assignment's side charts at
	// 80×24 had no numbers at all).
	lastW := lastLegendRow(widths, w, rows)
	rangeRow := titleW+2+Width(short) > w && (rows > 1 || Width(short)+2+lw > w) &&
		!(rows > 1 && lastW+2+Width(short) <= w) && Width(short) <= w && h-1-rows-1 >= rangeRowRoom
	below := rows
	if rangeRow {
		below++
	}
	lay := layoutCanvas(c, w, h-1-below, o)
	cv := newCanvas(lay.cw, lay.ch, v, o.Mono)
	// A signed field drawn alone (jacobian's J) shows its sign in plain
	// shades; under points, paths or markers (logreg's p, svm's F) it
	// stays the light one-ramp backdrop they stand out on (backdropAt).
	signed := len(c.Points) == 0 && len(c.Paths) == 0 && len(c.Markers) == 0
	shade := func(s scale, t float64) rune {
		if signed {
			return monoShade(s, t)
		}
		return backdropAt(t)
	}
	// In monochrome, under paths (gd's iterates, kl-flow's (μ, σ)), level
	// lines are dotted: drawn solid they were the same braille as the
	// path the chart is about.
	sparse := o.Mono && len(c.Paths) > 0
	if c.Heat != nil {
		cv.heat(c.Heat, o.Mono || o.Basic, contoured(c), sparse, shade, o)
	}
	for _, bd := range c.Bands {
		cv.band(bd, o.Mono || o.Basic)
	}
	if c.Contours != nil {
		cv.levelLines(c.Contours, contourInk, sparse)
	}
	fans := fanClasses(c)
	for _, p := range c.Paths {
		ink := classColor(p.Class)
		if o.Mono && fans[p.Class] {
			p.Class = 0 // solid (see fanClasses), in its own colour
		}
		cv.path(p, ink)
	}
	for _, ps := range c.Points {
		cv.points(ps)
	}
	for _, m := range c.Markers {
		cv.put(m.X, m.Y, m.Glyph, classColor(m.Class))
	}
	cv.draw(b, lay.x0, 1)
	lay.drawIndices(b, c)
	if lay.bar {
		s := newScale(c.Heat)
		colorBar(b, lay.x0+lay.cw, 1, lay.ch, s, func(tTop, tBot float64) cell {
			if o.Mono || o.Basic {
				return cell{r: shade(s, (tTop+tBot)/2)}
			}
			top := s.color(s.valueAt(tTop), tone{1, heatDim}, false, o)
			bot := s.color(s.valueAt(tBot), tone{1, heatDim}, false, o)
			return cell{r: '▀', fg: top, bg: bot}
		})
	}

	// The axis ranges go at the right of the bottom line, beside the legend;
	// when the legend needs the whole line, at the right of the title line
	// if the title leaves room; else, without their labels, beside the
	// legend if it stays whole, else not at all: the legend's names come
	// first (kl-fit's "+2   -8.72…8.72 × -8.72…8.72" named no class). The primary's legend keeps its names: it takes
	// more rows when one does not hold it (legendRows), and the short
	// ranges go beside it only when it fits whole, else on the title line
	// or not at all.
	switch {
	case rangeRow:
		b.text(w-Width(short), h-rows-1, short, axisColor, false)
		classLegend(b, h-rows, rows, w, c.Legend, swatches, o)
	case rows > 1:
		switch {
		case titleW+2+Width(full) <= w:
			b.text(w-Width(full), 0, full, axisColor, false)
		case titleW+2+Width(short) <= w:
			b.text(w-Width(short), 0, short, axisColor, false)
		case lastW+2+Width(full) <= w: // beside the legend's last row
			b.text(w-Width(full), h-1, full, axisColor, false)
		case lastW+2+Width(short) <= w:
			b.text(w-Width(short), h-1, short, axisColor, false)
		}
		classLegend(b, h-rows, rows, w, c.Legend, swatches, o)
	case Width(full)+2+lw <= w:
		b.text(w-Width(full), h-1, full, axisColor, false)
		classLegend(b, h-1, 1, w-Width(full)-2, c.Legend, swatches, o)
	case titleW+2+Width(full) <= w:
		b.text(w-Width(full), 0, full, axisColor, false)
		classLegend(b, h-1, 1, w, c.Legend, swatches, o)
	case o.Primary && Width(short)+2+lw > w && titleW+2+Width(short) <= w:
		b.text(w-Width(short), 0, short, axisColor, false)
		classLegend(b, h-1, 1, w, c.Legend, swatches, o)
	case o.Primary && Width(short)+2+lw > w:
		classLegend(b, h-1, 1, w, c.Legend, swatches, o)
	case Width(short)+2+lw <= w:
		b.text(w-Width(short), h-1, short, axisColor, false)
		classLegend(b, h-1, 1, w-Width(short)-2, c.Legend, swatches, o)
	default:
		classLegend(b, h-1, 1, w, c.Legend, swatches, o)
	}
	return b.lines()
}

// canvasLayout is where a canvas's parts go in its chart: the canvas
// cw×ch from column x0 and row 1, the labels of a YIndex in the x0
// columns left of it, those of an XIndex on the row under it, and the
// colour bar of a matrix right of it.
type canvasLayout struct {
	x0, cw, ch           int
	rowLabels, colLabels bool
	bar                  bool
}

// layoutCanvas places a canvas in w×h (the title and the bottom line
// excluded). A matrix (an index axis and a continuous Heat) gets its
// colour bar, and so does a field from fieldBarMinW columns and 6 rows, and an index axis its labels, when the canvas keeps at
// least half the width and canvasMinW columns (the row labels yield
// first, then the bar), and when each index has a row (row labels) or room
// for its widest label and a space (column labels, which take a row of
// a canvas of at least 4).
func layoutCanvas(c sims.CanvasChart, w, h int, o Options) canvasLayout {
	l := canvasLayout{cw: w, ch: h}
	v := c.View
	rl, bw := 0, 0
	if ix := c.YIndex; indexLabelled(ix) && float64(h)*math.Abs(ix.Step) >= v.YMax-v.YMin {
		rl = labelsWidth(ix.Labels) + 1
	}
	matrix := c.XIndex != nil || c.YIndex != nil
	if g := c.Heat; g != nil && gridOK(g) && g.Scale != sims.Categorical && (matrix || w >= fieldBarMinW && h >= 6) &&
		!((o.Mono || o.Basic) && g.Levels > 0 && !contoured(c)) && h >= 2 { // (level lines: no shades to key)
		bw = colorBarWidth(newScale(g), h)
	}
	room := func() bool { return w-rl-bw >= max(canvasMinW, w/2) }
	if !room() {
		rl = 0
	}
	if !room() {
		bw = 0
	}
	l.x0, l.cw, l.bar, l.rowLabels = rl, w-rl-bw, bw > 0, rl > 0
	if ix := c.XIndex; indexLabelled(ix) && h >= 4 {
		cells := (v.XMax - v.XMin) / math.Abs(ix.Step)
		switch lw := labelsWidth(ix.Labels); {
		case lw == 1 && float64(l.cw) >= cells && cells == math.Trunc(cells):
			// Labels of one character (a character model's tokens)
			// need no space between them: they read as the text
			// itself, a column to a cell, or evenly spaced, when
			// every cell has the same whole number of columns (the
			// rest of the width is left blank).
			l.cw -= l.cw % int(cells)
			l.colLabels, l.ch = true, h-1
		case float64(l.cw) >= float64(lw+1)*cells:
			l.colLabels, l.ch = true, h-1
		}
	}
	if n := namedRows(c); l.rowLabels && n > 0 && l.ch > n {
		// Every named row the same number of lines (7 lines for 5
		// queries read as 5 rows of uneven height); the lines left over
		// stay blank under the column labels.
		l.ch -= l.ch % n
	}
	return l
}

// contoured reports whether a canvas draws level lines of another field
// than its Heat (logreg's p = ½ over p): its Heat is then shaded even
// in monochrome, where a Heat with Levels is otherwise drawn as lines.
func contoured(c sims.CanvasChart) bool { return c.Contours != nil && c.Contours != c.Heat }

// canvasMinW is the fewest columns a canvas keeps beside its labels and
// colour bar.
const canvasMinW = 12

// fieldBarMinW is the width from which a field (a Heat under points or
// curves: logreg's p, svm's F, gan's D) gets its colour bar too, as a
// matrix does at any width: its shades say nothing without a key.
const fieldBarMinW = 40

func indexLabelled(ix *sims.Index) bool {
	return ix != nil && ix.Last >= ix.First && len(ix.Labels) == ix.Last-ix.First+1 && ix.Step != 0
}

func labelsWidth(labels []string) int {
	n := 0
	for _, s := range labels {
		n = max(n, Width(s))
	}
	return n
}

// drawIndices writes the index labels that the layout has room for: a
// row's right-aligned left of the canvas on the row of its cell's
// centre, a column's centred under its cell.
func (l canvasLayout) drawIndices(b *buffer, c sims.CanvasChart) {
	v := c.View
	if l.rowLabels {
		ix := c.YIndex
		for k := ix.First; k <= ix.Last; k++ {
			y := ix.At + float64(k)*ix.Step
			row := int(math.Floor((v.YMax - y) / (v.YMax - v.YMin) * float64(l.ch)))
			if row >= 0 && row < l.ch {
				s := ix.Labels[k-ix.First]
				b.text(l.x0-1-Width(s), 1+row, s, axisColor, false)
			}
		}
	}
	if l.colLabels {
		ix := c.XIndex
		for k := ix.First; k <= ix.Last; k++ {
			x := ix.At + float64(k)*ix.Step
			// (a whole column, 11, must not round down to 10.999…)
			col := int(math.Floor((x-v.XMin)/(v.XMax-v.XMin)*float64(l.cw) + 1e-9))
			if col >= 0 && col < l.cw {
				s := ix.Labels[k-ix.First]
				b.text(l.x0+col-(Width(s)-1)/2, 1+l.ch, s, axisColor, false)
			}
		}
	}
}
