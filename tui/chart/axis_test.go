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
			if mono && strings.ContainsAny(s, "*") && y == len(plot)-1 && !strings.ContainsAny(s, "▁▂▃▄▅▆▇█◘") {
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
