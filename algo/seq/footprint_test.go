package seq

import "testing"

// heldWindows counts the windows NewHeldOut cuts.
func TestHeldWindows(t *testing.T) {
	for _, T := range []int{2, 3, 8, 33} {
		for n := T + 1; n < 5*T; n++ {
			h, err := NewHeldOut(make([]int, n), T)
			if err != nil {
				t.Fatal(err)
			}
			if got := heldWindows(n, T); got != h.n {
				t.Errorf("n = %d, T = %d: %d windows, heldWindows %d", n, T, h.n, got)
			}
		}
	}
}
