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

// TestResidualSaysRoundingIsZero: a quantity that is 0 in exact arithmetic
// reads "0" when it is, "≈ 0" at rounding level of its scale, and its
// value above that (issue 26.8).
func TestResidualSaysRoundingIsZero(t *testing.T) {
	for _, c := range []struct {
		x, scale  float64
		value, is string
	}{
		{0, 1, "0", "= 0"},
		{4.2e-16, 1, "≈ 0", "≈ 0"},
		{-4.2e-16, 1, "≈ 0", "≈ 0"},
		{4.2e-16, 1e-6, "4.2e-16", "= 4.2e-16"}, // the quantities are that small
		{RoundingNoise, 1, "≈ 0", "≈ 0"},
		{2 * RoundingNoise, 1, "2.8e-14", "= 2.8e-14"},
		{3e-3, 10, "3.0e-03", "= 3.0e-03"},
	} {
		if got := Residual("%.1e", c.x, c.scale); got != c.value {
			t.Errorf("Residual(%g, scale %g) = %q, want %q", c.x, c.scale, got, c.value)
		}
		if got := IsResidual("%.1e", c.x, c.scale); got != c.is {
			t.Errorf("IsResidual(%g, scale %g) = %q, want %q", c.x, c.scale, got, c.is)
		}
	}
}
