package cputime

import (
	"runtime"
	"testing"
)

// TestCPUAdvances: spinning on a locked thread advances both clocks, the
// process's at least as far as the thread's.
func TestCPUAdvances(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, p0 := Thread(), Process()
	x := 1.0
	for Thread()-t0 < 20e6 { // 20 ms of CPU
		for range 1000 {
			x = x*1.0000001 + 1e-9
		}
	}
	dt, dp := Thread()-t0, Process()-p0
	if dt < 20e6 || dp < dt {
		t.Errorf("thread %v, process %v (x = %v)", dt, dp, x)
	}
}
