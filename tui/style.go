package tui

import (
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/tui/chart"
)

var (
	boldStyle     = lipgloss.NewStyle().Bold(true)
	dimStyle      = lipgloss.NewStyle().Foreground(lipgloss.Color("245"))
	focusColor    = lipgloss.Color("212")
	blurColor     = lipgloss.Color("240")
	errorStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("196"))
	keyStyle      = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("212"))
	buildingStyle = lipgloss.NewStyle().Bold(true).Reverse(true)
	overlayStyle  = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(focusColor).Padding(0, 1)
)

func bold(s string) string { return boldStyle.Render(s) }

// wrap is what a style puts around one line of text, taken from the style
// itself once, so that the per-frame calls cost one concatenation rather
// than a lipgloss Render.
type wrap struct{ pre, post string }

// wrapOf is st's wrap, taken on first use: a lipgloss Render at start-up
// would cost every `lab run` (issue 14.7).
func wrapOf(st lipgloss.Style) func() wrap {
	return sync.OnceValue(func() wrap {
		pre, post, _ := strings.Cut(st.Render("\x00"), "\x00")
		return wrap{pre, post}
	})
}

func (w wrap) around(s string) string { return w.pre + s + w.post }

var (
	dimWrap = wrapOf(dimStyle)
	// The border inks, unfocused and focused.
	blurWrap, focusWrap = wrapOf(lipgloss.NewStyle().Foreground(blurColor)), wrapOf(lipgloss.NewStyle().Foreground(focusColor))
)

// dim greys out secondary text (one line); in mono it is left plain.
func dim(s string, st PaneStyle) string {
	if st.Mono {
		return s
	}
	return dimWrap().around(s)
}

func color(c, s string) string {
	return lipgloss.NewStyle().Foreground(lipgloss.Color(c)).Render(s)
}

// border glyphs: the focused pane has a heavy border, which shows focus
// without colour.
type border struct{ tl, tr, bl, br, h, v string }

var (
	lightBorder = border{"╭", "╮", "╰", "╯", "─", "│"}
	heavyBorder = border{"┏", "┓", "┗", "┛", "━", "┃"}
)

// frame draws body (lines of width w-2) in a w×h border with title on the
// top edge.
func frame(body []string, w, h int, title string, st PaneStyle) []string {
	b, ink := lightBorder, blurWrap()
	if st.Focused {
		b, ink = heavyBorder, focusWrap()
	}
	out := make([]string, 0, h)
	title = ansi.Truncate(title, max(0, w-5), "…")
	fill := max(0, w-5-chart.Width(title))
	out = append(out, ink.around(b.tl+b.h)+" "+title+" "+ink.around(strings.Repeat(b.h, fill)+b.tr))
	side := ink.around(b.v)
	body = chart.Fit(body, w-2, h-2)
	for _, line := range body {
		out = append(out, side+line+side)
	}
	out = append(out, ink.around(b.bl+strings.Repeat(b.h, w-2)+b.br))
	return out
}

// nbHyphen stands in for '-' while text is wrapped: x/ansi's Wrap breaks
// at every hyphen, which split "--json" across two lines.
const nbHyphen = "\u2011"

// wrapLines breaks styled text into lines of at most w cells at spaces
// (a word longer than w is cut), never at a hyphen: flags such as
// --series and words such as k-means stay whole.
func wrapLines(s string, w int) []string {
	s = strings.ReplaceAll(ansi.Wrap(strings.ReplaceAll(s, "-", nbHyphen), w, ""), nbHyphen, "-")
	return strings.Split(s, "\n")
}
