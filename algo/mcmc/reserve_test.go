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

// TestMomentEnsemble: an Ensemble without Histories keeps the same counts
// and pooled moments, bit for bit, with one chain or several.
func TestMomentEnsemble(t *testing.T) {
	for _, chains := range []int{1, 3} {
		full := hmcEnsemble(t, chains, 5, 1)
		cs := make([]Sampler, chains)
		for c := range cs {
			cs[c] = hmcEnsemble(t, chains, 5, 1).Chain(c)
		}
		light, err := NewMomentEnsemble(cs, 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			if err := full.Step(); err != nil {
				t.Fatal(err)
			}
			if err := light.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if full.Kept() != light.Kept() || full.Samples() != light.Samples() ||
			!slices.Equal(full.Moments().Mean(), light.Moments().Mean()) ||
			!reflect.DeepEqual(full.Moments().Cov(), light.Moments().Cov()) {
			t.Errorf("%d chains: kept %d/%d, samples %d/%d, mean %v/%v", chains, light.Kept(), full.Kept(),
				light.Samples(), full.Samples(), light.Moments().Mean(), full.Moments().Mean())
		}
	}
}
