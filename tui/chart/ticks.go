package chart

import (
	"math"
	"strconv"
)

// Ticks. Every axis of a chart is labelled the same way: only at multiples
// of a round step s = 1, 2 or 5 × 10^k, each printed to the precision s
// needs (tickFormat), so a label is never rounding noise (6.5, not 6.499;
// -3, not -2.999). An axis of whole numbers takes steps of at least 1.
// Where the chart places the ticks itself (x axes, a histogram's bins) a
// label sits on the column of its value (axisTicks); where rows are the
// ticks (a line chart's y axis) the range is widened to whole rows of a
// fraction s/m of the step, labelled every m rows, m at most half the
// rows (niceAxis).
//
// An axis is drawn over any float64 data without its work depending on
// their values: it spans finite values within ±axisLimit only (what lies
// beyond is off scale, and the chart says so), a range too narrow to tell
// its ends apart (narrow) is a constant on a y axis and has no ticks on
// an x axis, and every loop over steps or ticks has a bound of its own
// (maxSteps, the ticks a width holds), so a range of 1e308 or of 5e-324
// can neither spin nor allocate.

// axisLimit is the largest magnitude an axis reaches. Finite values
// beyond it (a diverged chain at 1e305) are off scale: drawn at the edge,
// counted in the title. Below it an axis's arithmetic (its span, ten times
// that, the next round step) cannot overflow.
const axisLimit = 1e300

// minSpan is the narrowest linear range an axis spans: below it a round
// step would be a denormal, or zero.
const minSpan = 1e-300

// narrow reports whether [lo, hi] is too narrow for an axis to tell its
// ends apart: narrower than floor, or than a billionth of its size (tick
// labels print at most 9 digits, and a tick index past 2⁵³ would stop
// counting). A narrow range is drawn as a constant.
func narrow(lo, hi, floor float64) bool {
	span := hi - lo
	return !(span >= floor) || !(span > math.Max(math.Abs(lo), math.Abs(hi))*1e-9)
}

// onAxis reports whether [lo, hi] can be an axis: finite, increasing,
// within ±axisLimit and not narrow.
func onAxis(lo, hi float64) bool {
	return math.Abs(lo) <= axisLimit && math.Abs(hi) <= axisLimit && !narrow(lo, hi, minSpan)
}

// maxSteps bounds the round steps an axis tries, 21 decades' worth: far
// more than the 10 × rows that separate its first and last candidates.
const maxSteps = 64

// stepAtLeast is the smallest round step (1, 2 or 5 × 10^k) of at least
// x, and at least minSpan, so that it is never a denormal or zero.
func stepAtLeast(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1
	}
	x = math.Max(x, minSpan)
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if s := m * p; s >= x*(1-1e-9) {
			return s
		}
	}
	return 10 * p
}

// nextStep is the round step after s.
func nextStep(s float64) float64 { return stepAtLeast(s * 1.5) }

// onStep reports whether v is a whole multiple k of s (within rounding) and
// returns k·s, the multiple without the rounding.
func onStep(v, s float64) (float64, bool) {
	k := math.Round(v / s)
	return k * s, math.Abs(v/s-k) < 1e-6
}

// tickFormat prints multiples of step s on an axis whose values reach
// maxAbs in size: fixed decimals, as many as s has (0.25 → 2, 5 → 0); in
// scientific form, with the mantissa digits s needs, when the values are
// at least 1e5 or below 1e-3. Zero prints as "0".
func tickFormat(s, maxAbs float64) func(float64) string {
	exp := int(math.Floor(math.Log10(s) + 1e-9))
	if maxAbs >= 1e5 || maxAbs > 0 && maxAbs < 1e-3 {
		digits := max(0, min(8, int(math.Floor(math.Log10(maxAbs)+1e-9))-exp))
		return func(v float64) string {
			if math.Abs(v) < s*1e-6 {
				return "0"
			}
			return strconv.FormatFloat(v, 'e', digits, 64)
		}
	}
	decimals := max(0, -exp)
	return func(v float64) string {
		if math.Abs(v) < s*1e-6 {
			return "0"
		}
		return strconv.FormatFloat(v, 'f', decimals, 64)
	}
}

