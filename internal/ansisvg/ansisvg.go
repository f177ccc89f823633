// Package ansisvg draws text with ANSI colours (SGR escape codes) as an
// SVG image: the README's screenshot (cmd/ansisvg) and lab record's still
// (--svg).
//
// Each cell is a fixed box; backgrounds, and the block glyphs the charts
// draw fields with (▀ ▄ █), become rectangles merged along a row, so the
// picture does not depend on a font's block glyphs; other text is drawn
// in runs of one style, each stretched to its cells. It knows SGR's reset,
// bold, faint, reverse, and the 16, 256 and 24-bit colours; other escape
// sequences are skipped.
package ansisvg

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// SVG is text (lines of cells with SGR escape codes) drawn as an SVG
// document: one row a line, as wide as its widest line.
func SVG(text string) string { return render(parse(text)) }

// Cell size and margin in pixels, and the page's colours.
const (
	cellW, cellH = 8.4, 17.0
	margin       = 8.0
	fontSize     = 14
	defaultFG    = "#d0d0d0"
	defaultBG    = "#1c1c1c"
)

// style is the SGR state a cell is drawn with.
type style struct {
	fg, bg        string // "" is the default
	bold, reverse bool
	faint         bool
}

type cell struct {
	r  string // the grapheme; "" for the right half of a wide one
	st style
}

// parse splits text into rows of styled cells.
func parse(text string) [][]cell {
	var rows [][]cell
	var row []cell
	var st style
	for i := 0; i < len(text); {
		switch {
		case text[i] == '\n':
			rows = append(rows, row)
			row = nil
			i++
		case text[i] == '\x1b' && i+1 < len(text) && text[i+1] == '[':
			j := i + 2
			for j < len(text) && (text[j] < 0x40 || text[j] > 0x7e) {
				j++
			}
			if j < len(text) && text[j] == 'm' {
				st = sgr(st, text[i+2:j])
			}
			i = j + 1
		case text[i] == '\x1b':
			i += 2 // another escape: skipped
		default:
			g, w := ansi.FirstGraphemeCluster(text[i:], ansi.GraphemeWidth)
			switch {
			case w == 0 && len(row) > 0:
				row[len(row)-1].r += g // a combining mark joins its cell
			case w > 0:
				row = append(row, cell{g, st})
				for range w - 1 {
					row = append(row, cell{"", st})
				}
			}
			i += len(g)
		}
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	for len(rows) > 0 && len(rows[len(rows)-1]) == 0 {
		rows = rows[:len(rows)-1] // trailing blank lines
	}
	return rows
}

// sgr applies the parameters of one SGR sequence.
func sgr(st style, params string) style {
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		n, _ := strconv.Atoi(ps[k])
		switch {
		case n == 0:
			st = style{}
		case n == 1:
			st.bold = true
		case n == 2:
			st.faint = true
		case n == 22:
			st.bold, st.faint = false, false
		case n == 7:
			st.reverse = true
		case n == 27:
			st.reverse = false
		case n == 39:
			st.fg = ""
		case n == 49:
			st.bg = ""
		case n >= 30 && n <= 37:
			st.fg = xterm(n - 30)
		case n >= 90 && n <= 97:
			st.fg = xterm(n - 90 + 8)
		case n >= 40 && n <= 47:
			st.bg = xterm(n - 40)
		case n >= 100 && n <= 107:
			st.bg = xterm(n - 100 + 8)
		case (n == 38 || n == 48) && k+1 < len(ps):
			var c string
			switch ps[k+1] {
			case "5":
				if k+2 < len(ps) {
					i, _ := strconv.Atoi(ps[k+2])
					c = xterm(i)
					k += 2
				}
			case "2":
				if k+4 < len(ps) {
					r, _ := strconv.Atoi(ps[k+2])
					g, _ := strconv.Atoi(ps[k+3])
					b, _ := strconv.Atoi(ps[k+4])
					c = fmt.Sprintf("#%02x%02x%02x", r, g, b)
					k += 4
				}
			}
			if n == 38 {
				st.fg = c
			} else {
				st.bg = c
			}
		}
	}
	return st
}

