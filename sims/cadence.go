package sims

import (
	"math"
	"sync/atomic"
	"time"
)

// FrameInterval is the interval between the screens of a live session
// when nothing asks for another: 30 a second.
const FrameInterval = time.Second / 30

// Cadence is how often a live session's charts move: its runners publish
// a Frame no oftener while stepping, and its screen collects them at the
// same interval. It starts at a base interval; lab serve stretches every
// session's while the machine is busy, so that charts move less often
// before keys wait for the cores. What answers a key (a pause, a step, a
// new parameter) is published at once, whatever the cadence.
//
// A nil *Cadence is FrameInterval. Its methods are safe for concurrent
// use.
type Cadence struct {
	base time.Duration
	cur  atomic.Int64
}

// NewCadence is a cadence at interval base (> 0).
func NewCadence(base time.Duration) *Cadence {
	c := &Cadence{base: base}
	c.cur.Store(int64(base))
	return c
}

// Interval is the interval now.
func (c *Cadence) Interval() time.Duration {
	if c == nil {
		return FrameInterval
	}
	return time.Duration(c.cur.Load())
}

// Base is the interval the cadence was made with.
func (c *Cadence) Base() time.Duration {
	if c == nil {
		return FrameInterval
	}
	return c.base
}

// Stretch sets the interval to base × f (f ≥ 1; less is 1).
func (c *Cadence) Stretch(f float64) {
	d := float64(c.base) * max(1, f)
	c.cur.Store(int64(min(d, math.MaxInt64)))
}
