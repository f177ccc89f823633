package chart

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// labelled returns an axis's labels from the top row down, "" for a row
// without one.
func labelled(ax yScale) []string {
	out := make([]string, ax.rows+1)
	for i := range out {
		out[i] = ax.format(ax.hi - float64(i)*(ax.hi-ax.lo)/float64(ax.rows))
	}
	return out
}

// TestNiceAxis: y ranges → the labels of the rows, top down. Labels are
// round numbers to the step's precision; the range is widened to whole
// rows; whole-number data keep whole labels.
func TestNiceAxis(t *testing.T) {
	for _, tt := range []struct {
		name    string
		lo, hi  float64
		rows    int
		minStep float64
		want    string // labels joined by "|"
	}{
		{"epsilon 0…6.886", 0, 6.886, 4, 0, "8|6|4|2|0"},
		{"accuracy", 0, 1, 4, 0, "1.0||0.5||0"},
		{"-2.999…3", -2.9994, 3, 6, 0, "3|2|1|0|-1|-2|-3"},
		{"adv-train accuracy", 0.15, 0.425, 6, 0, "0.45|0.40|0.35|0.30|0.25|0.20|0.15"},
		{"tall: a label every third row", 0.15, 0.425, 10, 0, "||0.4|||0.3|||0.2||"},
		{"converged", -2.931, -2.9309848, 7, 0, "|-2.930985||-2.930990||-2.930995||-2.931000"},
		{"counts", 0, 390, 11, 1, "|400|||||200|||||0"},
		{"mistakes", 0, 3, 6, 1, "3||2||1||0"},
		{"decades 0.03…1 (log)", -1.5, 0, 11, 1, "0|||||-1|||||-2|"},
		{"decades 1e-11…42 (log)", -11, 1.63, 12, 1, "|||0||||-5||||-10|"},
		// sinkhorn's marginal error in a dashboard pane: whole 5-decade rows
		// left the data 2 of the 4 (1e+10 … 1e-10); a 10-decade label every
		// third row fills 3.
		{"decades 7.6e-10…1.6, short (log)", -9.117, 0.21, 4, 1, "|0|||-10"},
		// bbvi's variances from 1 to 1.3e5 in five rows: the rows the data
		// leave go above and below them, not all above (1e+06…1e+10 empty)
		{"decades 1…1.3e5, short (log)", 0, 5.11, 5, 1, "8|6|4|2|0|-2"},
		{"a constant 1, five rows", 0, 2, 5, 1, "|2||1||0"},
		{"a constant 1, seven rows", 0, 2, 7, 1, "|2|||1|||0"},
		{"thousandths", 0.0012, 0.0047, 4, 0, "0.005|0.004|0.003|0.002|0.001"},
		{"small", 1.2e-5, 4.7e-5, 4, 0, "5e-05|4e-05|3e-05|2e-05|1e-05"},
		{"large", 120000, 180000, 6, 0, "1.8e+05|1.7e+05|1.6e+05|1.5e+05|1.4e+05|1.3e+05|1.2e+05"},
	} {
		got := strings.Join(labelled(niceAxis(tt.lo, tt.hi, tt.rows, tt.minStep, strings.Contains(tt.name, "(log)"), math.Inf(1))), "|")
		if got != tt.want {
			t.Errorf("%s: [%g, %g] in %d rows: labels %q, want %q", tt.name, tt.lo, tt.hi, tt.rows, got, tt.want)
		}
	}
}

// decimals is the number of digits after the point in a plain label.
func decimals(label string) int {
	if _, frac, ok := strings.Cut(label, "."); ok && !strings.ContainsAny(label, "e") {
		return len(frac)
	}
	return 0
}

// TestNiceAxisProperties: over random ranges and heights, the axis covers
// the data in exactly the rows given, has a label, and every label is its
// row's value printed to no more decimals than the step has: never
// rounding noise.
func TestNiceAxisProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		scale := math.Pow(10, float64(rng.IntN(9)-4))
		lo := (rng.Float64()*2 - 1) * scale * 10
		hi := lo + rng.Float64()*scale + scale*1e-3
		rows := 1 + rng.IntN(30)
		ax := niceAxis(lo, hi, rows, 0, false, math.Inf(1))
		if ax.rows != rows || ax.lo > lo+1e-12*scale || ax.hi < hi-1e-12*scale {
			t.Fatalf("[%g, %g] in %d rows: axis [%g, %g] in %d rows", lo, hi, rows, ax.lo, ax.hi, ax.rows)
		}
		step := decimals(tickFormat(ax.step, 1)(ax.step))
		n := 0
		for i, label := range labelled(ax) {
			if label == "" {
				continue
			}
			n++
			v, err := strconv.ParseFloat(label, 64)
			row := ax.hi - float64(i)*(ax.hi-ax.lo)/float64(ax.rows)
			if err != nil || math.Abs(v-row) > 1e-6*ax.step+1e-12*math.Abs(row) {
				t.Fatalf("[%g, %g] in %d rows: row %d (%g) labelled %q", lo, hi, rows, i, row, label)
			}
			if math.Abs(row) < 1e5 && math.Abs(row) >= 1e-3 && decimals(label) > step {
				t.Fatalf("[%g, %g] in %d rows: label %q has more decimals than the step %g", lo, hi, rows, label, ax.step)
			}
		}
		if n == 0 {
			t.Fatalf("[%g, %g] in %d rows: no label: %q", lo, hi, rows, labelled(ax))
		}
	}
}

