package sims

import (
	"slices"
	"testing"
)

// TestLevelIsMap checks that a Level is the Trace's Map of its constant,
// before and after the Trace thins.
func TestLevelIsMap(t *testing.T) {
	tr, l := NewTrace(1, 2), NewLevel(0.25)
	for i := range 3 * TraceCap {
		tr.Add(float64(i), -float64(i))
		if i%97 == 0 || i == 3*TraceCap-1 {
			if got, want := l.Of(tr), tr.Map(func(int) float64 { return 0.25 }); !slices.Equal(got, want) {
				t.Fatalf("after %d rows: Level %d values, Map %d", i+1, len(got), len(want))
			}
		}
	}
}