// tick is one label of an axis the chart draws itself: its column and text.
type tick struct {
	col   int
	label string
}

// tickGap is the fewest blank cells between neighbouring tick labels.
const tickGap = 2

// axisTicks labels an axis from lo to hi drawn over columns 0..n-1, col
// giving the column of a value, with labels centred on their columns and
// kept within [left, right) (left ≤ 0 and right ≥ n let them reach past
// the ends). It takes the smallest round step (at least minStep) whose
// labels stand tickGap apart, at most one per 8 columns (and at least 4
// allowed). An axis with room for fewer than two round ticks gets its two
// ends instead, printed to the precision that tells them apart (or the
// first end alone). A range that cannot be an axis (onAxis) gets none.
func axisTicks(lo, hi float64, n int, col func(float64) int, left, right int, minStep float64) []tick {
	if n <= 0 || !onAxis(lo, hi) {
		return nil
	}
	maxAbs := math.Max(math.Abs(lo), math.Abs(hi))
	most := max(4, n/8)
	s := stepAtLeast(math.Max((hi-lo)/float64(most+1), minStep))
	for range maxSteps {
		if s > 10*(hi-lo)+minStep {
			break
		}
		format := tickFormat(s, maxAbs)
		// At most most+1 of them: one more says the step is too fine.
		var ticks []tick
		first := math.Ceil(lo/s - 1e-9)
		for k := range most + 2 {
			v := (first + float64(k)) * s
			if v > hi+s*1e-9 {
				break
			}
			ticks = append(ticks, tick{col(v), format(v)})
		}
		if len(ticks) < 2 {
			break
		}
		if len(ticks) <= most && placeTicks(ticks, left, right) != nil {
			return ticks
		}
		s = nextStep(s)
	}
	// The ends, to the precision of a step that tells them apart.
	format := tickFormat(stepAtLeast((hi-lo)/10), maxAbs)
	ticks := []tick{{col(lo), format(lo)}, {col(hi), format(hi)}}
	for n := len(ticks); n > 0; n-- {
		if placeTicks(ticks[:n], left, right) != nil {
			return ticks[:n]
		}
	}
	return nil
}

// placeTicks returns where each label starts: centred on its column (its
// middle cell on it), moved inside [left, right) at the ends; nil when two
// labels come closer than tickGap.
func placeTicks(ticks []tick, left, right int) []int {
	at := make([]int, len(ticks))
	end := math.MinInt
	for i, t := range ticks {
		n := len([]rune(t.label))
		x := max(left, min(right-n, t.col-n/2))
		if x < left || x < end+tickGap {
			return nil
		}
		at[i], end = x, x+n
	}
	return at
}

// tickRow is the row of labels over columns left..right-1, as plain text
// (cell left first); blank when they cannot be placed.
func tickRow(ticks []tick, left, right int) string {
	row := make([]rune, max(0, right-left))
	for i := range row {
		row[i] = ' '
	}
	at := placeTicks(ticks, left, right)
	for i, t := range ticks {
		if at != nil {
			copy(row[at[i]-left:], []rune(t.label))
		}
	}
	return string(row)
}

