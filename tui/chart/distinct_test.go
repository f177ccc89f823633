package chart

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
)

// profiles are the four ways a terminal shows colour: the chart's 24-bit
// colours reduced as Bubble Tea and colorprofile reduce them, and none at
// all (NO_COLOR, drawn with Options.Mono).
var profiles = []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI, colorprofile.Ascii}

// optionsFor is what the TUI draws with in a profile.
func optionsFor(p colorprofile.Profile) Options {
	return Options{Mono: p <= colorprofile.Ascii, Basic: p == colorprofile.ANSI}
}

// inkIn is the colour c comes out as in profile p, as a comparable
// string; "" without colour.
func inkIn(c rgb, p colorprofile.Profile) string {
	if p <= colorprofile.Ascii || c == 0 {
		return ""
	}
	r, g, b := c.parts()
	return fmt.Sprint(p.Convert(color.RGBA{r, g, b, 0xff}))
}

// look is how one thing a chart tells apart (a series, a class, a curve)
// is drawn: its colour in a profile and its glyph.
type look struct{ ink, glyph string }

// distinctLooks reports the pairs of differently named things that are
// drawn alike.
func distinctLooks(names []string, looks []look) []string {
	var bad []string
	seen := map[look]string{}
	for i, l := range looks {
		if prev, ok := seen[l]; ok && prev != names[i] {
			bad = append(bad, fmt.Sprintf("%q and %q both %q in %q", prev, names[i], l.glyph, l.ink))
			continue
		}
		seen[l] = names[i]
	}
	return bad
}

// chartLooks checks, from a chart's declared data and the palette and
// styles the renderer draws it with, that no two of its series, curves or
// classes share both colour and glyph in profile p.
func chartLooks(c sims.Chart, p colorprofile.Profile) []string {
	o := optionsFor(p)
	var names []string
	var looks []look
	add := func(name string, ink rgb, glyph string) {
		names, looks = append(names, name), append(looks, look{inkIn(ink, p), glyph})
	}
	switch c := c.(type) {
	case sims.LineChart:
		var drawn []sims.Series
		for _, s := range c.Series {
			if len(s.Y) > 0 {
				drawn = append(drawn, s)
			}
		}
		for i, st := range lineStyles(drawn, o) {
			add(drawn[i].Name, classColor(drawn[i].Class), st.set.Horizontal)
		}
	case sims.HistChart:
		if len(c.Density) > 0 {
			add("the bars", classColor(0), "█")
		}
		for k, cl := range curveClasses(c.Curves) {
			g := "⠒"
			if o.Mono {
				g = string(histGlyphs[k%len(histGlyphs)])
			}
			add("curve "+c.Curves[k].Name, classColor(cl), g)
		}
	case sims.CanvasChart:
		// Points by class: braille dots in colour, class glyphs in mono.
		classes := map[int]bool{}
		for _, ps := range c.Points {
			if ps.Classes == nil {
				classes[ps.Class] = true
			}
			for _, cl := range ps.Classes {
				classes[cl] = true
			}
		}
		for cl := range classes {
			g := "⣿"
			if o.Mono {
				g = string(classGlyph(cl))
			}
			add(fmt.Sprintf("points of class %d", cl), classColor(cl), g)
		}
		// Paths by class and stroke, each drawn in its pattern.
		type stroke struct {
			class   int
			pattern string
		}
		strokes := map[stroke]bool{}
		for _, pa := range c.Paths {
			strokes[stroke{pa.Class, pathPattern(pa, o.Mono)}] = true
		}
		for s := range strokes {
			// (a stroke of braille dots, never a glyph: "#" is no class 5)
			add(fmt.Sprintf("paths of class %d, %s", s.class, s.pattern), classColor(s.class), "stroke "+s.pattern)
		}
		// A marker's glyph is what it is (×, ○, ◆): in mono it must not be
		// a class's glyph.
		marks := map[rune]bool{}
		for _, m := range c.Markers {
			if !marks[m.Glyph] {
				marks[m.Glyph] = true
				add(fmt.Sprintf("markers %c", m.Glyph), classColor(m.Class), string(m.Glyph))
			}
		}
	case sims.NetworkChart:
		// The weights by sign: their ramp's ends, solid or dashed.
		if wmax, _ := netWeights(c); wmax > 0 {
			for _, w := range []float64{wmax, -wmax} {
				add(fmt.Sprintf("weights of sign %v", math.Copysign(1, w)), weightInk(w, wmax, o), weightPattern(w, o.Mono))
			}
		}
	}
	return distinctLooks(names, looks)
}

// sgrCell is one rendered cell: its rune and colours as the terminal
// gets them.
type sgrCell struct {
	r      rune
	fg, bg color.Color
}

