package sims

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestReadLines(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lines, err := ReadLines(nil, "corpus", write("docs.txt", "first doc\r\n\n  second doc  \nthird"))
	if err != nil || strings.Join(lines, "|") != "first doc|second doc|third" {
		t.Fatalf("got %q, %v", lines, err)
	}
	for name, path := range map[string]string{
		"missing": filepath.Join(dir, "nope.txt"),
		"empty":   write("empty.txt", " \n\n"),
		"binary":  write("bin.dat", "ab\x00cd"),
		"latin1":  write("latin1.txt", "caf\xe9"),
		"dir":     dir,
	} {
		if _, err := ReadLines(nil, "corpus", path); err == nil || !strings.Contains(err.Error(), "parameter corpus") {
			t.Errorf("%s: got %v, want an error naming the parameter", name, err)
		}
		if _, err := ReadText(nil, "corpus", path); err == nil || !strings.Contains(err.Error(), "parameter corpus") {
			t.Errorf("ReadText %s: got %v, want an error naming the parameter", name, err)
		}
	}
	// A binary or mis-encoded file is named by its first bad line.
	for content, want := range map[string]string{
		"ok\nstill ok\nab\x00cd":  "line 3, column 3: a NUL byte",
		"café\nnaïve\n\n caf\xe9": "line 4, column 5: the byte 0xe9 is not UTF-8",
	} {
		_, err := ReadText(nil, "text", write("bad.txt", content))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", content, err, want)
		}
	}
	text, err := ReadText(nil, "text", write("t.txt", "\n  one\r\ntwo  \n\n"))
	if err != nil || text != "one\ntwo" {
		t.Errorf("ReadText: %q, %v", text, err)
	}
}

// TestReadTextEncoding: a UTF-8 byte-order mark is no part of the text; a
// UTF-16 file is refused as such.
func TestReadTextEncoding(t *testing.T) {
	files := fstest.MapFS{
		"bom.txt":   {Data: []byte("\ufeffone doc\ntwo docs\n")},
		"utf16.txt": {Data: []byte("\xff\xfeo\x00n\x00e\x00")},
	}
	lines, err := ReadLines(files, "corpus", "bom.txt")
	if err != nil || strings.Join(lines, "|") != "one doc|two docs" {
		t.Errorf("ReadLines with a BOM: %q, %v", lines, err)
	}
	if text, err := ReadText(files, "text", "bom.txt"); err != nil || text != "one doc\ntwo docs" {
		t.Errorf("ReadText with a BOM: %q, %v", text, err)
	}
	if _, err := ReadText(files, "text", "utf16.txt"); err == nil || !strings.Contains(err.Error(), `parameter text = "utf16.txt": the file is UTF-16`) {
		t.Errorf("UTF-16: %v", err)
	}
}

// TestShown: what a message repeats is itself when plain, quoted when it
// could drive a terminal or is not there to see.
func TestShown(t *testing.T) {
	for in, want := range map[string]string{
		"points.csv":       "points.csv",
		"my data/é ü.csv":  "my data/é ü.csv",
		"":                 `""`,
		"--\x1b]0;title\a": `"--\x1b]0;title\a"`,
		"tab\there":        `"tab\there"`,
		"bidi\u202etxt":    `"bidi\u202etxt"`,
		"bad\xffbyte":      `"bad\xffbyte"`,
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzReadText: whatever the bytes, ReadLines and ReadText do not panic;
// they return UTF-8 text without NUL bytes, a byte-order mark or blank
// lines, or an error that names the parameter and, for a bad byte, its
// line.
func FuzzReadText(f *testing.F) {
	for _, seed := range []string{
		"one\ntwo\n",
		"\ufeffa document\r\nanother\r\n",
		"\xff\xfeu\x00t\x00f\x00",
		"\"quoted\", \"fields\"\n",
		"1e308 NaN Inf\n",
		"",
		" \n\t\n\r\n",
		"ab\x00cd\n",
		"caf\xe9\n",
		"\x1b]0;title\a\n",
		strings.Repeat("long line ", 20_000) + "\n",
		"no newline at the end",
		"\r\r\r",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		files := fstest.MapFS{"f.txt": {Data: data}}
		lines, err := ReadLines(files, "corpus", "f.txt")
		checkTextError(t, data, err, "corpus")
		for _, l := range lines {
			if l == "" || l != strings.TrimSpace(l) || strings.ContainsAny(l, "\n\x00") || !utf8.ValidString(l) || strings.HasPrefix(l, "\ufeff") {
				t.Fatalf("%q: line %q", data, l)
			}
		}
		text, err := ReadText(files, "text", "f.txt")
		checkTextError(t, data, err, "text")
		if err == nil && (text == "" || strings.Contains(text, "\r\n") || strings.Contains(text, "\x00") || !utf8.ValidString(text) || strings.HasPrefix(text, "\ufeff")) {
			t.Fatalf("%q: text %q", data, text)
		}
		if (err == nil) != (len(lines) > 0) {
			t.Fatalf("%q: ReadText and ReadLines disagree: %d lines, %v", data, len(lines), err)
		}
	})
}

// checkTextError fails t unless err is nil or names the parameter, and a
// line when it is about a byte.
func checkTextError(t *testing.T, data []byte, err error, param string) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "parameter "+param+` = "f.txt": `) || ((strings.Contains(msg, "not UTF-8") || strings.Contains(msg, "NUL byte")) && !strings.Contains(msg, "line ")) {
		t.Fatalf("%q: error %q", data, msg)
	}
}

