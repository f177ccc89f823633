package par

import (
	"sync/atomic"
	"testing"
)

// TestRunEachBlockOnce: every block runs exactly once whatever the number
// of workers, including more workers than blocks, and no block.
func TestRunEachBlockOnce(t *testing.T) {
	var l Loop
	for _, workers := range []int{0, 1, 2, 3, 8} {
		for _, nb := range []int{0, 1, 2, 7, 100} {
			counts := make([]atomic.Int32, nb)
			l.Run(workers, nb, func(b int) { counts[b].Add(1) })
			for b := range counts {
				if c := counts[b].Load(); c != 1 {
					t.Fatalf("workers %d, %d blocks: block %d ran %d times", workers, nb, b, c)
				}
			}
		}
	}
}

// TestSerialStartsNothing: one worker runs the blocks in order on the
// caller's goroutine.
func TestSerialStartsNothing(t *testing.T) {
	var l Loop
	var order []int
	l.Run(1, 5, func(b int) { order = append(order, b) }) // no synchronisation: -race would object to another goroutine
	for i, b := range order {
		if b != i {
			t.Fatalf("order %v", order)
		}
	}
}

func TestBlocks(t *testing.T) {
	for _, c := range [][3]int{{0, 4, 0}, {1, 4, 1}, {4, 4, 1}, {5, 4, 2}, {100000, 4096, 25}} {
		if got := Blocks(c[0], c[1]); got != c[2] {
			t.Errorf("Blocks(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}
