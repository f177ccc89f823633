package par

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of the module's root, two directories up.
const module = "github.com/thelab/lab"

// TestUnwatchedKernelsAreSerial: a function marked //go:norace is not
// instrumented by the race detector (its reads and writes are not seen),
// which the lab allows only for the serial data loops of the engines
// (algo/tensor's kernels: under -race they ran seven times slower, a third
// of the suite's CPU). The detector then still sees everything a race could
// involve, provided such kernels only ever run on the goroutine that owns
// their buffers: so they live under algo/, their packages start no
// goroutine and import neither sync nor this package, and no file that
// runs a Loop imports them (a block could otherwise call a kernel on
// another goroutine). A Frame is a copy made outside the kernels, and the
// runner's goroutine is the only one that steps an engine.
func TestUnwatchedKernelsAreSerial(t *testing.T) {
	type file struct {
		dir     string // import path of its package
		imports []string
		goStmt  bool
	}
	var files []file
	unwatched := map[string][]string{} // package → its //go:norace functions
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		fl := file{dir: path.Join(module, filepath.ToSlash(rel))}
		for _, im := range f.Imports {
			q, _ := strconv.Unquote(im.Path.Value)
			fl.imports = append(fl.imports, q)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.GoStmt); ok {
				fl.goStmt = true
			}
			return !fl.goStmt
		})
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil && slices.ContainsFunc(fd.Doc.List, func(c *ast.Comment) bool { return c.Text == "//go:norace" }) {
				unwatched[fl.dir] = append(unwatched[fl.dir], fd.Name.Name)
			}
		}
		files = append(files, fl)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(unwatched[module+"/algo/tensor"]) == 0 {
		t.Fatalf("found no //go:norace kernel in algo/tensor among %d files: is the walk wrong?", len(files))
	}
	loop := module + "/algo/par"
	for pkg, fns := range unwatched {
		if !strings.HasPrefix(pkg, module+"/algo/") {
			t.Errorf("%s marks %v //go:norace: only the engines' kernels (algo/) may", pkg, fns)
		}
	}
	for _, f := range files {
		if fns := unwatched[f.dir]; len(fns) > 0 && (f.goStmt || slices.Contains(f.imports, "sync") || slices.Contains(f.imports, loop)) {
			t.Errorf("%s marks %v //go:norace but starts goroutines or imports sync or algo/par", f.dir, fns)
		}
		if slices.Contains(f.imports, loop) {
			for _, im := range f.imports {
				if fns := unwatched[im]; len(fns) > 0 {
					t.Errorf("a file of %s runs par Loops and imports %s, whose %v are //go:norace", f.dir, im, fns)
				}
			}
		}
	}
}