// xterm is colour i of the xterm 256-colour palette.
func xterm(i int) string {
	base := []string{"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
		"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"}
	switch {
	case i < 0 || i > 255:
		return defaultFG
	case i < 16:
		return base[i]
	case i < 232:
		i -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(i/36), level(i/6%6), level(i%6))
	default:
		g := 8 + 10*(i-232)
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// colours resolves a cell's foreground and background, reverse included.
func (st style) colours() (fg, bg string) {
	fg, bg = st.fg, st.bg
	if fg == "" {
		fg = defaultFG
	}
	if bg == "" {
		bg = defaultBG
	}
	if st.reverse {
		fg, bg = bg, fg
	}
	return fg, bg
}

// render draws the rows as an SVG document.
func render(rows [][]cell) string {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	var b strings.Builder
	w, h := float64(cols)*cellW+2*margin, float64(len(rows))*cellH+2*margin
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">`+"\n", num(w), num(h), num(w), num(h))
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="%s"/>`+"\n", defaultBG)
	fmt.Fprintf(&b, `<g transform="translate(%s %s)" font-family="DejaVu Sans Mono,Menlo,Consolas,monospace" font-size="%d" fill="%s" shape-rendering="crispEdges">`+"\n",
		num(margin), num(margin), fontSize, defaultFG)
	for y, row := range rows {
		top := float64(y) * cellH
		// Boxes: each cell's upper and lower half, merged along the row.
		for _, half := range []int{0, 1} {
			spans(len(row), func(x int) string { return halfColour(row[x], half) }, func(x0, x1 int, fill string) {
				if fill != defaultBG {
					fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
						num(float64(x0)*cellW), num(top+float64(half)*cellH/2), num(float64(x1-x0)*cellW), num(cellH/2), fill)
				}
			})
		}
		// Text: runs of one style, blocks and blanks left out.
		spans(len(row), func(x int) string { return textKey(row[x]) }, func(x0, x1 int, key string) {
			if key == "" {
				return
			}
			var s strings.Builder
			for _, c := range row[x0:x1] {
				s.WriteString(c.r)
			}
			st := row[x0].st
			fg, _ := st.colours()
			attrs := ""
			if fg != defaultFG {
				attrs += ` fill="` + fg + `"`
			}
			if st.bold {
				attrs += ` font-weight="bold"`
			}
			if st.faint {
				attrs += ` opacity="0.6"`
			}
			if x1-x0 > 1 {
				attrs += ` textLength="` + num(float64(x1-x0)*cellW) + `" lengthAdjust="spacingAndGlyphs"`
			}
			fmt.Fprintf(&b, `<text x="%s" y="%s"%s>%s</text>`+"\n",
				num(float64(x0)*cellW), num(top+cellH*0.78), attrs, html.EscapeString(s.String()))
		})
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String()
}

// num prints a coordinate with at most two decimals.
func num(x float64) string { return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64) }

// halfColour is the colour of a cell's upper (0) or lower (1) half, as
// its background and block glyph paint it.
func halfColour(c cell, half int) string {
	fg, bg := c.st.colours()
	switch {
	case c.r == "█", c.r == "▀" && half == 0, c.r == "▄" && half == 1:
		return fg
	}
	return bg
}

// textKey groups the cells drawn as text: "" for blanks and blocks,
// otherwise the style.
func textKey(c cell) string {
	switch c.r {
	case "", " ", "█", "▀", "▄":
		return ""
	}
	fg, _ := c.st.colours()
	return fmt.Sprintf("%s|%v|%v", fg, c.st.bold, c.st.faint)
}

// spans calls draw for each maximal run of cells [x0, x1) with the same key.
func spans(n int, key func(int) string, draw func(x0, x1 int, key string)) {
	for x0 := 0; x0 < n; {
		k := key(x0)
		x1 := x0 + 1
		for x1 < n && key(x1) == k {
			x1++
		}
		draw(x0, x1, k)
		x0 = x1
	}
}
