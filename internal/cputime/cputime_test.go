package cputime

import (
	"runtime"
	"testing"
)

// TestCPUAdvances: spinning on a locked thread advances both clocks, the
// process's at least as far as the thread's, within the kernel's
// accounting of the process clock, which can lag the running thread's by
// up to a tick (on a loaded machine it read 1.2 ms short of 21.8 ms).
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
	if dt < 20e6 || dp < dt-tick {
		t.Errorf("thread %v, process %v (x = %v)", dt, dp, x)
	}
}

// tick is the most the process clock may lag the thread's: a scheduler
// tick at the lowest common rate, 100 Hz.
const tick = 10e6