// parseCells reads a rendered line into cells, following the SGR
// sequences the chart package and asciigraph write (reset, bold, 24-bit
// and 256-colour foreground and background).
func parseCells(t *testing.T, line string) []sgrCell {
	t.Helper()
	var out []sgrCell
	var fg, bg color.Color
	for len(line) > 0 {
		if strings.HasPrefix(line, "\x1b[") {
			end := strings.IndexByte(line, 'm')
			if end < 0 {
				t.Fatalf("unterminated SGR in %q", line)
			}
			params := strings.Split(line[2:end], ";")
			line = line[end+1:]
			num := func(i int) uint8 {
				if i >= len(params) {
					t.Fatalf("short SGR %q", params)
				}
				n, err := strconv.Atoi(params[i])
				if err != nil {
					t.Fatalf("SGR %q: %v", params, err)
				}
				return uint8(n)
			}
			for i := 0; i < len(params); i++ {
				switch p := params[i]; p {
				case "", "0":
					fg, bg = nil, nil
				case "1", "22":
				case "38", "48":
					var c color.Color
					if num(i+1) == 2 {
						c = color.RGBA{num(i + 2), num(i + 3), num(i + 4), 0xff}
						i += 4
					} else {
						c = ansi.IndexedColor(num(i + 2))
						i += 2
					}
					if p == "38" {
						fg = c
					} else {
						bg = c
					}
				default:
					t.Fatalf("unexpected SGR parameter %q in %q", p, params)
				}
			}
			continue
		}
		var r rune
		var size int
		for _, rr := range line {
			r, size = rr, len(string(rr))
			break
		}
		line = line[size:]
		out = append(out, sgrCell{r: r, fg: fg, bg: bg})
	}
	return out
}

// inkOf is a rendered colour in profile p, as inkIn gives it.
func inkOf(c color.Color, p colorprofile.Profile) string {
	if c == nil || p <= colorprofile.Ascii {
		return ""
	}
	return fmt.Sprint(p.Convert(c))
}

// regionLooks renders a canvas whose heat is a categorical field in
// profile p and reports any colour that stands for two classes: each
// half-block's colour against the class of the field where it is drawn.
func regionLooks(t *testing.T, c sims.CanvasChart, w, h int, p colorprofile.Profile) []string {
	t.Helper()
	g := c.Heat
	if g == nil || g.Scale != sims.Categorical || len(c.Bands) > 0 || !gridOK(g) {
		return nil
	}
	lines := RenderLines(c, w, h, optionsFor(p))
	ch := h - 2 // the canvas's rows, under the title
	owner := map[string]int{}
	var bad []string
	claim := func(ink string, cls int) {
		if ink == "" || cls < 0 {
			return
		}
		if prev, ok := owner[ink]; ok && prev != cls && len(bad) < 3 {
			bad = append(bad, fmt.Sprintf("classes %d and %d are both %s", prev, cls, ink))
		}
		owner[ink] = cls
	}
	for cy := range ch {
		cells := parseCells(t, lines[1+cy])
		for cx := 0; cx < min(w, len(cells)); cx++ {
			if cells[cx].r != '▀' {
				continue
			}
			u := (float64(cx) + 0.5) / float64(w)
			claim(inkOf(cells[cx].fg, p), classOf(gridAt(g, u, 1-(float64(cy)+0.25)/float64(ch))))
			claim(inkOf(cells[cx].bg, p), classOf(gridAt(g, u, 1-(float64(cy)+0.75)/float64(ch))))
		}
	}
	return bad
}

// TestEverySimKeepsItsSeriesApart walks every sim at its defaults for a
// few steps and checks its frame's charts: in truecolor, 256 colours, 16
// colours and without colour, no two series, curves or classes of a chart
// share both colour and glyph (from each chart's declared data and the
// styles the renderer gives it), and no colour of a class region, as
// drawn, stands for two classes.
func TestEverySimKeepsItsSeriesApart(t *testing.T) {
	for _, spec := range catalog.All().Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			s, err := spec.Build(sims.Config{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			for range min(spec.Steps, 20) {
				if s.Step() != nil {
					break
				}
			}
			for _, c := range s.Frame().Charts {
				for _, p := range profiles {
					for _, bad := range chartLooks(c, p) {
						t.Errorf("%s, %s: %s", c.ChartTitle(), p, bad)
					}
					if cc, ok := c.(sims.CanvasChart); ok && p >= colorprofile.ANSI256 {
						for _, bad := range regionLooks(t, cc, 60, 18, p) {
							t.Errorf("%s, %s: region %s", c.ChartTitle(), p, bad)
						}
					}
				}
			}
		})
	}
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
			if bad := regionLooks(t, c, 80, 26, p); len(bad) > 0 {
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
