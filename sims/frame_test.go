package sims

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestFiniteOr(t *testing.T) {
	for _, c := range []struct{ x, alt, want float64 }{
		{2, 0, 2}, {-1e308, 7, -1e308}, {math.NaN(), 0, 0}, {math.Inf(1), -1, -1}, {math.Inf(-1), 3, 3},
	} {
		if got := FiniteOr(c.x, c.alt); got != c.want {
			t.Errorf("FiniteOr(%v, %v) = %v, want %v", c.x, c.alt, got, c.want)
		}
	}
}

// TestChartKindsComplete: ChartKinds lists every type of this package that
// is a Chart (has the sealing method), so the renderers' tests, which draw
// ChartKinds, cover a new kind as soon as it exists.
func TestChartKindsComplete(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sealed := map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "chart" {
				continue
			}
			if id, ok := fd.Recv.List[0].Type.(*ast.Ident); ok {
				sealed[id.Name] = true
			}
		}
	}
	listed := map[string]bool{}
	for _, c := range ChartKinds() {
		listed[reflect.TypeOf(c).Name()] = true
	}
	if len(sealed) == 0 || !maps.Equal(sealed, listed) {
		t.Errorf("chart kinds %v, ChartKinds lists %v", slices.Sorted(maps.Keys(sealed)), slices.Sorted(maps.Keys(listed)))
	}
}
