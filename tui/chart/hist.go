package chart

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/thelab/lab/sims"
)

// lowerBlocks[i] fills i eighths of a cell from the bottom.
var lowerBlocks = []rune{' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'}

// histChart draws density bars on equal bins with exact curves over them.
// Its x range must be an axis (onAxis): one that is not finite, or beyond
// ±axisLimit, is said instead of drawn. A NaN density or curve point is
// not drawn; the density scale spans the finite ones up to axisLimit, and
// a bar or curve above it (+Inf) fills its column, counted in the title.
func histChart(c sims.HistChart, w, h int, o Options) []string {
	b := newBuffer(w, h, o.Mono)
	nb := len(c.Density)
	if nb == 0 || !(c.Hi > c.Lo) {
		titleLine(b, 0, c.Title, "(density)")
		b.text(0, 1, "no samples yet", axisColor, false)
		return b.lines()
	}
	if math.IsInf(c.Hi-c.Lo, 0) || math.Abs(c.Lo) > axisLimit || math.Abs(c.Hi) > axisLimit {
		titleLine(b, 0, c.Title, "(density)")
		b.text(0, 1, Clip("off scale: x "+rangeNum(c.Lo)+"…"+rangeNum(c.Hi), w), axisColor, false)
		return b.lines()
	}
	ymax := 0.0
	var off offScale
	take := func(y float64) {
		if y > axisLimit {
			off++
		} else if y > ymax {
			ymax = y
		}
	}
	for _, d := range c.Density {
		take(d)
	}
	for _, cu := range c.Curves {
		for _, y := range cu.Y {
			take(y)
		}
	}
	if ymax == 0 {
		ymax = 1
	}
	titleLine(b, 0, c.Title, strings.TrimSpace("(density) "+off.note()))
	// The top of the scale: 5% over the tallest, up to two significant
	// digits (a round label).
	ymax = roundUp(ymax*1.05, 2)
	top, bottom := significant(ymax, 2), "0"
	lw := max(len(top), len(bottom))
	px0, pw, ph := lw+1, w-lw-1, h-3
	b.text(0, 1, fmt.Sprintf("%*s", lw, top), axisColor, false)
	b.text(0, ph, fmt.Sprintf("%*s", lw, bottom), axisColor, false)
	for y := 1; y <= ph; y++ {
		b.text(lw, y, "│", axisColor, false)
	}
	barInk := classColor(0)
	xAt := func(col float64) float64 { return c.Lo + col/float64(pw)*(c.Hi-c.Lo) }
	// Bars: eighths of a cell, bottom-up.
	for col := 0; col < pw; col++ {
		d := columnDensity(c.Density, float64(col)/float64(pw), float64(col+1)/float64(pw))
		if !(d > 0) {
			continue // none, or NaN: no bar
		}
		eighths := int(math.Round(math.Min(1, d/ymax) * float64(ph*8)))
		for row := 0; row < ph && eighths > 0; row++ {
			cell := b.at(px0+col, ph-row)
			if eighths >= 8 {
				cell.r, cell.bg, cell.fg = '█', barInk, barInk
				if !o.Mono {
					cell.r = ' '
				}
			} else {
				cell.r, cell.fg = lowerBlocks[eighths], barInk
			}
			eighths -= 8
		}
	}
	// Curves: braille dots (two per column, four per row) in colour; the
	// curve's glyph (histGlyphs) per cell in mono. As a line chart joins its points, each sub-column
	// draws the levels the curve passes from its middle to the next one's,
	// the next one's own level left to it, so a steep curve (a density
	// rising to its cap at a singular end) stays one stroke, one mark thick.
	// A curve never erases a bar: over a bar's cell the colour keeps the bar
	// as the background (a partial cell a dimmer tint of it), and mono draws
	// nothing on a partial block and the curve's glyph on a full one, once a
	// column, where the curve crosses the column's middle.
	barTint := blend(barInk, heatShadow, 0.45)
	sub, unit := 2, 4 // sub-columns a column, levels a row
	if o.Mono {
		sub, unit = 1, 1
	}
	n, levels := pw*sub, ph*unit
	// level is the level of y: -1 below the plot (and for NaN), levels
	// above it.
	level := func(y float64) int { return clampInt(math.Floor(y/ymax*float64(levels)), -1, levels) }
	mid := func(sc int) float64 { return xAt((float64(sc) + 0.5) / float64(sub)) }
	classes := curveClasses(c.Curves)
	for k, cu := range c.Curves {
		ink, glyph := classColor(classes[k]), histGlyphs[k%len(histGlyphs)]
		for sc := range n {
			lo, hi := math.Inf(1), math.Inf(-1)
			take := func(a, b float64) {
				if l, h, ok := curveSpan(cu, a, b); ok {
					lo, hi = math.Min(lo, l), math.Max(hi, h)
				}
			}
			if sc == 0 {
				take(xAt(0), mid(0))
			}
			next := xAt(float64(n) / float64(sub)) // the last runs to the edge
			if sc+1 < n {
				next = mid(sc + 1)
			}
			take(mid(sc), next)
			if lo > hi {
				continue
			}
			la, ha := level(lo), level(hi)
			if y, ok := interp(cu.X, cu.Y, next); ok && sc+1 < n && ha > la {
				switch level(y) {
				case ha:
					ha--
				case la:
					la++
				}
			}
			y, _ := interp(cu.X, cu.Y, mid(sc))
			midRow := level(y) / unit
			for q := max(0, la); q <= min(levels-1, ha); q++ {
				row := q / unit
				cell := b.at(px0+sc/sub, ph-row)
				full := cell.bg == barInk || cell.r == '█'
				partial := !full && cell.fg == barInk && cell.r != ' '
				if o.Mono {
					switch {
					case full:
						if row == midRow { // one mark a column on the bars
							cell.r = glyph
						}
					case !partial:
						cell.r, cell.bold = glyph, true
					}
					continue
				}
				if partial {
					cell.bg = barTint
				}
				sub4 := 3 - (q - 4*row) // braille rows count down
				bits := uint8(0)
				if cell.r >= 0x2800 && cell.r <= 0x28FF {
					bits = uint8(cell.r - 0x2800)
				}
				cell.r = rune(0x2800 + int(bits|brailleBit[sub4][sc%2]))
				cell.fg = ink
			}
		}
	}
	// x axis labels and legend.
	// Ticks at round values, each on the column of its bin.
	col := func(x float64) int { return clampInt((x-c.Lo)/(c.Hi-c.Lo)*float64(pw), 0, pw-1) }
	ticks := axisTicks(c.Lo, c.Hi, pw, col, -px0, pw, 0)
	b.text(0, h-2, tickRow(ticks, -px0, pw), axisColor, false)
	label := c.Label
	if label == "" {
		label = "samples"
	}
	legend := []legendItem{{glyph: '█', class: 0, label: label}}
	for k, cu := range c.Curves {
		g := '⠒'
		if o.Mono {
			g = histGlyphs[k%len(histGlyphs)]
		}
		legend = append(legend, legendItem{glyph: g, class: classes[k], label: cu.Name})
	}
	lines := b.lines()
	lines[h-1] = legendLine(legend, c.XLabel, w, o)
	return lines
}

