package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thelab/lab/scene"
	"github.com/thelab/lab/sims/catalog"
)

// TestSave: lab save writes the dashboard lab would open as a scene file
// that lab open restores (seeds made explicit, parameters in canonical
// text, a data file relative to the scene's folder with its checksum);
// a built-in scene's name writes its file; bad input is a usage error
// and an existing file is kept.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	csv, err := filepath.Abs("../../testdata/blobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sub", "lesson.scene")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"save", "--seed", "4", "gd", "--set", "lr=0.050", "em-gmm", "--data", csv, "--steps", "5",
		"--name", "my-lesson", "--title", "Two panes", "--caption", "watch the path", "--focus", "2", "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("status %d: %s", code, stderr.String())
	}
	sc, err := scene.Load(out, catalog.All())
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "my-lesson" || sc.Title != "Two panes" || len(sc.Caption) != 1 || sc.Focus != 1 || len(sc.Panes) != 2 {
		t.Fatalf("read back %+v", sc)
	}
	gd, em := sc.Panes[0], sc.Panes[1]
	if gd.Seed != 4 || em.Seed != 5 || len(gd.Set) != 1 || gd.Set[0].Value != "0.05" || em.Steps != 5 ||
		em.Table == nil || filepath.IsAbs(em.Data) || em.DataSum != em.Table.Sum {
		t.Errorf("panes read back: %+v, %+v", gd, em)
	}
	if code := run([]string{"save", "gd", "--out", out}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "exists") {
		t.Errorf("an existing file: status %d, %q", code, stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"save", "sinkhorn-underflow"}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "name    sinkhorn-underflow\n") {
		t.Errorf("a built-in scene: status %d, %q", code, stdout.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"save"}, "name the sims"},
		{[]string{"save", "gd", "--focus", "2"}, "--focus 2"},
		{[]string{"save", "--name", "Bad Name", "gd"}, `name "Bad Name"`},
		{[]string{"save", "gd", "gd", "gd", "gd", "gd"}, "at most 4 panes"},
		{[]string{"save", "sinkhorn-underflow", "--set", "eps=1"}, `unknown sim "sinkhorn-underflow"`},
		{[]string{"save", "gd", "--caption", "a", "--caption", "b", "--caption", "c"}, "at most two caption lines"},
	} {
		stderr.Reset()
		if code := run(c.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: status %d, %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestSceneNamesAreNoSims: a built-in scene's name never names a sim, so
// that lab save NAME means one thing.
func TestSceneNamesAreNoSims(t *testing.T) {
	cat := catalog.All()
	for _, s := range scene.Builtins() {
		if cat.Lookup(s.Name) != nil {
			t.Errorf("scene %s is also a sim", s.Name)
		}
	}
}
