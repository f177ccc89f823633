package chart

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// TestRamps256KeepTwelveLevels: in a 256-colour terminal every ramp, in
// every tone a map draws it in, shows 12 evenly spaced values as 12
// different palette colours, each sent as a colour the terminal keeps as
// it is (ansi.Convert256 is the rounding Bubble Tea applies). Without
// Palette256 the dimmed ramp of a heat map falls into a few cells.
func TestRamps256KeepTwelveLevels(t *testing.T) {
	tones := map[string]tone{"pixel": pixelTone, "number": numberTone, "heat": {1, heatDim}}
	for _, sc := range []sims.ColorScale{sims.Sequential, sims.Diverging, sims.Grey} {
		for _, dark := range []bool{false, true} {
			for name, tn := range tones {
				s := newScale(&sims.Grid{Scale: sc, Lo: -3, Hi: 9})
				seen := map[int]bool{}
				for k := range 12 {
					c := s.color(s.valueAt(float64(k)/11), tn, dark, Options{Palette256: true})
					r, g, b := c.parts()
					idx := int(ansi.Convert256(color.RGBA{r, g, b, 255}))
					if xterm256(idx) != c {
						t.Errorf("scale %d dark %v %s: %06x is not a palette colour (rounds to %d)", sc, dark, name, c&0xffffff, idx)
					}
					seen[idx] = true
				}
				if len(seen) < 12 {
					t.Errorf("scale %d dark %v %s: 12 values in %d colours", sc, dark, name, len(seen))
				}
			}
		}
	}
}

// matrixChart is an attention-like map: T×T weights on [0, 1] with the
// tokens as labels, query 0 on top.
func matrixChart(tokens []string, scale sims.ColorScale, lo, hi float64) sims.CanvasChart {
	T := len(tokens)
	z := make([]float64, T*T)
	for i := range z {
		z[i] = lo + (hi-lo)*float64(i)/float64(len(z)-1)
	}
	return sims.CanvasChart{Title: "weights",
		View:   sims.Rect{XMin: 0, XMax: float64(T), YMin: 0, YMax: float64(T)},
		Heat:   &sims.Grid{NX: T, NY: T, Z: z, Scale: scale, Lo: lo, Hi: hi},
		XLabel: "key j", YLabel: "query i",
		XIndex: &sims.Index{First: 0, Last: T - 1, At: 0.5, Step: 1, Labels: tokens},
		YIndex: &sims.Index{First: 0, Last: T - 1, At: float64(T) - 0.5, Step: -1, Labels: tokens}}
}

// plain renders c and strips its colours.
func plain(c sims.Chart, w, h int, o Options) []string {
	lines := RenderLines(c, w, h, o)
	for i, l := range lines {
		lines[i] = ansi.Strip(l)
	}
	return lines
}

// barLabelsAt reports whether the top and bottom rows of a colour bar
// end in the labels top and bot (whole, after a space), at rows first
// and last.
func barLabelsAt(lines []string, first, last int, top, bot string) bool {
	end := func(l, s string) bool { return strings.HasSuffix(strings.TrimRight(l, " "), " "+s) }
	return first < len(lines) && last < len(lines) && end(lines[first], top) && end(lines[last], bot)
}

// TestColorBars: a matrix on a canvas and a chart of images carry a
// colour bar with their range's ends beside its top and bottom rows, in
// colour and in mono, when there is room; where there is not, no part
// of a label is drawn.
func TestColorBars(t *testing.T) {
	tokens := []string{"the", "dog", "chased", "the", "cat"}
	numbers := sims.ImageChart{Title: "input X", Numbers: true, Scale: sims.Sequential,
		Images: []sims.Image{{W: 3, H: 3, Pix: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8.5}}}}
	weights := sims.ImageChart{Title: "filters", Scale: sims.Diverging, Lo: -0.25, Hi: 0.25,
		Images: []sims.Image{{W: 4, H: 4, Pix: make([]float64, 16)}, {W: 4, H: 4, Pix: make([]float64, 16)}}}
	digits := sims.ImageChart{Title: "digits", Scale: sims.Grey, Lo: 0, Hi: 1,
		Images: []sims.Image{{W: 4, H: 4, Pix: make([]float64, 16)}}}
	cases := []struct {
		name     string
		c        sims.Chart
		w, h     int
		top, bot string
		first    int // row of the top label; the bottom's is found below
		last     int
		want     bool
	}{
		{"attention", matrixChart(tokens, sims.Sequential, 0, 1), 40, 12, "1", "0", 1, 10, true},
		{"diverging matrix", matrixChart(tokens, sims.Diverging, -0.774, 0.774), 40, 12, "0.774", "-0.774", 1, 10, true},
		{"matrix too narrow for a bar", matrixChart(tokens, sims.Sequential, 0.0123, 0.98), 19, 12, "", "", 0, 0, false},
		{"numbers", numbers, 30, 6, "8.5", "0", 1, 3, true},
		{"signed filters", weights, 40, 6, "0.25", "-0.25", 1, 4, true},
		{"ink has no bar", digits, 40, 6, "", "", 0, 0, false},
	}
	for _, tc := range cases {
		for _, o := range []Options{{}, {Mono: true}, {Palette256: true}} {
			t.Run(fmt.Sprintf("%s mono=%v", tc.name, o.Mono), func(t *testing.T) {
				if o.Mono && tc.name == "numbers" {
					t.Skip("numbers in mono have no colour to explain")
				}
				lines := plain(tc.c, tc.w, tc.h, o)
				screen := strings.Join(lines, "\n")
				if !tc.want {
					for _, l := range lines[1:] {
						if strings.ContainsAny(l[max(0, len(l)-8):], "0123456789") && !strings.Contains(l, "…") {
							t.Errorf("a number beside the map with no bar:\n%s", screen)
							break
						}
					}
					return
				}
				if !barLabelsAt(lines, tc.first, tc.last, tc.top, tc.bot) {
					t.Errorf("want a bar from %s (row %d) to %s (row %d):\n%s", tc.top, tc.first, tc.bot, tc.last, screen)
				}
			})
		}
	}
}

