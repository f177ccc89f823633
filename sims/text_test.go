package sims

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
