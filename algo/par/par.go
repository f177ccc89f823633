// Package par runs the data-parallel loops of the engines so that a result
// never depends on the number of cores. The work is cut into a fixed
// partition of blocks, decided by the data alone; each block writes its
// own slot (partial sums, say), and the caller reduces the slots in block
// order afterwards. Which goroutine ran which block, and when, changes
// nothing: a run from a seed gives the same numbers on one core or sixty.
//
// Engines keep a Loop for their lifetime and take a worker count (0 for
// GOMAXPROCS, 1 for serial); with one worker, or one block, Run calls the
// function on the caller's goroutine and starts none.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is the number of goroutines w asks for: w itself when positive,
// else GOMAXPROCS.
func Workers(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}

// Blocks is the number of blocks of size at most size that cover n items.
func Blocks(n, size int) int { return (n + size - 1) / size }

// Loop is a reusable fork-join over blocks: it holds the counter and wait
// group of a Run, so that a Run allocates nothing but the goroutines it
// starts. A Loop must not run two Runs at once.
type Loop struct {
	next atomic.Int64
	wg   sync.WaitGroup
	nb   int
	fn   func(block int)
}

// Run calls fn(b) for every block b in [0, nb) once, on up to
// min(Workers(workers), nb) goroutines, the caller's among them, and
// returns when all have returned. fn must write only what belongs to its
// block. A function value that captures nothing new, kept by the caller
// (a method value made once), keeps Run free of allocation.
func (l *Loop) Run(workers, nb int, fn func(block int)) {
	w := min(Workers(workers), nb)
	if w <= 1 {
		for b := 0; b < nb; b++ {
			fn(b)
		}
		return
	}
	l.nb, l.fn = nb, fn
	l.next.Store(0)
	l.wg.Add(w - 1)
	for range w - 1 {
		go l.worker()
	}
	l.drain()
	l.wg.Wait()
	l.fn = nil
}

func (l *Loop) worker() {
	defer l.wg.Done()
	l.drain()
}

// drain runs blocks until none is left.
func (l *Loop) drain() {
	for {
		b := int(l.next.Add(1) - 1)
		if b >= l.nb {
			return
		}
		l.fn(b)
	}
}

// Each calls fn(i) for every i in [0, n) once, on up to Workers(workers)
// goroutines, and returns when all have returned: for a few independent
// tasks (restarts of a fit), each writing its own slot.
func Each(workers, n int, fn func(i int)) {
	var l Loop
	l.Run(workers, n, fn)
}