// histGlyphs mark a histogram's curves in monochrome, the k-th curve's
// the k-th, in the bars' gaps and once a column on a full bar.
var histGlyphs = []rune{'*', 'o', '+', 'x', '#'}

// curveClasses is the class each curve is drawn in: its own, except that
// the bars' class 0 is taken by the bars, so a curve of class 0 takes the
// first class that neither the bars nor another curve has (fdiv's q, class
// 0, took class 1 + its index, p's own class 1).
func curveClasses(curves []sims.Curve) []int {
	taken := map[int]bool{0: true}
	for _, cu := range curves {
		taken[cu.Class] = true
	}
	out := make([]int, len(curves))
	for k, cu := range curves {
		out[k] = cu.Class
		if cu.Class == 0 {
			free := 1
			for taken[free] && free < sims.MaxClasses-1 {
				free++
			}
			out[k], taken[free] = free, true
		}
	}
	return out
}

// curveSpan is the least and greatest value the piecewise-linear curve cu
// takes on [a, b]: at the ends that lie inside its range and at its knots
// between them. ok is false when the curve does not reach [a, b].
func curveSpan(cu sims.Curve, a, b float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	take := func(y float64) {
		if !math.IsNaN(y) {
			lo, hi, ok = math.Min(lo, y), math.Max(hi, y), true
		}
	}
	for _, x := range [2]float64{a, b} {
		if y, in := interp(cu.X, cu.Y, x); in {
			take(y)
		}
	}
	n := min(len(cu.X), len(cu.Y))
	i := sort.SearchFloat64s(cu.X[:n], a)
	for ; i < n && cu.X[i] <= b; i++ {
		take(cu.Y[i])
	}
	return lo, hi, ok
}

// roundUp rounds x > 0 up to sig significant digits.
func roundUp(x float64, sig int) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x))-float64(sig-1))
	return math.Ceil(x/p*(1-1e-12)) * p
}

// interp evaluates the piecewise-linear curve (xs, ys) at x; ok is false
// outside its range.
func interp(xs, ys []float64, x float64) (float64, bool) {
	n := min(len(xs), len(ys))
	if n == 0 || x < xs[0] || x > xs[n-1] {
		return 0, false
	}
	lo, hi := 0, n-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if xs[mid] <= x {
			lo = mid
		} else {
			hi = mid
		}
	}
	if xs[hi] == xs[lo] {
		return ys[lo], true
	}
	t := (x - xs[lo]) / (xs[hi] - xs[lo])
	return ys[lo] + t*(ys[hi]-ys[lo]), true
}

// columnDensity is the mean density over the part [u0, u1) of the range
// (0 to 1) that a column covers, each bin weighted by its overlap: with
// more bins than columns, a narrow spike between two columns' centres
// (bbvi's reparameterisation errors at 80×24) still shows, with its area;
// with fewer, the one bin under the column. NaN when a bin it covers has
// none.
func columnDensity(density []float64, u0, u1 float64) float64 {
	nb := float64(len(density))
	a, b := u0*nb, u1*nb
	sum, wsum := 0.0, 0.0
	for i := max(0, int(math.Floor(a))); i < len(density) && float64(i) < b; i++ {
		w := math.Min(b, float64(i+1)) - math.Max(a, float64(i))
		if w <= 0 {
			continue
		}
		sum += w * density[i]
		wsum += w
	}
	if wsum == 0 {
		return 0
	}
	return sum / wsum
}
