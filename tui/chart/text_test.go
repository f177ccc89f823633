package chart

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		s    string
		w    int
		want string
	}{
		{"ULA stationary", 20, "ULA stationary"},
		{"ULA stationary", 12, "ULA…"},
		{"never fell in 3 iterations", 22, "never fell in 3…"},
		{"staircase: log p and L", 12, "staircase…"},       // the colon goes with the cut
		{"row: true, column: predicted", 10, "row: true…"}, // so does a word's comma
		{"reparameterisation", 8, "reparam…"},              // one word longer than the room
		{"σ², μ₁ and π", 6, "σ², μ₁…"[:len("σ²")] + "…"},
		{"abc", 0, ""},
		{"abc", 1, "…"},
		// never end on a word that only leads to what was cut
		{"for time T = 3.25", 13, "for time T…"},
		{"trace of x (burn-in ends at 200)", 30, "trace of x (burn-in ends…"},
		{"1 (π 0.35)", 9, "1 (π…"},
		{"estimate ± 2 se", 12, "estimate…"},
		{"s·W₂(μ,ν) (under W₂(μ,ν))", 22, "s·W₂(μ,ν)…"},
		{"activation of unit 0 while ascending", 29, "activation of unit 0…"},
		{"(log scale)", 6, "(log…"}, // all there is: the bracket stays
	} {
		got := Clip(tt.s, tt.w)
		if got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.want)
		}
		if Width(got) > max(tt.w, 0) {
			t.Errorf("Clip(%q, %d) = %q is %d wide", tt.s, tt.w, got, Width(got))
		}
	}
}

func TestWrap(t *testing.T) {
	note := "monotonicity (2.37) holds: the log-likelihood never fell in 3 iterations"
	for _, w := range []int{17, 30, 80} {
		lines := Wrap(note, w)
		for _, l := range lines {
			if Width(l) > w {
				t.Errorf("width %d: line %q too wide", w, l)
			}
		}
		if got := strings.Join(lines, " "); got != note {
			t.Errorf("width %d: wrapped lines read %q", w, got)
		}
	}
	if got := Wrap("a verylongwordindeed b", 6); strings.Join(got, "|") != "a|verylo|ngword|indeed|b" {
		t.Errorf("a word longer than the line: %q", got)
	}
	// A wide rune in a one-cell line: a line of its own, never an endless
	// run of empty ones.
	if got := Wrap("漢字 x", 1); strings.Join(got, "|") != "漢|字|x" {
		t.Errorf("wide runes in one cell: %q", got)
	}
}

func TestFitItems(t *testing.T) {
	for _, tt := range []struct {
		widths []int
		w      int
		n      int
		more   string
	}{
		{[]int{5, 5, 5}, 19, 3, ""},   // 5+2+5+2+5 = 19
		{[]int{5, 5, 5}, 18, 2, "+1"}, // 5+2+5 and "  +1"
		{[]int{5, 5, 5}, 12, 1, "+2"},
		{[]int{5, 5, 5}, 3, 0, "+3"},
		{[]int{9}, 5, 0, "+1"},
	} {
		n, more := fitItems(tt.widths, 2, tt.w)
		if n != tt.n || more != tt.more {
			t.Errorf("fitItems(%v, %d) = %d, %q; want %d, %q", tt.widths, tt.w, n, more, tt.n, tt.more)
		}
	}
}

// TestLegendsDropWholeItems: a legend too long for its lines (one, or two
// where the chart has the rows: legendRows) shows whole entries and "+N",
// never part of a name.
func TestLegendsDropWholeItems(t *testing.T) {
	line := sims.LineChart{Title: "trace", Series: []sims.Series{
		{Name: "ULA stationary", Y: []float64{1, 2}}, {Name: "MALA stationary", Y: []float64{2, 1}, Class: 1},
		{Name: "exact", Y: []float64{1, 1}, Class: 2, Bound: true},
	}}
	canvas := sims.CanvasChart{Title: "k-means", View: sims.Rect{XMin: -1, XMax: 1, YMin: -1, YMax: 1},
		Legend: []string{"1: π=0.33", "2: π=0.33", "3: π=0.34"}}
	for _, w := range []int{24, 30, 40, 60} {
		for name, c := range map[string]sims.Chart{"line": line, "canvas": canvas} {
			lines := RenderLines(c, w, 10, Options{Mono: true})
			legend := ansi.Strip(lines[len(lines)-2] + "\n" + lines[len(lines)-1])
			var names []string
			switch c := c.(type) {
			case sims.LineChart:
				for _, s := range c.Series {
					names = append(names, s.Name)
				}
			case sims.CanvasChart:
				names = c.Legend
			}
			shown := 0
			for _, n := range names {
				if strings.Contains(legend, n) {
					shown++
				}
			}
			if more := regexp.MustCompile(`\+(\d+)`).FindString(legend); shown < len(names) && more != "+"+itoa(len(names)-shown) {
				t.Errorf("%s at width %d: %d of %d entries and %q: %q", name, w, shown, len(names), more, legend)
			}
			for _, n := range names {
				for k := 3; k < len(n); k++ {
					if strings.Contains(legend, n[:k]+" ") && !strings.Contains(legend, n) && !strings.Contains(n[:k], " ") {
						t.Errorf("%s at width %d: %q cut: %q", name, w, n, legend)
					}
				}
			}
		}
	}
}

