package seqsim

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// checkShown checks that every string of s's Frame and result is valid
// UTF-8 with no control, format or separator character and as wide every
// way (simtest.CheckText), and returns the strings joined. (tui's
// TestHostileTextAligned draws the panes of these runs.)
func checkShown(t *testing.T, s sims.Sim) string {
	t.Helper()
	all := simtest.CheckText(t, s.Frame(), s.Result())
	return strings.Join(all, "\n")
}

// splitByte is a byte of a character that a token splits, as shown.
var splitByte = regexp.MustCompile(`<[0-9A-F]{2}>`)

// TestTextShownSafely: each text sim on the strongest text its reader
// takes, and bpe on all 256 byte values, shows readable escapes and
// never a control character, in its Frame and in --json.
func TestTextShownSafely(t *testing.T) {
	dir := t.TempDir()
	// A path is shown too (a bidi control and a byte that is not UTF-8
	// are allowed in a file's name and a text parameter).
	path := filepath.Join(dir, "corpus \u202etxt.\xff.txt")
	if err := os.WriteFile(path, []byte(simtest.HostileText(12_000, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	every := make([]byte, 0, 256*8)
	for range 8 {
		for c := range 256 {
			every = append(every, byte(c))
		}
	}
	every = append(every, "€€€€ naïve café"...)
	binary := filepath.Join(dir, "every-byte.bin")
	if err := os.WriteFile(binary, every, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []*sims.Spec{NGram, BPE, RNN, TinyGPT} {
		// The readers refuse NUL bytes and invalid UTF-8.
		if _, err := simtest.BuildErr(spec, map[string]string{"text": binary}, 1, nil); err == nil || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("%s on every byte: %v, want a NUL byte refused", spec.Name, err)
		}
	}

	t.Run("ngram", func(t *testing.T) {
		s := simtest.Build(t, NGram, map[string]string{"text": path, "k": "3"}, 1, nil)
		if all := checkShown(t, s); !strings.Contains(all, "corpus <U+202E>txt.<FF>.txt") {
			t.Errorf("the path is not shown escaped: %q", s.Frame().Text)
		}
		simtest.Run(t, s, 5)
		if all := checkShown(t, s); !strings.Contains(all, "<U+") {
			t.Errorf("no escape in the sample: %q", s.Result()["sample"])
		}
	})
	t.Run("bpe", func(t *testing.T) {
		s := simtest.Build(t, BPE, map[string]string{"text": path, "merges": "300"}, 1, nil)
		simtest.RunUntil(t, s, 300)
		all := checkShown(t, s)
		if !strings.Contains(all, "<U+") || !splitByte.MatchString(all) {
			t.Errorf("no control or split byte escaped: %q", s.Result()["pieces"])
		}
	})
	t.Run("bpe-every-byte", func(t *testing.T) {
		s, err := newBPEOn(every, 300)
		if err != nil {
			t.Fatal(err)
		}
		if all := checkShown(t, s); !strings.Contains(all, "<U+0000>|<U+0001>") || !strings.Contains(all, "<U+001B>") {
			t.Errorf("before a merge: %q", s.Frame().Text)
		}
		simtest.RunUntil(t, s, 300)
		all := checkShown(t, s)
		// Merges of the byte values, two by two, then of € split: its last
		// two bytes first (their tie with E2 82 goes to the smaller ids).
		for _, want := range []string{"<U+007F><80>", "<FE><FF>", "␣!", "<82><AC>", "€"} {
			if !strings.Contains(all, want) {
				t.Errorf("no %s", want)
			}
		}
		// --json gives each new token's bytes exactly.
		r := s.Result()
		for i, m := range s.b.Merges() {
			if h := r["piece_hex"].([]string)[i]; h != hexOf(s.b.Piece(m.New)) {
				t.Errorf("merge %d: piece_hex %s, bytes % x", i+1, h, s.b.Piece(m.New))
			}
		}
	})
	// rnn and tinygpt read the first 1 100 characters (chars 1000, the
	// least): as hostile as the whole file, and a build counts its k-gram
	// baseline over a vocabulary of hundreds of characters on what it
	// reads (on all 12 000 bytes, 1.5 s of CPU a build under -race).
	t.Run("rnn", func(t *testing.T) {
		s := simtest.Build(t, RNN, map[string]string{"text": path, "chars": "1000", "hidden": "16", "context": "16", "batch": "4"}, 1, nil)
		simtest.Run(t, s, 2)
		if all := checkShown(t, s); !strings.Contains(all, "<U+") {
			t.Errorf("no escape in the sample: %q", s.Result()["sample"])
		}
	})
	t.Run("tinygpt", func(t *testing.T) {
		s := simtest.Build(t, TinyGPT, map[string]string{"text": path, "chars": "1000", "dim": "16", "heads": "2", "layers": "1", "ffn": "16",
			"context": "16", "batch": "4"}, 1, nil)
		simtest.Run(t, s, 2)
		if all := checkShown(t, s); !strings.Contains(all, "<U+") {
			t.Errorf("no escape in the sample: %q", s.Result()["sample"])
		}
	})
	t.Run("attention", func(t *testing.T) {
		// A sentence holds no control (a text parameter is one line), but
		// anything else.
		sentence := "the \u202edog e\u0301 \u0301x ❤\ufe0f 漢字 a\xffb 👍🏽 का x\u200by"
		s := simtest.Build(t, Attention, map[string]string{"sentence": sentence}, 1, nil)
		for range 9 {
			checkShown(t, s)
			simtest.Run(t, s, 1)
		}
		all := checkShown(t, s)
		for _, want := range []string{"<U+202E>dog", "◌\u0301x", "a<FF>b", "x<U+200B>y"} {
			if !strings.Contains(all, want) {
				t.Errorf("no %q", want)
			}
		}
	})
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&0xf])
	}
	return string(out)
}
