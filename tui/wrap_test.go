package tui

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestWrapIsRender: a style's wrap gives the bytes lipgloss's Render does
// for one line of text, for every style wrapped.
func TestWrapIsRender(t *testing.T) {
	for _, c := range []struct {
		w  func() wrap
		st lipgloss.Style
	}{
		{dimWrap, dimStyle},
		{blurWrap, lipgloss.NewStyle().Foreground(blurColor)},
		{focusWrap, lipgloss.NewStyle().Foreground(focusColor)},
	} {
		for _, s := range []string{"", "a note", "σ² = 0.3 ± 2σ", "╭─"} {
			if got, want := c.w().around(s), c.st.Render(s); got != want {
				t.Errorf("%q: %q, lipgloss %q", s, got, want)
			}
		}
	}
}

// TestWrapLinesKeepsHyphensWhole: styled help text wraps at spaces only,
// so a flag (--json) or a hyphenated word (k-means) is never split across
// lines, as x/ansi's Wrap split the export modal's "--json".
func TestWrapLinesKeepsHyphensWhole(t *testing.T) {
	const text = "shift+drag selects it too. Add --json, --frames or --series FILE.csv for output; k-means and em-gmm"
	styled := dimStyle.Render(text)
	for w := 12; w <= 60; w++ {
		lines := wrapLines(styled, w)
		var plain []string
		for _, l := range lines {
			p := ansi.Strip(l)
			if ansi.StringWidth(p) > w {
				t.Errorf("width %d: line %q is wider", w, p)
			}
			plain = append(plain, strings.TrimSpace(p))
		}
		if got := strings.Join(plain, " "); got != text {
			t.Errorf("width %d: words split: %q", w, lines)
		}
	}
}
