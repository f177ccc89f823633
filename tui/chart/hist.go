package chart

import (
	"fmt"
	"math"

	"github.com/thelab/lab/sims"
)

// lowerBlocks[i] fills i eighths of a cell from the bottom.
var lowerBlocks = []rune{' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'}

// histChart draws density bars on equal bins with exact curves over them.
func histChart(c sims.HistChart, w, h int, o Options) []string {
	b := newBuffer(w, h, o.Mono)
	titleLine(b, 0, c.Title, "(density)")
	nb := len(c.Density)
	if nb == 0 || !(c.Hi > c.Lo) {
		b.text(0, 1, "no samples yet", axisColor, false)
		return b.lines()
	}
	ymax := 0.0
	for _, d := range c.Density {
		ymax = math.Max(ymax, d)
	}
	for _, cu := range c.Curves {
		for _, y := range cu.Y {
			ymax = math.Max(ymax, y)
		}
	}
	if !(ymax > 0) || math.IsInf(ymax, 0) {
		ymax = 1
	}
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
		bin := int((xAt(float64(col)+0.5) - c.Lo) / (c.Hi - c.Lo) * float64(nb))
		bin = max(0, min(nb-1, bin))
		eighths := int(math.Round(c.Density[bin] / ymax * float64(ph*8)))
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
	// Curves: braille dots (two per column, four per row) in colour; a '*'
	// per column in mono. A curve never erases a bar: over a bar's cell the
	// colour keeps the bar as the background (a partial cell a dimmer tint
	// of it), and mono draws '◘' on a full block and nothing on a partial
	// one.
	barTint := blend(barInk, heatShadow, 0.45)
	for k, cu := range c.Curves {
		ink := classColor(cu.Class)
		if cu.Class == 0 {
			ink = classColor(1 + k)
		}
		sub := 2
		if o.Mono {
			sub = 1
		}
		for sc := 0; sc < pw*sub; sc++ {
			y, ok := interp(cu.X, cu.Y, xAt((float64(sc)+0.5)/float64(sub)))
			if !ok {
				continue
			}
			pos := y / ymax * float64(ph*4) // in quarter rows from the bottom
			row := int(pos / 4)
			if row >= ph || pos < 0 {
				continue
			}
			cell := b.at(px0+sc/sub, ph-row)
			full := cell.bg == barInk || cell.r == '█'
			partial := !full && cell.fg == barInk && cell.r != ' '
			if o.Mono {
				switch {
				case full:
					cell.r = '◘'
				case !partial:
					cell.r, cell.bold = '*', true
				}
				continue
			}
			if partial {
				cell.bg = barTint
			}
			sub4 := 3 - min(3, int(pos)-4*row) // braille rows count down
			bits := uint8(0)
			if cell.r >= 0x2800 && cell.r <= 0x28FF {
				bits = uint8(cell.r - 0x2800)
			}
			cell.r = rune(0x2800 + int(bits|brailleBit[sub4][sc%2]))
			cell.fg = ink
		}
	}
	// x axis labels and legend.
	// Ticks at round values, each on the column of its bin.
	col := func(x float64) int { return max(0, min(pw-1, int((x-c.Lo)/(c.Hi-c.Lo)*float64(pw)))) }
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
			g = '*'
		}
		class := cu.Class
		if class == 0 {
			class = 1 + k
		}
		legend = append(legend, legendItem{glyph: g, class: class, label: cu.Name})
	}
	lines := b.lines()
	lines[h-1] = legendLine(legend, c.XLabel, w, o)
	return lines
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
