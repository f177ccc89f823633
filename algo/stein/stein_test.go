package stein

import (
	"math"
	"testing"
)

// TestPairs: PairDistances' order and values, and AddPairs against the
// sums written pair by pair over i ≠ j (each pair once per side), on three
// particles in two dimensions.
func TestPairs(t *testing.T) {
	x := []float64{0, 0, 1, 0, 0, 2}
	grad := []float64{1, -1, 0.5, 2, -3, 0}
	const n, d, h = 3, 2, 1.5
	r2 := make([]float64, 3)
	PairDistances(r2, x, n, d)
	for p, want := range []float64{1, 4, 5} {
		if r2[p] != want {
			t.Fatalf("r2 = %v, want 1, 4, 5", r2)
		}
	}
	drive, rep := make([]float64, n*d), make([]float64, n*d)
	ksd := AddPairs(drive, rep, x, grad, r2, n, d, h)
	wantKSD := 0.0
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			r, ss, sd := 0.0, 0.0, 0.0
			for m := range d {
				diff := x[i*d+m] - x[j*d+m]
				r += diff * diff
				ss += grad[i*d+m] * grad[j*d+m]
				sd += (grad[i*d+m] - grad[j*d+m]) * diff
			}
			k := math.Exp(-r / h)
			for m := range d {
				drive[i*d+m] -= k * grad[j*d+m]
				rep[i*d+m] -= 2 / h * k * (x[i*d+m] - x[j*d+m])
			}
			wantKSD += k * (ss + 2/h*sd + 2*d/h - 4/(h*h)*r)
		}
	}
	for m := range drive {
		if math.Abs(drive[m]) > 1e-15 || math.Abs(rep[m]) > 1e-15 {
			t.Fatalf("drive − pairs %v, rep − pairs %v: want 0", drive, rep)
		}
	}
	if math.Abs(ksd-wantKSD) > 1e-14*math.Abs(wantKSD) {
		t.Errorf("KSD pairs %v, want %v", ksd, wantKSD)
	}
}
