// Package cputime reads the CPU time a thread or the process has used, so
// that benchmarks on a shared, loaded machine can report what the code
// cost rather than how long it waited, and a session's budget charges
// what its work cost rather than how long a loaded machine kept it: a
// loaded machine inflates wall time several-fold, CPU time much less.
package cputime

import (
	"runtime"
	"time"
)

// Start locks the calling goroutine to its thread and returns the
// thread's CPU time: Stop, on the same goroutine, gives what the work
// between them cost.
func Start() time.Duration {
	runtime.LockOSThread()
	return Thread()
}

// Stop returns the thread's CPU time since Start (t0) and unlocks the
// goroutine.
func Stop(t0 time.Duration) time.Duration {
	d := Thread() - t0
	runtime.UnlockOSThread()
	return max(0, d)
}

// Thread is the CPU time (user + system) of the calling OS thread; the
// caller locks its goroutine to the thread (runtime.LockOSThread) around
// what it measures. Where the system does not report per-thread time it
// is Process.
func Thread() time.Duration { return thread() }

// Process is the CPU time (user + system) of the whole process, all
// threads: what a parallel loop costs. Where the system does not report
// CPU time it is the wall time since the process started.
func Process() time.Duration { return process() }
