package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
)

// TestOpenScene: a scene file opens with its data file read (a path
// relative to the file's folder) and checked against its checksum; a
// changed file, a bad scene and a missing file are usage errors.
func TestOpenScene(t *testing.T) {
	dir := t.TempDir()
	csv := "x1,x2,label\n0,0,0\n1,1,1\n0,1,0\n1,0,1\n2,2,1\n-1,-1,0\n"
	if err := os.WriteFile(filepath.Join(dir, "pts.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := sims.LoadCSV(nil, filepath.Join(dir, "pts.csv"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(text string) string {
		p := filepath.Join(dir, "s.scene")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("name saved\npane logreg --seed=3 --steps=4 --data=pts.csv --sha256=" + tab.Sum + "\n")
	opts, err := openScene(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.Panes) != 1 || opts.Panes[0].Data == nil || len(opts.Panes[0].Data.Rows) != 6 || opts.Panes[0].Steps != 4 ||
		*opts.Panes[0].Seed != 3 {
		t.Fatalf("opened %+v", opts.Panes)
	}
	for _, c := range []struct{ text, want string }{
		{"name saved\npane logreg --data=pts.csv --sha256=" + strings.Repeat("0", 64) + "\n", "has changed since it was saved"},
		{"name saved\npane logreg --data=nosuch.csv\n", "nosuch.csv"},
		{"name saved\npane nosuch\n", `unknown sim "nosuch"`},
		{"pane gd\n", "no name"},
	} {
		if _, err := openScene(write(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.text, err, c.want)
		}
	}
	if _, err := openScene(filepath.Join(dir, "none.scene")); err == nil {
		t.Error("a missing file opened")
	}
}
