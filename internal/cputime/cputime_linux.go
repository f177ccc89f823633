//go:build linux

package cputime

import "time"

// rusageThread is Linux's RUSAGE_THREAD, which package syscall does not
// name.
const rusageThread = 1

func thread() time.Duration { return rusage(rusageThread) }