// TestAxisTicks: x ranges over a width → the tick labels, and each on the
// column of its value.
func TestAxisTicks(t *testing.T) {
	for _, tt := range []struct {
		name    string
		lo, hi  float64
		n       int
		minStep float64
		want    string
	}{
		{"histogram 0…6.499", 0, 6.499, 30, 0, "0 2 4 6"},
		{"histogram, wide", 0, 6.499, 70, 0, "0 1 2 3 4 5 6"},
		{"steps 0…30", 0, 30, 30, 1, "0 10 20 30"},
		{"steps 0…6", 0, 6, 60, 1, "0 1 2 3 4 5 6"},
		{"steps 1…12", 1, 12, 66, 1, "2 4 6 8 10 12"},
		{"symmetric", -3.0004, 3.0004, 40, 0, "-2 0 2"},
		{"unit time", 0, 1, 40, 0, "0 0.5 1.0"},
		{"unit time, wide", 0, 1, 80, 0, "0 0.2 0.4 0.6 0.8 1.0"},
		{"narrow", 0.13, 0.19, 10, 0, "0.13 0.19"},
		{"one round tick has no scale: the ends", 1, 392, 19, 1, "1 392"},
		{"log₂ m", 2, 3.459, 100, 0, "2.0 2.2 2.4 2.6 2.8 3.0 3.2 3.4"},
	} {
		col := func(v float64) int { return int(math.Round((v - tt.lo) / (tt.hi - tt.lo) * float64(tt.n-1))) }
		ticks := axisTicks(tt.lo, tt.hi, tt.n, col, -4, tt.n+2, tt.minStep)
		var labels []string
		for _, tk := range ticks {
			labels = append(labels, tk.label)
			v, _ := strconv.ParseFloat(tk.label, 64)
			if c := col(v); c != tk.col {
				t.Errorf("%s: %q at column %d, its value's column is %d", tt.name, tk.label, tk.col, c)
			}
		}
		if got := strings.Join(labels, " "); got != tt.want {
			t.Errorf("%s: [%g, %g] over %d columns: ticks %q, want %q", tt.name, tt.lo, tt.hi, tt.n, got, tt.want)
		}
		row := tickRow(ticks, -4, tt.n+2)
		if got := strings.Join(strings.Fields(row), " "); got != tt.want {
			t.Errorf("%s: row %q does not show %q", tt.name, row, tt.want)
		}
	}
}

// TestChartsShowRoundTicks: the charts draw the round ticks: a histogram
// over 0…6.499 and a line chart from -2.9994 to 3 over steps 0…30.
func TestChartsShowRoundTicks(t *testing.T) {
	h := sims.HistChart{Title: "norms", Lo: 0, Hi: 6.499, Density: []float64{0.1, 0.3, 0.2, 0.1}}
	lines := RenderLines(h, 36, 10, Options{Mono: true})
	if got := strings.Join(strings.Fields(ansi.Strip(lines[len(lines)-2])), " "); got != "0 2 4 6" {
		t.Errorf("histogram 0…6.499: x ticks %q, want \"0 2 4 6\"", got)
	}
	y := make([]float64, 31)
	for i := range y {
		y[i] = -2.9994 + 5.9994*float64(i)/30
	}
	c := sims.LineChart{Title: "trace", Series: []sims.Series{{Name: "x", Y: y}}, X0: 0, X1: 30}
	lines = RenderLines(c, 40, 11, Options{Mono: true})
	if got := strings.Join(yTicks(lines), " "); got != "3 2 1 0 -1 -2 -3" {
		t.Errorf("line chart -2.9994…3: y ticks %q, want \"3 2 1 0 -1 -2 -3\"", got)
	}
	if got := strings.Join(strings.Fields(ansi.Strip(lines[len(lines)-2])), " "); got != "0 10 20 30" {
		t.Errorf("line chart over steps 0…30: x ticks %q, want \"0 10 20 30\"\n%s", got, ansi.Strip(strings.Join(lines, "\n")))
	}
}

