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
	}
}
