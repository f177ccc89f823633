package mcmc

import (
	"reflect"
	"slices"
	"testing"
)

// TestReserveDiagnostics: an Ensemble whose diagnostics are reserved
// summarises and draws ACFs exactly as one that grows its buffers with the
// runs (the same FFT plans, so the same numbers), and allocates for
// neither afterwards.
func TestReserveDiagnostics(t *testing.T) {
	lazy, reserved := hmcEnsemble(t, 4, 5, 1), hmcEnsemble(t, 4, 5, 1)
	reserved.ReserveDiagnostics()
	for _, n := range []int{30, 200, 1500, 5000} {
		for lazy.Transitions() < n {
			if err := lazy.Step(); err != nil {
				t.Fatal(err)
			}
			if err := reserved.Step(); err != nil {
				t.Fatal(err)
			}
		}
		for i := range lazy.Dim() {
			var a, b Summary
			if err := lazy.Summarise(i, &a); err != nil {
				t.Fatal(err)
			}
			if err := reserved.Summarise(i, &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%d steps, coordinate %d: reserved %+v, lazy %+v", n, i, b, a)
			}
			for c := range lazy.Chains() {
				if a, b := lazy.History(c).ACF(nil, i, 50), reserved.History(c).ACF(nil, i, 50); !slices.Equal(a, b) {
					t.Errorf("%d steps, chain %d, coordinate %d: ACF reserved %v, lazy %v", n, c, i, b, a)
				}
			}
		}
	}
	var s Summary
	acf := make([]float64, 0, 51)
	if allocs := testing.AllocsPerRun(3, func() {
		if err := reserved.Summarise(0, &s); err != nil {
			t.Fatal(err)
		}
		acf = reserved.History(1).ACF(acf, 1, 50)
	}); allocs != 0 {
		t.Errorf("reserved: %v allocations a Summarise and ACF", allocs)
	}
}
