package chart

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// Clashes reports the things chart c tells apart (its series, curves,
// classes of points and paths, markers, the signs of a network's weights,
// and the classes of a categorical field drawn w×h) that it draws alike in
// the terminal profile p: the same colour as p shows it and the same
// glyph. Nil when each reads apart. It is the renderer's own account of
// the palette and styles it draws with, so that a check of every sim's
// frames (the TUI's tests walk the catalogue once, for all their checks)
// cannot drift from what is drawn.
func Clashes(c sims.Chart, w, h int, p colorprofile.Profile) []string {
	bad := chartLooks(c, p)
	if cc, ok := c.(sims.CanvasChart); ok && p >= colorprofile.ANSI256 {
		for _, r := range regionLooks(cc, w, h, p) {
			bad = append(bad, "region "+r)
		}
	}
	return bad
}

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

// sgrCells reads a rendered line into cells, following the SGR sequences
// the chart package and asciigraph write (reset, bold, 24-bit and
// 256-colour foreground and background); an error for any other.
func sgrCells(line string) ([]sgrCell, error) {
	var out []sgrCell
	var fg, bg color.Color
	for len(line) > 0 {
		if strings.HasPrefix(line, "\x1b[") {
			end := strings.IndexByte(line, 'm')
			if end < 0 {
				return nil, fmt.Errorf("unterminated SGR in %q", line)
			}
			params := strings.Split(line[2:end], ";")
			line = line[end+1:]
			var bad error
			num := func(i int) uint8 {
				if i >= len(params) {
					bad = fmt.Errorf("short SGR %q", params)
					return 0
				}
				n, err := strconv.Atoi(params[i])
				if err != nil {
					bad = fmt.Errorf("SGR %q: %v", params, err)
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
					return nil, fmt.Errorf("unexpected SGR parameter %q in %q", p, params)
				}
			}
			if bad != nil {
				return nil, bad
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
	return out, nil
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
func regionLooks(c sims.CanvasChart, w, h int, p colorprofile.Profile) []string {
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
		cells, err := sgrCells(lines[1+cy])
		if err != nil {
			return append(bad, err.Error())
		}
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
