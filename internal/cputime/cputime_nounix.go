//go:build !unix

package cputime

import "time"

var start = time.Now()

func process() time.Duration { return time.Since(start) }
func thread() time.Duration  { return process() }
