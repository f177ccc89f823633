package sims

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirFilesOpensByNameOnly(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	os.WriteFile(secret, []byte("the server's secret\n"), 0o600)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "docs.txt"), []byte("first doc\nsecond doc\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("word ", 1000)), 0o644)
	os.Symlink(secret, filepath.Join(dir, "link.txt"))
	os.Symlink("docs.txt", filepath.Join(dir, "alias.txt")) // inside: fine
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("the server's secret\n"), 0o644) // neither listed nor opened
	os.WriteFile(filepath.Join(dir, ".docs.txt.swp"), []byte("first doc\n"), 0o644)
	f, err := DirFiles(dir, 1024)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := ReadLines(f, "corpus", "docs.txt")
	if err != nil || len(lines) != 2 {
		t.Fatalf("docs.txt: %q, %v", lines, err)
	}
	if lines, err := ReadLines(f, "corpus", "alias.txt"); err != nil || len(lines) != 2 {
		t.Errorf("a link within the directory: %q, %v", lines, err)
	}
	for name, want := range map[string]string{
		secret: "by its name alone",
		"../" + filepath.Base(outside) + "/secret.txt": "by its name alone",
		"..":            "by its name alone",
		"link.txt":      "not readable",
		"sub":           "not a regular file",
		"nope.txt":      "it holds big.txt, docs.txt",
		"big.txt":       "the file is 5000 bytes, over this server's limit of 1 KiB",
		"/etc/passwd":   "by its name alone",
		".env":          "no names beginning with '.' (it holds big.txt, docs.txt)",
		".docs.txt.swp": "no names beginning with '.'",
		"":              "by its name alone",
	} {
		_, err := ReadLines(f, "corpus", name)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "parameter corpus") {
			t.Errorf("%q: %v, want an error naming the parameter and saying %q", name, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "the server's secret") {
			t.Errorf("%q: the error shows the file's content: %v", name, err)
		}
	}
	if _, err := DirFiles(filepath.Join(dir, "missing"), 1024); err == nil {
		t.Error("a missing data directory was accepted")
	}
}

func TestNoFilesAndLocalFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs.txt")
	os.WriteFile(path, []byte("a doc\n"), 0o644)
	if _, err := ReadLines(NoFiles("no files here"), "corpus", path); err == nil || !strings.Contains(err.Error(), "no files here") {
		t.Errorf("NoFiles: %v", err)
	}
	if lines, err := ReadLines(nil, "corpus", path); err != nil || len(lines) != 1 {
		t.Errorf("the local file system: %q, %v", lines, err)
	}
}

func TestCatalogWithFilesReachesEveryBuild(t *testing.T) {
	var seen Files
	spec := &Spec{Name: "reader", Size: noSize, New: func(cfg Config) (Sim, error) {
		seen = cfg.Files
		return nil, errors.New("built")
	}}
	c, err := NewCatalog(spec)
	if err != nil {
		t.Fatal(err)
	}
	policy := NoFiles("none")
	w := c.WithFiles(policy)
	w.Lookup("reader").Build(Config{}) // as a runner's restart does, without Files
	if seen != policy {
		t.Errorf("the build saw %v, want the catalogue's policy", seen)
	}
	c.Lookup("reader").Build(Config{})
	if seen != nil {
		t.Error("the original catalogue changed")
	}
}