// TestIndexAxes: a matrix's axes read as its first and last index, and
// its labels (tokens) are drawn along them whole when each has room,
// else not at all.
func TestIndexAxes(t *testing.T) {
	tokens := []string{"the", "dog", "chased", "the", "cat"}
	cases := []struct {
		w, h       int
		rows, cols bool // token labels by the rows, under the columns
	}{
		{100, 14, true, true},
		{40, 12, true, false},
		{14, 12, false, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			lines := plain(matrixChart(tokens, sims.Sequential, 0, 1), tc.w, tc.h, Options{})
			screen := strings.Join(lines, "\n")
			if !strings.Contains(lines[tc.h-1], "0…4") || strings.Contains(screen, "0…5") {
				t.Errorf("ranges are not the indices 0…4:\n%s", screen)
			}
			rows := 0
			for _, l := range lines[1 : tc.h-1] {
				f := strings.Fields(l)
				if strings.Join(f, " ") == "the dog chased the cat" {
					continue // the column labels
				}
				if len(f) > 0 && (f[0] == "the" || f[0] == "dog" || f[0] == "chased" || f[0] == "cat") {
					rows++
				}
			}
			if (rows == 5) != tc.rows || (rows != 0 && rows != 5) {
				t.Errorf("%d rows labelled, want labels %v:\n%s", rows, tc.rows, screen)
			}
			// (under the canvas, whose rows the named rows share evenly:
			// the lines left over stay blank under the labels)
			cols := false
			for _, l := range lines[1:] {
				cols = cols || strings.Join(strings.Fields(l), " ") == "the dog chased the cat"
			}
			if cols != tc.cols {
				t.Errorf("column labels %v, want them %v:\n%s", cols, tc.cols, screen)
			}
		})
	}
}

// TestCharacterKeysReadAsText: a map whose index labels are single
// characters (a character model's tokens) labels every cell when each
// has a column, evenly spaced (every cell the same whole number of
// columns), so that the labels read as the text, without spaces between
// them when a cell is a column; a width with fewer columns than cells
// draws none of them.
func TestCharacterKeysReadAsText(t *testing.T) {
	const text = "the␣dogs␣that␣see␣a␣cat"
	var tokens []string
	for _, r := range text {
		tokens = append(tokens, string(r))
	}
	for _, tc := range []struct {
		w    int
		want bool
	}{{30, true}, {40, true}, {60, true}, {80, true}, {20, false}} {
		for _, o := range []Options{{}, {Mono: true}} {
			lines := plain(matrixChart(tokens, sims.Sequential, 0, 1), tc.w, 16, o)
			row := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(strings.ReplaceAll(l, " ", ""), text) })
			if got := row >= 0; got != tc.want {
				t.Errorf("width %d mono=%v: labels read %q: %v, want %v\n%s", tc.w, o.Mono, text, got, tc.want, strings.Join(lines, "\n"))
				continue
			}
			if row < 0 {
				continue
			}
			var at []int // the labels' columns
			col := 0
			for _, r := range lines[row] {
				if r != ' ' {
					at = append(at, col)
				}
				col++
			}
			for i := 2; i < len(at); i++ {
				if at[i]-at[i-1] != at[1]-at[0] {
					t.Errorf("width %d mono=%v: labels not evenly spaced: %q", tc.w, o.Mono, lines[row])
					break
				}
			}
		}
	}
}
