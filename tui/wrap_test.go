package tui

import (
	"testing"

	"charm.land/lipgloss/v2"
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
