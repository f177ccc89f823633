package ldasim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thelab/lab/sims/simtest"
)

// TestTextShownSafely: lda on documents whose words a terminal could draw
// at another width than the lab measures (a halfwidth voiced mark, which
// is a letter; conjoining jamo; a prepended letter; zero-width fillers),
// between every kind of control and format character, from a file whose
// name holds a bidi control and a byte that is not UTF-8: every string
// of its Frame and its --json result is printable and as wide every way,
// and the odd characters escaped. (tui's TestHostileTextAligned draws the
// pane of such a run.)
func TestTextShownSafely(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs \u202etxt.\xff.txt")
	if err := os.WriteFile(path, []byte(simtest.HostileDocs()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := simtest.Build(t, LDA, map[string]string{"corpus": path}, 1, nil)
	simtest.Run(t, s, 3)
	f := s.Frame()
	all := strings.Join(simtest.CheckText(t, f, s.Result()), "\n")
	for _, want := range []string{"docs <U+202E>txt.<FF>.txt", "ﾊ<U+FF9F>ﾊ<U+FF9F>ﾊ", "<U+0D4E>കക", "漢字漢", "naïve"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in the frame or result: %q", want, s.Result()["top_words"])
		}
	}
}
