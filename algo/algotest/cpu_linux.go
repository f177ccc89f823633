package algotest

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// ThreadCPU pins the benchmark to its OS thread and returns a function,
// to defer, that reports the thread's CPU time per operation as the metric
// "cpu-ns/op". On a shared machine wall time counts the time other jobs held
// the cores; thread CPU time counts only the benchmark's own work, which is
// what a performance target is about.
func ThreadCPU(b *testing.B) (report func()) {
	b.Helper()
	runtime.LockOSThread()
	start := threadNanos()
	return func() {
		d := threadNanos() - start
		runtime.UnlockOSThread()
		if b.N > 0 {
			b.ReportMetric(float64(d)/float64(b.N), "cpu-ns/op")
		}
	}
}

func threadNanos() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
