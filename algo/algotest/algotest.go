// Package algotest holds the assertions that the engines' tests share. It
// is imported only by _test.go files.
package algotest

import (
	"math"
	"runtime"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/internal/cputime"
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

// CPUTime makes a benchmark also report the CPU time per operation that
// its goroutine's thread used ("cpu-ns/op"), which a loaded machine
// inflates much less than the wall time of ns/op. Call it first, as
// `defer algotest.CPUTime(b)()`: it locks the goroutine to its thread until
// the returned function runs. For code that runs goroutines of its own,
// ProcessCPUTime counts every thread.
func CPUTime(b *testing.B) func() {
	runtime.LockOSThread()
	start := cputime.Thread()
	return func() {
		b.ReportMetric(float64(cputime.Thread()-start)/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}

// ProcessCPUTime is CPUTime counting the whole process's CPU time (all
// its threads, the garbage collector's included) as "cpu-ns/op".
func ProcessCPUTime(b *testing.B) func() {
	start := cputime.Process()
	return func() {
		b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
	}
}
