package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is the lab's module path.
const module = "github.com/thelab/lab"

// floors are the trees of the module and the floor each stands on: a
// package may import one of a lower floor, or of its own tree.
var floors = map[string]int{
	"internal": 0, // utilities: CPU time, BLAS, ANSI to SVG; nothing of the lab
	"algo":     1, // mathematics only
	"sims":     2, // engines adapted to Frames
	"scene":    3, // dashboards declared once
	"tui":      4, // draws Frames
	"record":   5, // the TUI's screens into casts
	"serve":    5, // the TUI over SSH
	"cmd":      6,
	"bench":    6,
}

// tree is the top directory of a package path inside the module, and
// for internal/... the package itself (one utility does not lean on
// another).
func tree(rel string) string {
	if strings.HasPrefix(rel, "internal/") {
		return rel
	}
	top, _, _ := strings.Cut(rel, "/")
	return top
}

func floor(rel string) (int, bool) {
	top, _, _ := strings.Cut(rel, "/")
	f, ok := floors[top]
	return f, ok
}

// TestLayering reads the imports of every Go file of the module, tests
// included (a test of a floor builds and checks what is below it: the
// goldens of the panes are tui's, not the sims'), and fails on an import
// of a higher floor, of another tree on the same floor, or of a tree the
// table does not know. Directories the go tool ignores (., _ and
// testdata) are skipped.
func TestLayering(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files, tests := 0, 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		from, ok := floor(rel)
		if !ok {
			t.Errorf("%s: the tree %q has no floor (add it to floors)", rel, tree(rel))
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		if strings.HasSuffix(path, "_test.go") {
			tests++
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			dep, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				continue // the standard library or another module
			}
			to, known := floor(dep)
			switch {
			case !known:
				t.Errorf("%s imports %s, of a tree with no floor", rel, dep)
			case tree(dep) == tree(rel):
			case to >= from:
				t.Errorf("%s (floor %d) imports %s (floor %d): a package imports only lower floors or its own tree",
					rel+"/"+filepath.Base(path), from, dep, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files-tests < 100 || tests < 100 {
		t.Fatalf("read %d files and %d tests: the walk missed the module", files-tests, tests)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("%s is not the module's root: %v", root, err)
	}
}