// niceAxis is a line chart's y axis over [lo, hi] (a range that is not
// narrow, within about ±axisLimit) in rows row intervals: rows of a
// height d = s/m for a round step s (at least minStep), the range widened
// to whole rows and then to all the rows there are, and a label on every
// m-th row (the multiples of s), m at most half the rows so that labels
// are never only the ends; on a short log axis (decades) of 4 or 5 rows
// labelled every ten decades m may be 3, which lets a pane hold ten
// decades in 3 rows rather than 20 in 4 (where fewer decades or a linear
// axis read better with a label a row). Of the choices it takes the one
// whose data fill the most rows, a fill counted at 3/4 when it has fewer
// labels than about one per four rows (2 to 6 in all) and at 2/5 with a
// single label; then the one whose labels come closest to one a row on
// short axes, one every other row from 8 rows, every third from 16, ….
func niceAxis(lo, hi float64, rows int, minStep float64, decades bool, top float64) yScale {
	span := hi - lo
	want := max(2, min(6, rows/4+1))
	// Among choices that fill alike: a label every row up to 8 rows, every
	// other row up to 16, every third up to 24, …
	target := float64(rows)/float64(1+rows/8) + 1
	type choice struct {
		s, d, a, b float64 // step, row height, first and last row (in rows of d)
		labels     int
	}
	// Should no choice fit (a range across zero in one row), the axis is
	// one round step or more, labelled at its ends.
	s0 := stepAtLeast(math.Max(span, minStep))
	best := choice{s: s0, d: s0 * (math.Ceil(hi/s0) - math.Floor(lo/s0)) / float64(rows), a: math.Floor(lo / s0), b: math.Ceil(hi / s0)}
	best.a, best.b = best.a*s0/best.d, best.b*s0/best.d
	bestScore := -1.0
	for i, s := 0, stepAtLeast(math.Max(span/float64(rows), minStep)); i < maxSteps && s <= 10*span+minStep; i, s = i+1, nextStep(s) {
		every := max(1, rows/2)
		if decades && s >= 10 {
			every = max(every, min(3, rows-1))
		}
		for m := 1; m <= every; m++ {
			d := s / float64(m)
			a, b := math.Floor(lo/d+1e-9), math.Ceil(hi/d-1e-9)
			if b-a > float64(rows) {
				break // finer rows only need more of them
			}
			b = math.Max(b, a+1)
			labels := int(math.Floor(b/float64(m)+1e-9) - math.Ceil(a/float64(m)-1e-9) + 1)
			score := span / d // the rows the data fill
			switch {
			case labels < 1:
				continue
			case labels == 1:
				score *= 0.4
			case labels < want:
				score *= 0.75
			}
			closer := math.Abs(float64(labels)-target) < math.Abs(float64(best.labels)-target)
			if score > bestScore*(1+1e-9) || score > bestScore*(1-1e-9) && closer {
				best, bestScore = choice{s, d, a, b, labels}, score
			}
		}
	}
	// The rows left over go below and above the data, half each, but not
	// below zero for data that are not negative on a linear axis (a log
	// axis's 0 is 1: bbvi's variances from 1 to 1e5 left 1e6…1e10
	// empty), or above it for data that are not positive (a probability's
	// log axis tops at 1), and never above top.
	extra := float64(rows) - (best.b - best.a)
	below := math.Floor(extra / 2)
	switch {
	case lo >= 0 && !decades && best.a-below < 0:
		below = math.Max(0, best.a)
	case hi <= 0 && best.b+extra-below > 0:
		below = extra - math.Max(0, -best.b)
	}
	below = math.Max(0, math.Min(extra, below))
	// Nor above top (a fraction's 1): those rows go below instead, and
	// when they may go neither way (data from 0 to 1 in 3 rows of 0.5)
	// the axis is exactly 0 to top, its rows off the step.
	if lim := math.Floor(top/best.d + 1e-9); best.b+extra-below > lim {
		below = math.Min(extra, extra-math.Max(0, lim-best.b))
		if lo >= 0 && best.a-below < 0 {
			best.d, best.a, best.b, extra, below = top/float64(rows), 0, float64(rows), 0, 0
		}
	}
	best.a, best.b = best.a-below, best.b+extra-below
	s := best.s
	format := tickFormat(s, math.Max(math.Abs(best.a*best.d), math.Abs(best.b*best.d)))
	return yScale{
		lo: best.a * best.d, hi: best.b * best.d, rows: rows, step: s,
		format: func(v float64) string {
			if k, ok := onStep(v, s); ok {
				return format(k)
			}
			return ""
		},
	}
}
