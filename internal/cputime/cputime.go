// Package cputime reads the CPU time a thread or the process has used, so
// that benchmarks on a shared, loaded machine can report what the code
// cost rather than how long it waited: a loaded machine inflates wall
// time several-fold, CPU time much less.
package cputime

import "time"

// Thread is the CPU time (user + system) of the calling OS thread; the
// caller locks its goroutine to the thread (runtime.LockOSThread) around
// what it measures. Where the system does not report per-thread time it
// is Process.
func Thread() time.Duration { return thread() }

// Process is the CPU time (user + system) of the whole process, all
// threads: what a parallel loop costs. Where the system does not report
// CPU time it is the wall time since the process started.
func Process() time.Duration { return process() }
