//go:build !linux

package algotest

import "testing"

// ThreadCPU reports nothing where the thread's CPU clock is not read (it
// is on Linux); see cpu_linux.go.
func ThreadCPU(b *testing.B) (report func()) { return func() {} }
