package scene

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thelab/lab/sims/catalog"
)

// TestLoadDir: a teacher's folder is its .scene files in their names'
// order, data files read relative to the folder; two scenes of one name,
// a bad scene, an empty or missing folder are errors naming the file.
func TestLoadDir(t *testing.T) {
	cat := catalog.All()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pts.csv", "x1,x2,label\n0,0,0\n1,1,1\n0,1,0\n1,0,1\n")
	write("02-second.scene", "name second\npane logreg --data=pts.csv\n")
	write("01-first.scene", "name first\ntitle First\npane gd\npane mh\n")
	write("notes.txt", "not a scene")
	got, err := LoadDir(dir, cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "first" || got[1].Name != "second" || got[1].Panes[0].Table == nil {
		t.Fatalf("read %+v", got)
	}
	if res, err := got[1].Run(cat, 2); err != nil || res[0].Steps != 2 {
		t.Errorf("the data scene runs: %v, %+v", err, res)
	}
	write("03-again.scene", "name first\npane gd\n")
	if _, err := LoadDir(dir, cat); err == nil || !strings.Contains(err.Error(), "both name a scene first") {
		t.Errorf("two scenes named first: %v", err)
	}
	write("03-again.scene", "name third\npane gd nosuch=1\n")
	if _, err := LoadDir(dir, cat); err == nil || !strings.Contains(err.Error(), "03-again.scene") {
		t.Errorf("a bad scene: %v", err)
	}
	write("03-again.scene", "name third\npane gd --data=pts.csv\n")
	if _, err := LoadDir(dir, cat); err == nil || !strings.Contains(err.Error(), "takes no --data") {
		t.Errorf("data for a sim without: %v", err)
	}
	if _, err := LoadDir(t.TempDir(), cat); err == nil || !strings.Contains(err.Error(), "no .scene files") {
		t.Errorf("an empty folder: %v", err)
	}
	if _, err := LoadDir(filepath.Join(dir, "none"), cat); err == nil {
		t.Error("a missing folder read")
	}
}
