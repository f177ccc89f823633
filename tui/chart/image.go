package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// markInk tints the pixels of an image's Mark.
var markInk = newRGB(0xff, 0x9f, 0x1a)

// pixelTone is an image's pixel: the ramp's colour itself; numberTone is
// the cell under a number, dimmed so that the digits stay readable.
var (
	pixelTone  = tone{keep: 1}
	numberTone = tone{keep: 1, dim: 0.55}
)

// imageLayout is how an ImageChart's tiles are placed: pixels scaled by
// zoom (pixel mode: zoom columns and zoom/2 rows per pixel), or numbers in
// cells of cellW columns and cellH rows.
type imageLayout struct {
	numbers      bool
	cellW, cellH int
	zoom         float64
	tileW, tileH int // cells of the largest tile, caption excluded
	capH         int // 1 when some image has a caption
	perRow       int // tiles per row
	rows         int // rows of tiles shown
	shown        int // images shown
}

// imageRows groups the images into rows of at most perRow (or Columns),
// each image marked NewRow starting one.
func imageRows(c sims.ImageChart, perRow int) [][]int {
	var rows [][]int
	var row []int
	for i, im := range c.Images {
		if len(row) > 0 && (len(row) == perRow || (c.Columns > 0 && len(row) == c.Columns) || im.NewRow) {
			rows = append(rows, row)
			row = nil
		}
		row = append(row, i)
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows
}

// layoutImages finds the largest picture that shows every image in w×h
// (the title excluded), preferring numbers when asked for; failing that,
// the smallest pixels and as many rows of tiles as fit.
func layoutImages(c sims.ImageChart, w, h int) imageLayout {
	maxW, maxH := 1, 1
	capH := 0
	for _, im := range c.Images {
		if imageOK(im) {
			maxW, maxH = max(maxW, im.W), max(maxH, im.H)
		}
		if im.Caption != "" {
			capH = 1
		}
	}
	// try places the tiles; ok when all of them fit.
	try := func(l imageLayout) (imageLayout, bool) {
		l.capH = capH
		if l.numbers {
			for _, im := range c.Images {
				if !imageOK(im) {
					continue
				}
				rl, cl := numberLabels(im)
				l.tileW = max(l.tileW, rl+im.W*l.cellW+1)
				l.tileH = max(l.tileH, cl+im.H*l.cellH)
			}
		} else {
			l.tileW = max(1, int(math.Ceil(float64(maxW)*l.zoom)))
			l.tileH = max(1, int(math.Ceil(float64(maxH)*l.zoom/2)))
		}
		if l.tileW > w {
			return l, false
		}
		l.perRow = max(1, (w+1)/(l.tileW+1))
		rows := imageRows(c, l.perRow)
		// A row is its tiles and the caption line (a blank line between
		// rows without captions).
		for l.rows < len(rows) && (l.rows+1)*(l.tileH+1)-(1-capH) <= h {
			l.shown += len(rows[l.rows])
			l.rows++
		}
		wide := c.Columns == 0 || l.perRow >= min(c.Columns, len(c.Images))
		return l, wide && l.rows == len(rows)
	}
	// Numbers, and pixels, scale up as far as the chart has room: a number
	// in a cell k times as wide and k rows high, its colour filling it.
	if c.Numbers {
		nw := numberWidth(c) + 1
		for k := maxNumberScale; k >= 1; k-- {
			if l, ok := try(imageLayout{numbers: true, cellW: k * nw, cellH: k}); ok {
				return l
			}
		}
	}
	var best imageLayout
	for _, z := range []float64{maxPixelZoom, 6, 4, 3, 2, 1, 0.75, 0.5, 0.375, 0.25} {
		if z < minPixelZoom && float64(maxW)*z < minTileCols && best.zoom != 0 {
			break // fewer tiles, still legible, rather than blobs (saliency's gallery at 80×24)
		}
		l, ok := try(imageLayout{zoom: z})
		if ok {
			return l
		}
		if l.shown > best.shown || best.zoom == 0 {
			best = l
		}
	}
	return best
}

// Pictures are legible down to half their pixels a cell (a 16×16 digit in
// 8 columns and 4 rows), and a large one (a 128×128 barycenter) down to
// minTileCols columns; below that a digit is a blob, and a pane shows the
// other charts instead (issue 26: vae's samples at 80×24).
const (
	minPixelZoom = 0.5
	minTileCols  = 16
)

// imageMinSize is the least room a picture chart is drawn in: a numeric
// grid anywhere from 12×5; pictures at minPixelZoom (or minTileCols wide),
// a grid of Columns whole, a gallery at least one tile, with the title and
// captions.
func imageMinSize(c sims.ImageChart) (w, h int) {
	maxW, maxH, capH, n := 0, 0, 0, 0
	for _, im := range c.Images {
		if imageOK(im) {
			maxW, maxH, n = max(maxW, im.W), max(maxH, im.H), n+1
		}
		if im.Caption != "" {
			capH = 1
		}
	}
	if c.Numbers || n == 0 {
		return 12, 5
	}
	z := min(minPixelZoom, float64(minTileCols)/float64(maxW))
	tw, th := int(math.Ceil(float64(maxW)*z)), int(math.Ceil(float64(maxH)*z/2))
	perRow, rows := 1, 1
	if c.Columns > 0 {
		perRow = min(c.Columns, n)
		rows = (n + perRow - 1) / perRow
	}
	return max(12, perRow*(tw+1)-1), max(5, 1+rows*(th+capH)+rows-1)
}

// maxNumberScale is the most a numeric image's cells are scaled up, and
// maxPixelZoom the most its pixels are (columns per pixel).
const (
	maxNumberScale = 6
	maxPixelZoom   = 8
)

// imageOK reports whether im has the W·H pixels it says (without
// overflowing the product): an image that does not is left blank.
func imageOK(im sims.Image) bool {
	return im.W > 0 && im.H > 0 && im.W <= len(im.Pix) && im.H <= len(im.Pix)/im.W
}

// imageNumber formats a value of a numeric image: integers as they are,
// others with two significant decimals at most; from 1e6 (and ±Inf) in
// scientific form, so that no number is longer than a few cells.
func imageNumber(x float64) string {
	switch {
	case !(math.Abs(x) < 1e6):
		return strconv.FormatFloat(x, 'g', 3, 64)
	case x == math.Trunc(x):
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// numberLabels is the width of a numeric image's row labels (with a space
// after them) and the height of its column labels.
func numberLabels(im sims.Image) (rowW, colH int) {
	if len(im.RowLabels) == im.H {
		for _, l := range im.RowLabels {
			rowW = max(rowW, ansi.StringWidth(l)+1)
		}
	}
	if len(im.ColLabels) == im.W {
		colH = 1
	}
	return rowW, colH
}

func numberWidth(c sims.ImageChart) int {
	n := 1
	for _, im := range c.Images {
		for _, v := range im.Pix {
			if !math.IsNaN(v) {
				n = max(n, len(imageNumber(v)))
			}
		}
	}
	return n
}

// imageChart draws the images in rows of tiles under the title.
func imageChart(c sims.ImageChart, w, h int, o Options) []string {
	b := newBuffer(w, h, o.Mono)
	l, bar := placeImages(c, w, h, o)
	note := ""
	if hidden := len(c.Images) - l.shown; hidden > 0 {
		note = fmt.Sprintf("(+%d more)", hidden)
	}
	titleLine(b, 0, c.Title, note)
	if len(c.Images) == 0 {
		b.text(0, 1, "no images yet", axisColor, false)
		return b.lines()
	}
	y := 1
	for r, row := range imageRows(c, l.perRow) {
		if r >= l.rows {
			break
		}
		for k, i := range row {
			x := k * (l.tileW + 1)
			im := c.Images[i]
			if !imageOK(im) {
				continue
			}
			s := newScale(&sims.Grid{NX: im.W, NY: im.H, Z: im.Pix, Scale: c.Scale, Lo: c.Lo, Hi: c.Hi})
			if l.numbers {
				drawNumbers(b, x, y, im, s, l.cellW, l.cellH, o)
			} else {
				drawPixels(b, x, y, im, s, l.zoom, o)
			}
			if l.capH > 0 && im.Caption != "" {
				cw, cx := l.tileW, x
				if l.numbers {
					rl, _ := numberLabels(im)
					cw, cx = im.W*l.cellW+1, x+rl
				}
				// A row's last tile may spread its caption to the chart's
				// edge (where no colour bar stands): "row: true…" was cut
				// to a digit's width in a 53-column cell.
				if k == len(row)-1 && bar == nil && ansi.StringWidth(im.Caption) > cw {
					cw = max(cw, w-cx)
				}
				caption := ClipOrDrop(im.Caption, cw) // whole, cut after a word and marked, or left out
				pad := max(0, (cw-ansi.StringWidth(caption))/2)
				if k == len(row)-1 && ansi.StringWidth(caption) > l.tileW {
					pad = 0 // spread right of the tile, from its left edge
				}
				b.text(cx+pad, y+l.tileH, caption, axisColor, false)
			}
		}
		y += l.tileH + 1
	}
	if bar != nil {
		drawImageBar(b, c, l, *bar, o)
	}
	return b.lines()
}

// placeImages lays out an ImageChart in w×h (its title included): the
// tiles (layoutImages) and the colour bar, when the images have one. The
// bar goes right of the tiles when they leave it room, or when taking it
// from their width shows as many images as large (a zoom of 2 or more
// stays large).
func placeImages(c sims.ImageChart, w, h int, o Options) (imageLayout, *scale) {
	l := layoutImages(c, w, h-1)
	if s, ok := imageScale(c); ok && !(o.Mono && c.Numbers) { // mono numbers have no colour to explain
		bw := colorBarWidth(s, h-1)
		if used := l.perRow*(l.tileW+1) - 1; used+bw <= w {
			return l, &s
		} else if l2 := layoutImages(c, w-bw, h-1); l2.shown == l.shown && l2.numbers == l.numbers &&
			(l2.zoom == l.zoom || l2.zoom >= 2) {
			return l2, &s
		}
	}
	return l, nil
}

// imageUsed is the part of w×h that an ImageChart's tiles, captions, title
// and colour bar cover (placeImages).
func imageUsed(c sims.ImageChart, w, h int, o Options) (uw, uh int) {
	l, bar := placeImages(c, w, h, o)
	if l.rows == 0 {
		return w, h
	}
	widest := 0
	for _, row := range imageRows(c, l.perRow)[:l.rows] {
		widest = max(widest, len(row))
	}
	uw = widest*(l.tileW+1) - 1
	if bar != nil {
		uw += colorBarWidth(*bar, h-1)
	}
	return min(w, max(uw, Width(c.Title))), min(h, 1+l.rows*(l.tileH+1)-(1-l.capH))
}

// imageScale is the one scale of an ImageChart's colours, for its colour
// bar: a range common to its images (the chart's Lo and Hi, or the one
// image's own), on a scale of values (Sequential, Diverging; not the ink
// of a Grey picture nor classes); ok is false when there is none.
func imageScale(c sims.ImageChart) (scale, bool) {
	if c.Scale != sims.Sequential && c.Scale != sims.Diverging {
		return scale{}, false
	}
	if c.Lo < c.Hi && isFinite(c.Lo) && isFinite(c.Hi) {
		return newScale(&sims.Grid{Scale: c.Scale, Lo: c.Lo, Hi: c.Hi}), true
	}
	if len(c.Images) != 1 || !imageOK(c.Images[0]) {
		return scale{}, false
	}
	im := c.Images[0]
	return newScale(&sims.Grid{NX: im.W, NY: im.H, Z: im.Pix, Scale: c.Scale}), true
}

// drawImageBar draws the colour bar right of the tiles, over the rows
// the tiles take (captions excluded), drawn as their pixels or number
// cells are.
func drawImageBar(b *buffer, c sims.ImageChart, l imageLayout, s scale, o Options) {
	widest := 0
	for _, row := range imageRows(c, l.perRow)[:l.rows] {
		widest = max(widest, len(row))
	}
	x := widest*(l.tileW+1) - 1
	h := l.rows*(l.tileH+1) - 1
	y := 1
	if l.numbers && len(c.Images) > 0 { // beside the numbers, under column labels
		_, cl := numberLabels(c.Images[0])
		y, h = y+cl, h-cl
	}
	if h < 2 {
		return
	}
	tn := pixelTone
	if l.numbers {
		tn = numberTone
	}
	colorBar(b, x, y, h, s, barLook(s, tn, o))
}

// barLook is the colour bar's cell of images drawn in tone tn: drawn as
// their pixels are (drawPixels), so that the key matches the picture.
func barLook(s scale, tn tone, o Options) func(tTop, tBot float64) cell {
	return func(tTop, tBot float64) cell {
		switch {
		case o.Mono && s.diverging():
			return cell{r: monoShade(s, (tTop+tBot)/2)}
		case o.Mono:
			return cell{r: map[[2]bool]rune{{true, true}: '█', {true, false}: '▀', {false, true}: '▄', {false, false}: ' '}[[2]bool{tTop >= 0.5, tBot >= 0.5}]}
		}
		return cell{r: '▀', fg: s.color(s.valueAt(tTop), tn, true, o), bg: s.color(s.valueAt(tBot), tn, true, o)}
	}
}

func marked(im sims.Image, i, j int) bool {
	m := im.Mark
	return m.X1 > m.X0 && i >= m.X0 && i < m.X1 && j >= m.Y0 && j < m.Y1
}

// drawPixels draws an image at zoom: each cell shows the pixel under its
// upper half (foreground of ▀) and the one under its lower half
// (background). Mono draws ink (above the middle of the range) as ▀ ▄ █
// and shades the marked window's paper ░; a diverging image (signed
// weights) is drawn in mono by the one of the cell's two pixels farther
// from 0, in its sign's shades (monoShade).
func drawPixels(b *buffer, x0, y0 int, im sims.Image, s scale, zoom float64, o Options) {
	tw := max(1, int(math.Ceil(float64(im.W)*zoom)))
	th := max(1, int(math.Ceil(float64(im.H)*zoom/2)))
	type px struct {
		ok, mark bool
		t        float64
		c        rgb
	}
	at := func(cx, sub int) px {
		i := int(float64(cx) / zoom)
		j := int(float64(sub) / zoom)
		if i >= im.W || j >= im.H {
			return px{}
		}
		v := im.Pix[j*im.W+i]
		if math.IsNaN(v) {
			return px{}
		}
		p := px{ok: true, mark: marked(im, i, j), t: s.unit(v), c: s.color(v, pixelTone, true, o)}
		if p.mark {
			p.c = blend(p.c, markInk, 0.45)
		}
		return p
	}
	for cy := range min(th, b.h-y0) {
		for cx := range min(tw, b.w-x0) {
			c := b.at(x0+cx, y0+cy)
			if c == nil {
				continue
			}
			top, bot := at(cx, 2*cy), at(cx, 2*cy+1)
			if o.Mono && s.g.Scale == sims.Diverging {
				t := 0.5 // the pixel of the two farther from 0, with its sign
				for _, p := range []px{top, bot} {
					if p.ok && math.Abs(p.t-0.5) > math.Abs(t-0.5) {
						t = p.t
					}
				}
				c.r = monoShade(s, t)
				continue
			}
			if o.Mono {
				ink := func(p px) bool { return p.t >= 0.5 }
				ti, bi := top.ok && ink(top), bot.ok && ink(bot)
				switch {
				case ti && bi:
					c.r = '█'
				case ti:
					c.r = '▀'
				case bi:
					c.r = '▄'
				case top.mark || bot.mark:
					c.r = '░'
				default:
					c.r = ' '
				}
				continue
			}
			switch {
			case top.ok && bot.ok:
				c.r, c.fg, c.bg = '▀', top.c, bot.c
			case top.ok:
				c.r, c.fg = '▀', top.c
			case bot.ok:
				c.r, c.fg = '▄', bot.c
			}
		}
	}
}

// drawNumbers writes each value right-aligned in a cell of cellW columns
// on its colour (dimmed so that the digits stay readable), under the
// column labels and after the row labels if the image has them; the Mark
// is bracketed, [ before its first column and ] after its last, in every
// marked row.
func drawNumbers(b *buffer, x0, y0 int, im sims.Image, s scale, cellW, cellH int, o Options) {
	rl, cl := numberLabels(im)
	mid := (cellH - 1) / 2 // the row of a cell its number is on
	if cl > 0 {
		for i, l := range im.ColLabels {
			l = ansi.Truncate(l, cellW-1, "")
			b.text(x0+rl+i*cellW+cellW-ansi.StringWidth(l), y0, l, axisColor, false)
		}
	}
	if rl > 0 {
		for j, l := range im.RowLabels {
			b.text(x0+rl-1-ansi.StringWidth(l), y0+cl+j*cellH+mid, l, axisColor, false)
		}
	}
	x0, y0 = x0+rl, y0+cl
	for j := range im.H {
		for i := range im.W {
			v := im.Pix[j*im.W+i]
			t := imageNumber(v)
			x, y := x0+i*cellW, y0+j*cellH
			bg := s.color(v, numberTone, true, o)
			if math.IsNaN(v) { // not there yet: a dot on the terminal's background
				t, bg = "·", 0
			}
			fg := rgb(0)
			bold := false
			if marked(im, i, j) {
				bg = blend(bg, markInk, 0.5)
				bold = true
			}
			// Right-aligned in a cell of one row (a column of numbers reads
			// by its digits), centred in a larger one.
			pad := max(0, cellW-1-ansi.StringWidth(t))
			if cellH > 1 {
				pad = (pad + 1) / 2
			}
			b.text(x+1, y+mid, strings.Repeat(" ", pad)+t, fg, bold)
			if !o.Mono {
				for r := range cellH {
					for k := 1; k < cellW; k++ {
						if c := b.at(x+k, y+r); c != nil {
							c.bg = bg
						}
					}
				}
			}
			if marked(im, i, j) {
				for r := range cellH {
					if i == im.Mark.X0 {
						b.text(x, y+r, "[", markInk, true)
					}
					if i == im.Mark.X1-1 {
						b.text(x+cellW, y+r, "]", markInk, true)
					}
				}
			}
		}
	}
}