// TestVisible: the one notation for text from data. Every byte alone, every
// control, escape sequences, split and invalid UTF-8, combining marks on a
// character and alone, wide and emoji characters, and the clusters that a
// terminal could measure otherwise than the lab.
func TestVisible(t *testing.T) {
	type tc struct {
		in     string
		spaces Spaces
		want   string
	}
	var cases []tc
	// All 256 byte values alone: printable ASCII is itself, a space too
	// (␣ when spaces are marked), newline and tab their symbols, the other
	// C0 controls and DEL their code points; no byte from 0x80 is a whole
	// character alone.
	for c := range 256 {
		in := string([]byte{byte(c)})
		var want string
		switch {
		case c == '\n':
			want = "⏎"
		case c == '\t':
			want = "→"
		case c >= 0x20 && c < 0x7f:
			want = in
		case c < 0x80:
			want = fmt.Sprintf("<U+%04X>", c)
		default:
			want = fmt.Sprintf("<%02X>", c)
		}
		cases = append(cases, tc{in, PlainSpaces, want})
		if c == ' ' {
			want = "␣"
		}
		cases = append(cases, tc{in, MarkSpaces, want})
	}
	// Every C0 and C1 control and DEL as a character (C1 encoded in
	// UTF-8), between letters.
	for r := rune(0); r < 0xa0; r++ {
		if r >= 0x20 && r < 0x7f || r == '\n' || r == '\t' {
			continue
		}
		cases = append(cases, tc{"a" + string(r) + "b", PlainSpaces, fmt.Sprintf("a<U+%04X>b", r)})
	}
	const (
		acute = "\u0301" // a combining mark (Mn)
		ring  = "\u20dd" // an enclosing mark (Me)
	)
	cases = append(cases, []tc{
		// Escape sequences: every ESC and 8-bit introducer is written out.
		{"\x1b[31mred\x1b[0m", PlainSpaces, "<U+001B>[31mred<U+001B>[0m"},
		{"\x1b]0;title\a", PlainSpaces, "<U+001B>]0;title<U+0007>"},
		{"\x1b]52;c;aGk=\x1b\\", PlainSpaces, "<U+001B>]52;c;aGk=<U+001B>\\"},
		{"\u009b31m\u009d0;t\u009c", PlainSpaces, "<U+009B>31m<U+009D>0;t<U+009C>"},
		{"a\r\nb c", PlainSpaces, "a<U+000D>⏎b c"},
		{"a\r\nb c", MarkSpaces, "a<U+000D>⏎b␣c"},
		// € (E2 82 AC) whole, split as a BPE token may split it, and
		// invalid UTF-8 (overlong, a surrogate, beyond U+10FFFF).
		{"€", PlainSpaces, "€"},
		{"\xe2", PlainSpaces, "<E2>"},
		{"\x82\xac", PlainSpaces, "<82><AC>"},
		{"a\xe2\x82", MarkSpaces, "a<E2><82>"},
		{"\xe2\x82 €", MarkSpaces, "<E2><82>␣€"},
		{"caf\xe9", PlainSpaces, "caf<E9>"},
		{"\xc0\xaf", PlainSpaces, "<C0><AF>"},
		{"\xed\xa0\x80", PlainSpaces, "<ED><A0><80>"},
		{"\xf4\x90\x80\x80", PlainSpaces, "<F4><90><80><80>"},
		// Combining marks stay on their character; with none before, they
		// go on ◌.
		{"e" + acute, PlainSpaces, "e" + acute},
		{"e" + acute + "\u0323", PlainSpaces, "e" + acute + "\u0323"},
		{"a" + ring, PlainSpaces, "a" + ring},
		{acute, PlainSpaces, "◌" + acute},
		{ring + "x", PlainSpaces, "◌" + ring + "x"},
		{acute + acute, MarkSpaces, "◌" + acute + acute},
		{"a " + acute, PlainSpaces, "a ◌" + acute},
		{" " + acute, MarkSpaces, "␣◌" + acute},
		{"\x1b" + acute, PlainSpaces, "<U+001B>◌" + acute},
		{"\xcc" + acute, PlainSpaces, "<CC>◌" + acute},
		{"\n" + acute, PlainSpaces, "⏎◌" + acute},
		{"漢" + acute, PlainSpaces, "漢" + acute},
		{"a" + strings.Repeat(acute, 9), PlainSpaces, "a" + strings.Repeat(acute, 8) + "<U+0301>"},
		{"a" + strings.Repeat(acute, 8) + "\x01" + acute, PlainSpaces, "a" + strings.Repeat(acute, 8) + "<U+0001>◌" + acute},
		{"a" + strings.Repeat(acute, 8) + "b" + acute, PlainSpaces, "a" + strings.Repeat(acute, 8) + "b" + acute},
		// Wide characters and emoji are themselves.
		{"漢字", PlainSpaces, "漢字"},
		{"한국어", PlainSpaces, "한국어"},
		{"😀🎉", PlainSpaces, "😀🎉"},
		{"ﾊ", PlainSpaces, "ﾊ"},
		// Format characters, separators and other spaces are not printed.
		{"a\u202eb\u202ac\u2066d\u2069", PlainSpaces, "a<U+202E>b<U+202A>c<U+2066>d<U+2069>"},
		{"a\u2028b\u2029", PlainSpaces, "a<U+2028>b<U+2029>"},
		{"a\u200bb\u200c\u200d\u00ad\ufeff", PlainSpaces, "a<U+200B>b<U+200C><U+200D><U+00AD><U+FEFF>"},
		{"a\u00a0b\u3000", PlainSpaces, "a<U+00A0>b<U+3000>"},
		{"\ue000\U0010ffff\U000e0041", PlainSpaces, "<U+E000><U+10FFFF><U+E0041>"},
		// Clusters that a terminal measures one way and the lab's cells
		// another: the joining character is written out.
		{"❤\ufe0f", PlainSpaces, "❤<U+FE0F>"},
		{"👍🏽", PlainSpaces, "👍<U+1F3FD>"},
		{"👨\u200d👩", PlainSpaces, "👨<U+200D>👩"},
		{"🇫🇷", PlainSpaces, "<U+1F1EB><U+1F1F7>"}, // a regional indicator alone is two cells or one
		{"का", PlainSpaces, "क<U+093E>"},
		{"ﾊﾟ", PlainSpaces, "ﾊ<U+FF9F>"},
		{"\u1100\u1161", PlainSpaces, "\u1100<U+1161>"},
		{"\u0d4eab", PlainSpaces, "<U+0D4E>ab"},
		// ... and a cluster that measures the same is kept.
		{"क्", PlainSpaces, "क्"},
		{"ที่", PlainSpaces, "ที่"},
	}...)
	for _, c := range cases {
		got := Visible(c.in, c.spaces)
		if got != c.want {
			t.Errorf("Visible(%q, %v) = %q, want %q", c.in, c.spaces, got, c.want)
		}
		checkVisible(t, c.in, got)
		// Visible text is shown as it is.
		if again := Visible(got, c.spaces); again != got {
			t.Errorf("Visible(%q) = %q, shown again %q", c.in, got, again)
		}
	}
}