func itoa(n int) string { return moreMarker(n)[1:] }

// TestClipOrDrop: a cut inside the first word leaves the text out; a cut
// after it (its comma aside) is Clip's.
func TestClipOrDrop(t *testing.T) {
	for _, tt := range []struct {
		s    string
		w    int
		want string
	}{
		{"grown, step 3", 7, "grown…"},
		{"grown, step 3", 4, ""},
		{"0.9876", 3, ""},
		{"0.9876", 6, "0.9876"},
		{"its weights", 5, "its…"},
	} {
		if got := ClipOrDrop(tt.s, tt.w); got != tt.want {
			t.Errorf("ClipOrDrop(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.want)
		}
	}
}

// trickyText is data that a terminal or the lab's cells could measure
// otherwise than ansi does when drawn raw: controls, split UTF-8,
// combining marks with and without a character, wide characters, emoji
// with a variation selector, a skin tone or a joiner, a flag, an Indic
// spacing mark, conjoining jamo, a prepended mark, bidi controls.
var trickyText = []string{"abc", "\x1b[31mred", "a\u0085b\u009b", "\xe2\x82", "e\u0301", "\u0301x", "漢字", "😀",
	"❤\ufe0f", "👍🏽", "👨\u200d👩", "🇫🇷", "का", "\u1100\u1161\u11a8", "\u0d4eab", "a\u202eb", "x\u200by", "ﾊﾟ", "a\tb\nc"}

// TestVisibleTextAligns: a table's columns and a bar chart's labels of
// text from data, written by sims.Visible, keep every line exactly the
// chart's width however it is measured: by grapheme clusters (Width,
// ansi.StringWidth, what the lab pads by) and by code points
// (ansi.StringWidthWc, what a terminal without grapheme clustering
// draws), and draw no control character.
func TestVisibleTextAligns(t *testing.T) {
	const w, h = 60, 24
	tab := sims.TableChart{Title: "tokens", Corner: "#", Columns: []string{"left", "right", "end"}}
	var bars sims.BarChart
	for i, s := range trickyText {
		for _, sp := range []sims.Spaces{sims.PlainSpaces, sims.MarkSpaces} {
			v := sims.Visible(s, sp)
			tab.Rows = append(tab.Rows, sims.TableRow{Label: v, Cells: []sims.Cell{{Text: v}, {Text: v + v}, {Text: "|"}}})
			bars.Bars = append(bars.Bars, sims.Bar{Label: v + "·" + v, Value: float64(i + 1)})
		}
	}
	for _, c := range []sims.Chart{tab, bars} {
		for _, mono := range []bool{false, true} {
			for i, l := range RenderLines(c, w, h, Options{Mono: mono}) {
				if g, wc, our := ansi.StringWidth(l), ansi.StringWidthWc(l), Width(l); g != w || wc != w || our != w {
					t.Errorf("%T mono=%v line %d: %d cells by clusters, %d by code points, Width %d: %q", c, mono, i, g, wc, our, ansi.Strip(l))
				}
				if strings.ContainsFunc(ansi.Strip(l), func(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }) {
					t.Errorf("%T line %d: a control character: %q", c, i, l)
				}
			}
		}
	}
}

// TestWrapWhole: help text breaks at spaces only — a flag, a hyphenated
// name and a word longer than the line stay whole — and a newline ends a
// line; Wrap, for a pane, splits the long word.
func TestWrapWhole(t *testing.T) {
	for _, tt := range []struct {
		s     string
		w     int
		whole string // lines joined by "|"
		split string
	}{
		{"use --data FILE with k-means", 12, "use --data|FILE with|k-means", "use --data|FILE with|k-means"},
		{"a supercalifragilistic word", 8, "a|supercalifragilistic|word", "a|supercal|ifragili|stic|word"},
		{"one\ntwo three", 20, "one|two three", "one\ntwo three"}, // Wrap leaves a line that fits as it is
	} {
		if got := strings.Join(WrapWhole(tt.s, tt.w), "|"); got != tt.whole {
			t.Errorf("WrapWhole(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.whole)
		}
		if got := strings.Join(Wrap(tt.s, tt.w), "|"); got != tt.split {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.split)
		}
	}
}
