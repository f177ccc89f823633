// Package algotest holds the assertions that the engines' tests share. It
// is imported only by _test.go files.
package algotest

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo"
)

// Near reports a test error unless |got − want| ≤ tol (a NaN is never
// near).
func Near(t testing.TB, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.12g, want %.12g (±%g)", what, got, want, tol)
	}
}

// WantParam reports a test error unless err is a *algo.ParamError naming
// the parameter name.
func WantParam(t testing.TB, err error, name string) {
	t.Helper()
	if !algo.IsParamError(err, name) {
		t.Errorf("got %v, want a ParamError naming %s", err, name)
	}
}