// TestStepAxisIsWhole: a chart of two points at steps 1 and 2 labels its
// x axis 1 and 2, never 1.5 (issue 13.2: integer quantities get integer
// ticks), while a continuous 0…1 axis of many points keeps its halves.
func TestStepAxisIsWhole(t *testing.T) {
	for _, tt := range []struct {
		name   string
		y      []float64
		x0, x1 float64
		want   string
	}{
		{"steps 1, 2", []float64{5, 4}, 1, 2, "1 2"},
		{"steps 1, 3, 5", []float64{5, 4, 3}, 1, 5, "2 4"},
		{"continuous 0…1", make([]float64, 101), 0, 1, "0 0.5 1.0"},
	} {
		c := sims.LineChart{Title: "J", Series: []sims.Series{{Name: "J", Y: tt.y}}, X0: tt.x0, X1: tt.x1}
		lines := RenderLines(c, 30, 12, Options{Mono: true})
		if got := strings.Join(strings.Fields(ansi.Strip(lines[len(lines)-2])), " "); got != tt.want {
			t.Errorf("%s: x ticks %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLogTicks: a log axis over decades is labelled at whole decades, in
// one style: plain within 0.001…10000, else scientific throughout.
func TestLogTicks(t *testing.T) {
	for _, tt := range []struct {
		name string
		y    []float64
		want string
	}{
		{"gaps", []float64{0.5, 0.05, 0.004, 0.002}, "1 0.1 0.01 0.001"},
		{"tiny", []float64{0.87, 7.1e-5}, "1e+00 1e-02 1e-04"},
	} {
		c := sims.LineChart{Title: tt.name, LogY: true, Series: []sims.Series{{Name: "y", Y: tt.y}}}
		if got := strings.Join(yTicks(RenderLines(c, 40, 14, Options{Mono: true})), " "); got != tt.want {
			t.Errorf("%s: ticks %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLogTicksUnderADecade (issue 26.8): a log axis spanning less than a
// decade is labelled at round values, 1, 2 or 5 × 10^k apart, on rows of
// their own (barycenter's read 1.00, 0.93, 0.87, …).
func TestLogTicksUnderADecade(t *testing.T) {
	for _, tt := range []struct {
		name string
		y    []float64
		want string
	}{
		{"f − f*", []float64{4.58, 4.5, 4.364}, "4.55 4.50 4.45 4.40"},
		{"barycenter", []float64{1, 0.95, 0.9, 0.87}, "1.00 0.95 0.90"},
		{"near a decade", []float64{1, 9}, "5 2 1"},
		// four rows (kl-flow at 80×24 read 5.7 4.5 3.5 2.8 2.2)
		{"short", []float64{5.7, 4.5, 3.5, 2.8, 2.2}, "5 4 3"},
	} {
		c := sims.LineChart{Title: tt.name, LogY: true, Series: []sims.Series{{Name: "y", Y: tt.y}}}
		h := 13
		if tt.name == "short" {
			h = 8
		}
		if got := strings.Join(yTicks(RenderLines(c, 40, h, Options{Mono: true})), " "); got != tt.want {
			t.Errorf("%s: ticks %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestFractionAxes: a rate's axis never passes 1 nor runs below 0 (hmc's
// acceptance of 1 read 1, 0, -1; logreg's accuracy axis ran to 1.5,
// dp-sgd's, moved under 1, to -0.5).
func TestFractionAxes(t *testing.T) {
	for _, tt := range []struct {
		name string
		y    []float64
		h    int
	}{
		{"constant 1", []float64{1, 1, 1}, 7},
		{"constant 1, tall", []float64{1, 1, 1}, 14},
		{"rising to 1", []float64{0.5, 0.8, 0.95, 1, 1}, 8},
		{"constant 0.9", []float64{0.9, 0.9}, 8},
		{"0 to 1, short", []float64{0, 0.3, 1}, 6},
		{"0.1 to 0.9", []float64{0.1, 0.5, 0.9}, 7},
		{"0.12 to 0.97", []float64{0.12, 0.97}, 9},
	} {
		c := sims.LineChart{Title: tt.name, Fraction: true, Series: []sims.Series{{Name: "rate", Y: tt.y}}}
		for _, tick := range yTicks(RenderLines(c, 40, tt.h, Options{Mono: true})) {
			v, err := strconv.ParseFloat(tick, 64)
			if err != nil || v > 1 || v < 0 {
				t.Errorf("%s: tick %q outside [0, 1]", tt.name, tick)
			}
		}
	}
}