// checkVisible fails t unless out, what Visible made of in, is valid
// UTF-8 with no control, format, separator, private-use or unassigned
// character, and is as wide by grapheme clusters as by code points.
func checkVisible(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Visible(%q) = %q: not UTF-8", in, out)
	}
	for _, r := range out {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs) {
			t.Fatalf("Visible(%q) = %q: holds %U", in, out, r)
		}
	}
	if g, wc := ansi.StringWidth(out), ansi.StringWidthWc(out); g != wc {
		t.Fatalf("Visible(%q) = %q: %d cells by grapheme clusters, %d by code points", in, out, g, wc)
	}
}

// TestVisibleEveryRune: every character of the basic and supplementary
// multilingual planes (and every 61st beyond, the tags and variation
// selectors whole, the last), alone and between letters, comes out valid,
// printable and as wide every way.
func TestVisibleEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		switch {
		case r >= 0xd800 && r < 0xe000:
			continue
		case r > 0x1ffff && r != unicode.MaxRune && (r < 0xe0000 || r > 0xe01ff) && r%61 != 0:
			continue
		}
		s := string(r)
		for _, in := range []string{s, "a" + s + "b"} {
			checkVisible(t, in, Visible(in, PlainSpaces))
		}
	}
}

// FuzzVisible: whatever the bytes, Visible's text is valid, printable and
// as wide every way, and shown again it is unchanged.
func FuzzVisible(f *testing.F) {
	for _, seed := range []string{"", "abc", "\x1b[31m", "\xe2\x82", "e\u0301", "\u0301", "👍🏽", "🇫🇷🇪", "का", "\u1100\u1161\u11a8", "\u0d4e\u0301"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, sp := range []Spaces{PlainSpaces, MarkSpaces} {
			out := Visible(in, sp)
			checkVisible(t, in, out)
			if again := Visible(out, sp); again != out {
				t.Fatalf("Visible(%q) = %q, shown again %q", in, out, again)
			}
		}
	})
}
