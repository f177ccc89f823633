package chart

import (
	"math"

	"github.com/thelab/lab/sims"
)

// A colour bar is the key to a heat map or an image: a vertical strip of
// its scale, the top of the range at the top, with the range's ends in
// data units beside the strip's first and last rows (and the middle of a
// diverging scale beside its middle row when the strip has room). It
// takes colorBarGap + 2 + the widest label columns right of the map, and
// is drawn only where the map keeps its room (see canvasLayout and
// imageChart).

// colorBarGap is the blank columns between a map and its colour bar.
const colorBarGap = 1

// barLabels are the numbers a colour bar prints, top to bottom: the
// scale's end values and, for a diverging scale, its middle ("" when
// not shown).
func barLabels(s scale, h int) (top, mid, bot string) {
	// An end at rounding level of the other reads 0 (kl-fit's densities
	// from 3.4e-37).
	end := func(x, other float64) string {
		if sims.AtRounding(x, math.Abs(other)) {
			return "0"
		}
		return num(x)
	}
	top, bot = end(s.hi, s.lo), end(s.lo, s.hi)
	if s.diverging() && h >= 5 {
		mid = num(s.lo/2 + s.hi/2)
	}
	return top, mid, bot
}

// colorBarWidth is the columns a colour bar of h rows takes, its gap
// included.
func colorBarWidth(s scale, h int) int {
	top, mid, bot := barLabels(s, h)
	return colorBarGap + 2 + max(Width(top), Width(mid), Width(bot))
}

// colorBar draws the bar of scale s in rows y..y+h−1 from column x (its
// gap first). look gives the cell that a map draws for the values whose
// places on the scale (0 bottom, 1 top) are tTop and tBot in its upper
// and lower half.
func colorBar(b *buffer, x, y, h int, s scale, look func(tTop, tBot float64) cell) {
	x += colorBarGap
	for r := range h {
		// The strip's 2h half rows, from the top: half k stands for
		// the value at the middle of its share of the range.
		t := func(k int) float64 { return 1 - (float64(k)+0.5)/float64(2*h) }
		if c := b.at(x, y+r); c != nil {
			*c = look(t(2*r), t(2*r+1))
		}
	}
	top, mid, bot := barLabels(s, h)
	b.text(x+2, y, top, axisColor, false)
	b.text(x+2, y+h-1, bot, axisColor, false)
	if mid != "" {
		b.text(x+2, y+h/2, mid, axisColor, false)
	}
}

// valueAt is the value at place t ∈ [0, 1] of the scale's range.
func (s scale) valueAt(t float64) float64 { return s.lo + t*(s.hi-s.lo) }

// shadeAt is the monochrome shade glyph of place t on a scale.
func shadeAt(t float64) rune {
	return shades[int(math.Round(clamp01(t)*float64(len(shades)-1)))]
}
