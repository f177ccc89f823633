package chart

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/thelab/lab/sims"
)

// ex101 is the input of seed 001 Example 10.1 with the first window marked.
func ex101() sims.Image {
	return sims.Image{Caption: "X", W: 5, H: 5, Mark: sims.Window{X0: 0, Y0: 0, X1: 3, Y1: 3}, Pix: []float64{
		1, 1, 1, 0, 0,
		0, 1, 1, 1, 0,
		0, 0, 1, 1, 1,
		0, 0, 1, 1, 0,
		0, 1, 1, 0, 0,
	}}
}

// sampleImages is a gallery of five 8×8 pictures: a ring, a bar and
// gradients, in grey.
func sampleImages() sims.ImageChart {
	c := sims.ImageChart{Title: "gallery", Scale: sims.Grey, Lo: 0, Hi: 1}
	for k := range 5 {
		pix := make([]float64, 64)
		for j := range 8 {
			for i := range 8 {
				r := math.Hypot(float64(i)-3.5, float64(j)-3.5)
				switch k {
				case 0:
					pix[j*8+i] = math.Max(0, 1-math.Abs(r-2.5))
				case 1:
					if i == 3 || i == 4 {
						pix[j*8+i] = 1
					}
				default:
					pix[j*8+i] = float64(i+j*k) / float64(7+7*k)
				}
			}
		}
		c.Images = append(c.Images, sims.Image{Caption: string(rune('a' + k)), W: 8, H: 8, Pix: pix})
	}
	return c
}

// TestImageGolden pins the pixel and the number drawings, in colour and
// in mono (go test -update rewrites testdata/).
func TestImageGolden(t *testing.T) {
	charts := sampleCharts()
	var out strings.Builder
	for _, name := range []string{"images", "image-numbers"} {
		for _, size := range [][2]int{{40, 12}, {24, 8}} {
			for _, mono := range []bool{false, true} {
				out.WriteString(Render(charts[name], size[0], size[1], Options{Mono: mono}))
				out.WriteString("\n\n")
			}
		}
	}
	golden.RequireEqual(t, out.String())
}

// TestImagePixels: an image at zoom 1 is one column per pixel and two
// pixels per row, the upper one the foreground of ▀, the lower its
// background; at 40 columns a 2×2 image is enlarged to the largest zoom.
func TestImagePixels(t *testing.T) {
	im := sims.Image{W: 2, H: 2, Pix: []float64{0, 1, 1, 0}}
	c := sims.ImageChart{Title: "t", Scale: sims.Grey, Lo: 0, Hi: 1, Images: []sims.Image{im}}
	l := layoutImages(c, 40, 9)
	if l.numbers || l.zoom != maxPixelZoom || l.tileW != 16 || l.tileH != 8 {
		t.Fatalf("layout %+v", l)
	}
	b := newBuffer(2, 1, false)
	drawPixels(b, 0, 0, im, newScale(&sims.Grid{NX: 2, NY: 2, Z: im.Pix, Scale: sims.Grey, Lo: 0, Hi: 1}), 1, Options{})
	left, right := b.cells[0], b.cells[1]
	if left.r != '▀' || left.fg != greys[0] || left.bg != greys[1] || right.fg != greys[1] || right.bg != greys[0] {
		t.Errorf("cells %+v %+v", left, right)
	}
	// In mono, ink (the upper half of the range) is a block: at zoom 4
	// the right half of the top rows and the left half of the bottom ones.
	mono := RenderLines(c, 12, 6, Options{Mono: true})
	if ansi.Strip(mono[1]) != "    ████    " || ansi.Strip(mono[4]) != "████        " {
		t.Errorf("mono pixels:\n%s", strings.Join(mono, "\n"))
	}
}

// TestImageNumbers: Example 10.1's grid as numbers with its first window
// bracketed, and the images that do not fit counted in the title.
func TestImageNumbers(t *testing.T) {
	c := sampleCharts()["image-numbers"].(sims.ImageChart)
	out := ansi.Strip(Render(c, 30, 8, Options{Mono: true}))
	for _, want := range []string{"[1 1 1]0 0", "[0 1 1]1 0", "[0 0 1]1 1", " 0 0 1 1 0", "1 0 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for range 4 {
		c.Images = append(c.Images, c.Images...)
	}
	out = ansi.Strip(Render(c, 24, 8, Options{Mono: true}))
	if !strings.Contains(out, "(+") || !strings.Contains(out, "more)") {
		t.Errorf("hidden images not counted:\n%s", out)
	}
}

// TestImageColumns: Columns starts a row per group even when a row could
// hold more.
func TestImageColumns(t *testing.T) {
	c := sampleImages()
	c.Columns = 2
	l := layoutImages(c, 80, 40)
	if l.perRow < 2 || len(imageRows(c, l.perRow)) != 3 || l.shown != 5 {
		t.Errorf("layout %+v, rows %v", l, imageRows(c, l.perRow))
	}
}

