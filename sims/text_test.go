package sims

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
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
