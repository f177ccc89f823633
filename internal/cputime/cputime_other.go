//go:build unix && !linux

package cputime

import "time"

func thread() time.Duration { return process() }