// TestImageNewRow: an image marked NewRow starts a row (a network's next
// layer) wherever it falls, rows of different lengths side by side.
func TestImageNewRow(t *testing.T) {
	c := sampleImages() // five images
	c.Images[1].NewRow, c.Images[4].NewRow = true, true
	l := layoutImages(c, 80, 40)
	if got := fmt.Sprint(imageRows(c, l.perRow)); got != "[[0] [1 2 3] [4]]" || l.shown != 5 {
		t.Errorf("rows %s, %d shown", got, l.shown)
	}
}

// TestImageLabels: a numeric image with row and column labels (a
// confusion matrix) prints the column labels over their cells and the row
// labels, right-aligned, before their rows.
func TestImageLabels(t *testing.T) {
	im := sims.Image{W: 3, H: 2, Pix: []float64{5, 0, 1, 0, 12, 0},
		RowLabels: []string{"a", "bb"}, ColLabels: []string{"x", "y", "z"}, Caption: "true ↓ predicted →"}
	c := sims.ImageChart{Title: "confusion", Numbers: true, Images: []sims.Image{im}}
	lines := RenderLines(c, 30, 6, Options{Mono: true})
	want := []string{"confusion", "     x  y  z", " a   5  0  1", "bb   0 12  0"}
	for i, w := range want {
		if got := strings.TrimRight(ansi.Strip(lines[i]), " "); got != w {
			t.Errorf("line %d: %q, want %q", i, got, w)
		}
	}
}

// TestCaptionsFollowTheTextRules: a caption too long for its tile is cut
// at a word boundary and marked "…", as titles are (saliency's "its
// weights" showed as "its"); one whose first word does not fit is left
// out, as a title's note is (not "0.…").
func TestCaptionsFollowTheTextRules(t *testing.T) {
	pix := make([]float64, 64)
	c := sims.ImageChart{Title: "tiles", Lo: 0, Hi: 1, Images: []sims.Image{
		{Caption: "its weights", W: 8, H: 8, Pix: pix}, {Caption: "digit 9", W: 8, H: 8, Pix: pix}}}
	lines := RenderLines(c, 20, 8, Options{Mono: true})
	got := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"its…", "digit 9"} {
		if !strings.Contains(got, want) {
			t.Errorf("captions lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "its ") && !strings.Contains(got, "its weights") {
		t.Errorf("a caption cut without …:\n%s", got)
	}
	c.Images = append(c.Images, sims.Image{Caption: "0.9876", W: 3, H: 3, Pix: pix[:9]})
	c.Images[0].W, c.Images[0].H, c.Images[0].Pix = 3, 3, pix[:9]
	c.Images[1].W, c.Images[1].H, c.Images[1].Pix = 3, 3, pix[:9]
	got = ansi.Strip(strings.Join(RenderLines(c, 14, 6, Options{Mono: true}), "\n"))
	if strings.Contains(got, "0.…") || strings.Contains(got, "di…") {
		t.Errorf("a caption cut inside its first word:\n%s", got)
	}
}

// TestImageMissingValues: a NaN is a blank cell — a dot among numbers,
// nothing among pixels — and does not stretch the colour range.
func TestImageMissingValues(t *testing.T) {
	nan := math.NaN()
	im := sims.Image{W: 3, H: 1, Pix: []float64{4, nan, 2}}
	out := ansi.Strip(Render(sims.ImageChart{Title: "t", Numbers: true, Images: []sims.Image{im}}, 12, 5, Options{Mono: true}))
	if !strings.Contains(out, " 4 · 2") {
		t.Errorf("numbers:\n%s", out)
	}
	im = sims.Image{W: 2, H: 2, Pix: []float64{1, nan, nan, 1}}
	lines := RenderLines(sims.ImageChart{Title: "t", Scale: sims.Grey, Lo: 0, Hi: 1, Images: []sims.Image{im}}, 12, 6, Options{Mono: true})
	if got := ansi.Strip(lines[1]); got != "████        " {
		t.Errorf("pixels: %q", got)
	}
}

// TestNumbersScaleUp: a numeric image given room draws each number in a
// cell k times as wide and k rows high, as large as the chart allows up
// to maxNumberScale.
func TestNumbersScaleUp(t *testing.T) {
	im := sims.Image{W: 2, H: 2, Pix: []float64{1, 2, 3, 4}}
	c := sims.ImageChart{Title: "t", Numbers: true, Images: []sims.Image{im}}
	for _, tc := range []struct{ w, h, k int }{{12, 5, 2}, {40, 9, 4}, {200, 60, maxNumberScale}} {
		lines := RenderLines(c, tc.w, tc.h, Options{Mono: true})
		var rows []int // the lines the numbers are on
		for y, l := range lines {
			if strings.ContainsAny(ansi.Strip(l), "1234") && y > 0 {
				rows = append(rows, y)
			}
		}
		if len(rows) != 2 || rows[1]-rows[0] != tc.k {
			t.Errorf("%d×%d: numbers on lines %v, want 2 lines %d apart:\n%s", tc.w, tc.h, rows, tc.k,
				ansi.Strip(strings.Join(lines, "\n")))
		}
	}
}
