//go:build unix

package sims

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOnlyRegularFilesAreRead: a named pipe (which would block the read
// until a writer came), a device (/dev/zero never ends), a directory and a
// file over the size limit are refused, promptly and saying what they
// are, by every reader and both of the lab's Files; a file that grows past
// the limit while it is read fails the read.
func TestOnlyRegularFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	big := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(big, []byte("x\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFile+1); err != nil { // sparse: no disk is used
		t.Fatal(err)
	}
	served, err := DirFiles(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mid.txt"), make([]byte, 1<<20+1), 0o600); err != nil {
		t.Fatal(err)
	}
	readers := map[string]func(files Files, name string) error{
		"LoadCSV":   func(files Files, name string) error { _, err := LoadCSV(files, name); return err },
		"ReadLines": func(files Files, name string) error { _, err := ReadLines(files, "corpus", name); return err },
		"ReadText":  func(files Files, name string) error { _, err := ReadText(files, "text", name); return err },
	}
	cases := []struct {
		name  string
		files Files
		path  string
		want  string
	}{
		{"a named pipe", nil, fifo, "a named pipe (FIFO), not a regular file: the lab reads only regular files"},
		{"a directory", nil, dir, "a directory, not a regular file"},
		{"a file over the limit", nil, big, "the file is 67108865 bytes, over the lab's limit of 64 MiB"},
		{"a served named pipe", served, "fifo", "a named pipe (FIFO), not a regular file: the lab reads only regular files; pick one of the server's data directory (it holds big.csv, mid.txt)"},
		{"a served file over the limit", served, "mid.txt", "the file is 1048577 bytes, over this server's limit of 1 MiB"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct {
			name  string
			files Files
			path  string
			want  string
		}{"/dev/zero", nil, "/dev/zero", "a character device, not a regular file"})
	}
	for _, c := range cases {
		for rname, read := range readers {
			done := make(chan error, 1)
			go func() { done <- read(c.files, c.path) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s, %s: %v, want %q", rname, c.name, err, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s, %s: still reading after 10s", rname, c.name)
			}
		}
	}
	// Growing past the limit after the check.
	grow := filepath.Join(dir, "grows.txt")
	if err := os.WriteFile(grow, []byte("a line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := served.Open("grows.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(grow, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(f); err == nil || !strings.Contains(err.Error(), "the file grew past this server's limit of 1 MiB") {
		t.Errorf("a file grown past the limit: %v", err)
	}
}
