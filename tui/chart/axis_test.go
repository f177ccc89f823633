package chart

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// yTicks returns the y labels of a rendered line chart.
func yTicks(lines []string) []string {
	var out []string
	re := regexp.MustCompile(`^\s*(\S+)[┤┼]`)
	for _, l := range lines {
		if m := re.FindStringSubmatch(ansi.Strip(l)); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestAxesTellTheTruth: integer data get integer ticks only, rounding
// noise never becomes a tick, a constant gets a range around it.
func TestAxesTellTheTruth(t *testing.T) {
	mistakes := []float64{0, 1, 1, 2, 2, 2, 3, 3, 3, 3}
	noisy := []float64{1, 0.5, 8.9e-16, -0.5, -1}
	for _, tt := range []struct {
		name string
		y    []float64
		h    int
		ok   func(tick string) bool
		min  int // at least this many ticks
	}{
		{"mistakes", mistakes, 14, func(s string) bool { _, err := strconv.Atoi(s); return err == nil }, 4},
		{"mistakes, short", mistakes, 7, func(s string) bool { _, err := strconv.Atoi(s); return err == nil }, 2},
		{"counts", []float64{0, 40, 170, 390}, 12, func(s string) bool { _, err := strconv.Atoi(s); return err == nil }, 3},
		{"noise", noisy, 9, func(s string) bool { return !strings.Contains(s, "e-1") }, 3},
		{"constant", []float64{0.25, 0.25, 0.25}, 9, func(s string) bool { return s != "" }, 3},
		{"constant integer", []float64{3, 3, 3}, 9, func(s string) bool { _, err := strconv.Atoi(s); return err == nil }, 2},
	} {
		c := sims.LineChart{Title: tt.name, Series: []sims.Series{{Name: "y", Y: tt.y}}}
		ticks := yTicks(RenderLines(c, 40, tt.h, Options{Mono: true}))
		if len(ticks) < tt.min {
			t.Errorf("%s: ticks %q, want at least %d", tt.name, ticks, tt.min)
		}
		for _, tick := range ticks {
			if !tt.ok(tick) {
				t.Errorf("%s: tick %q in %q", tt.name, tick, ticks)
			}
		}
	}
	// Steps 0..6 on the x axis: whole-number ticks.
	c := sims.LineChart{Title: "loss", Series: []sims.Series{{Name: "y", Y: []float64{3, 2, 1.5, 1.2, 1.1, 1.05, 1}}}, X0: 0, X1: 6}
	lines := RenderLines(c, 60, 12, Options{Mono: true})
	xl := strings.Fields(ansi.Strip(lines[len(lines)-2]))
	for _, s := range xl {
		if _, err := strconv.Atoi(s); err != nil {
			t.Errorf("x ticks of steps 0..6: %q", xl)
		}
	}
}

// TestHistogramBarsSurviveTheCurve: where the density curve crosses a
// bar, the bar's cell keeps its ink (its background in colour; a block
// glyph in mono).
func TestHistogramBarsSurviveTheCurve(t *testing.T) {
	density := make([]float64, 20)
	xs, ys := make([]float64, 41), make([]float64, 41)
	for i := range density {
		density[i] = 0.05 // flat, low: a tail of partial bars
	}
	for i := range xs {
		xs[i], ys[i] = float64(i)/2, 0.05
	}
	c := sims.HistChart{Title: "tail", Lo: 0, Hi: 20, Density: density,
		Curves: []sims.Curve{{Name: "exact", X: xs, Y: ys}}}
	density[5] = 0.5 // one tall bar, the curve across its body
	for _, mono := range []bool{false, true} {
		lines := RenderLines(c, 40, 12, Options{Mono: mono})
		plot := lines[1 : len(lines)-2]
		for y, l := range plot {
			s := ansi.Strip(l)
			if mono && strings.ContainsAny(s, "*") && y == len(plot)-1 && !strings.ContainsAny(s, "▁▂▃▄▅▆▇█") {
				t.Errorf("mono: the bottom row lost its bars to the curve: %q", s)
			}
		}
		if !mono {
			bottom := plot[len(plot)-1]
			if !strings.Contains(bottom, "48;2;") {
				t.Errorf("colour: the curve over the tail's partial bars left no bar tint: %q", bottom)
			}
		}
	}
}

// TestTicksOfATinyRangeDiffer: a curve that has converged spans a millionth
// of its value; its ticks still differ from row to row.
func TestTicksOfATinyRangeDiffer(t *testing.T) {
	y := []float64{-2.931, -2.93099, -2.930985, -2.9309848}
	c := sims.LineChart{Title: "log p", Series: []sims.Series{{Name: "y", Y: y}}}
	ticks := yTicks(RenderLines(c, 50, 10, Options{Mono: true}))
	seen := map[string]bool{}
	for _, tick := range ticks {
		if seen[tick] {
			t.Errorf("tick %q repeats: %q", tick, ticks)
		}
		seen[tick] = true
	}
}

// TestHistogramCurveIsOneStroke: a density curve is drawn as a line chart
// joins its points. A density rising to its cap at a singular end (x²'s at
// 0) shows as a stroke up the first column, not as the one dot of the
// column's middle; a ramp steeper than the plot is wide has one mark a row,
// and one shallower, one mark a column.
func TestHistogramCurveIsOneStroke(t *testing.T) {
	const w, h = 40, 16 // the plot: 38 columns (a 1-character axis label), 13 rows
	plotOf := func(c sims.HistChart) []string {
		lines := RenderLines(c, w, h, Options{Mono: true})
		var plot []string
		for _, l := range lines[1 : len(lines)-2] {
			plot = append(plot, []string(strings.SplitAfterN(ansi.Strip(l), "│", 2))[1])
		}
		return plot
	}
	marks := func(s string) int { return strings.Count(s, "*") }
	// The singular end: the curve's first point is its cap, 20× the rest.
	xs, ys := make([]float64, 201), make([]float64, 201)
	for i := range xs {
		xs[i], ys[i] = float64(i)/200, 0.05
	}
	ys[0] = 1
	spike := plotOf(sims.HistChart{Title: "spike", Lo: 0, Hi: 1, Density: make([]float64, 10),
		Curves: []sims.Curve{{Name: "exact", X: xs, Y: ys}}})
	for y, row := range spike[1 : len(spike)-1] { // below the scale's 5% headroom, above the flat rest
		if r := []rune(row); r[0] != '*' {
			t.Errorf("row %d of the spike: the first column is %q, not the curve's stroke:\n%s", y, r[0], strings.Join(spike, "\n"))
			break
		}
	}
	for _, tt := range []struct {
		name   string
		lo, hi float64 // the ramp's x range in [0, 1]
	}{
		{"steep", 0.3, 0.5}, // 13 rows over about 8 columns
		{"shallow", 0, 1},   // 13 rows over 38 columns
	} {
		xs := []float64{0, tt.lo, tt.hi, 1}
		ys := []float64{0, 0, 1, 1}
		plot := plotOf(sims.HistChart{Title: tt.name, Lo: 0, Hi: 1, Density: make([]float64, 10),
			Curves: []sims.Curve{{Name: "ramp", X: xs, Y: ys}}})
		if tt.name == "steep" {
			first, last := -1, -1 // the rows of the flat parts
			for y, row := range plot {
				if marks(row) > 0 {
					if first < 0 {
						first = y
					}
					last = y
				}
			}
			if last-first < len(plot)-3 {
				t.Fatalf("%s: the ramp spans rows %d–%d of %d:\n%s", tt.name, first, last, len(plot), strings.Join(plot, "\n"))
			}
			for y := first + 1; y < last; y++ {
				if marks(plot[y]) != 1 {
					t.Errorf("%s: row %d has %d marks, not one:\n%s", tt.name, y, marks(plot[y]), strings.Join(plot, "\n"))
				}
			}
			continue
		}
		for x := range len([]rune(plot[0])) {
			n := 0
			for _, row := range plot {
				if []rune(row)[x] == '*' {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: column %d has %d marks, not one:\n%s", tt.name, x, n, strings.Join(plot, "\n"))
			}
		}
	}
}
