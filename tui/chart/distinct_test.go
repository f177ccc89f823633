package chart

import (
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// profiles are the four ways a terminal shows colour: the chart's 24-bit
// colours reduced as Bubble Tea and colorprofile reduce them, and none at
// all (NO_COLOR, drawn with Options.Mono).
var profiles = []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI, colorprofile.Ascii}

// parseCells is sgrCells for a test: a line it cannot read fails it.
func parseCells(t *testing.T, line string) []sgrCell {
	t.Helper()
	cells, err := sgrCells(line)
	if err != nil {
		t.Fatal(err)
	}
	return cells
}

// TestClassesStayApartInEveryProfile: the ten class colours are ten
// colours in truecolor, 256 and 16 colours, and no two classes share a
// tint, at any dimming, in 256 colours (a region of one class never reads
// as another's).
func TestClassesStayApartInEveryProfile(t *testing.T) {
	for _, p := range profiles[:3] {
		seen := map[string]int{}
		for c := range sims.MaxClasses {
			ink := inkIn(classColor(c), p)
			if prev, ok := seen[ink]; ok {
				t.Errorf("%s: classes %d and %d are both %s", p, prev, c, ink)
			}
			seen[ink] = c
		}
	}
	owner := map[string]int{}
	for c := range sims.MaxClasses {
		for k := 0; k <= tintLevels; k++ {
			ink := inkIn(classTint(c, float64(k)/tintLevels), colorprofile.ANSI256)
			if prev, ok := owner[ink]; ok && prev != c {
				t.Errorf("classes %d and %d both have tint %s", prev, c, ink)
			}
			owner[ink] = c
		}
	}
}

// TestShadesAreNotClassGlyphs: without colour a field is drawn in shades
// and points as class glyphs; no shade is a class glyph, so that points
// over a field (gan's generated '+' over D(x)) are never read as part of
// it, and the ramp is distinct glyphs from light to dark.
func TestShadesAreNotClassGlyphs(t *testing.T) {
	seen := map[rune]bool{}
	for _, r := range shades {
		if seen[r] {
			t.Errorf("shade %q twice in the ramp", r)
		}
		seen[r] = true
		for c := range sims.MaxClasses {
			if classGlyph(c) == r {
				t.Errorf("shade %q is class %d's glyph", r, c)
			}
		}
	}
}

// TestRegionsStayApart draws decision regions of 2, 3 and 10 classes whose
// confidence (Shade) runs from 0 to 1 up the chart, as playground and
// softmax do, and checks that no drawn colour stands for two classes in
// truecolor or 256 colours (a 3-class map drew classes 0 and 2 both
// 005f5f where unsure).
func TestRegionsStayApart(t *testing.T) {
	for _, k := range []int{2, 3, sims.MaxClasses} {
		const nx, ny = 40, 24
		g := &sims.Grid{NX: nx, NY: ny, Z: make([]float64, nx*ny), Shade: make([]float64, nx*ny),
			Scale: sims.Categorical, Lo: 0, Hi: float64(k - 1), Levels: k}
		for j := range ny {
			for i := range nx {
				g.Z[j*nx+i] = float64(i * k / nx)
				g.Shade[j*nx+i] = float64(j) / (ny - 1)
			}
		}
		c := sims.CanvasChart{Title: "regions", View: sims.Rect{XMin: 0, XMax: 1, YMin: 0, YMax: 1}, Heat: g}
		for _, p := range profiles[:2] {
			if bad := regionLooks(c, 80, 26, p); len(bad) > 0 {
				t.Errorf("%d classes, %s: %v", k, p, bad)
			}
		}
	}
}

// TestDataOverReferences: a reference is drawn under the data, and one
// hidden under a series over most of its length says so in the legend;
// one apart from the data does not.
func TestDataOverReferences(t *testing.T) {
	flat := func(v float64) []float64 {
		y := make([]float64, 50)
		for i := range y {
			y[i] = v + 0.001*float64(i%2)
		}
		return y
	}
	rising := make([]float64, 50)
	for i := range rising {
		rising[i] = float64(i) / 49
	}
	for _, tt := range []struct {
		name   string
		series []sims.Series
		under  string // the legend's note, or ""
	}{
		{"on the reference", []sims.Series{{Name: "L_D", Y: flat(0.5)}, {Name: "ref", Y: flat(0.5), Class: 9, Bound: true}}, "ref (under L_D)"},
		{"reference declared first", []sims.Series{{Name: "ref", Y: flat(0.5), Class: 9, Bound: true}, {Name: "L_D", Y: flat(0.5)}}, "ref (under L_D)"},
		{"apart", []sims.Series{{Name: "L_D", Y: rising}, {Name: "ref", Y: flat(0.5), Class: 9, Bound: true}}, ""},
	} {
		for _, p := range profiles {
			c := sims.LineChart{Title: tt.name, Series: tt.series}
			lines := RenderLines(c, 60, 12, optionsFor(p))
			legend := ansi.Strip(lines[len(lines)-1])
			if tt.under != "" && !strings.Contains(legend, tt.under) {
				t.Errorf("%s, %s: legend %q says nothing of %q", tt.name, p, legend, tt.under)
			}
			if tt.under == "" && strings.Contains(legend, "under") {
				t.Errorf("%s, %s: legend %q", tt.name, p, legend)
			}
			plot := ansi.Strip(strings.Join(lines[1:len(lines)-1], "\n"))
			if tt.under != "" && strings.Contains(plot, "┄") {
				t.Errorf("%s, %s: the reference shows over the data:\n%s", tt.name, p, plot)
			}
		}
	}
}
