package chart

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWidthAgrees: Width is ansi.StringWidth on every rune of its fast
// path, alone and between SGR sequences, and on what falls back.
func TestWidthAgrees(t *testing.T) {
	for r := rune(0x20); r < 0x30000; r++ {
		if !narrowRune(r) && (r < 0x20 || r >= 0x7f) {
			continue
		}
		s := string(r)
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Errorf("U+%04X %q: Width %d, ansi.StringWidth %d", r, s, got, want)
		}
	}
	for _, s := range []string{
		"", "abc", "\x1b[0;1;38;2;10;20;30mT\x1b[m ⣿⣀ ▀▄ ■ ○ ●", "λ̃ K̂", "漢字 x", "🙂", "a\tb", "\x1b]8;;x\x1b\\link",
		"σ_f² = 0.3 ± 2σ, ‖w‖ → ∞ ≤ ≥ ∘ ∑ ┄┆·╌╎", "\x1b[38;2;1;2;3", "é", "e\u0301",
	} {
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Errorf("%q: Width %d, ansi.StringWidth %d", s, got, want)
		}
	}
}

func BenchmarkWidth(b *testing.B) {
	buf := newBuffer(100, 1, false)
	buf.text(0, 0, "⣿⣀ p(y=+1|x), line p = ½ ▀▄ ■ ○ ● σ_f² = 0.3 ± 2σ", newRGB(200, 100, 50), true)
	s := buf.lines()[0]
	b.Run("Width", func(b *testing.B) {
		for b.Loop() {
			Width(s)
		}
	})
	b.Run("ansi.StringWidth", func(b *testing.B) {
		for b.Loop() {
			ansi.StringWidth(s)
		}
	})
}
