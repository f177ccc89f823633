package oned

import (
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
)

// atoms draws n atoms of N(m, 1) with random masses (uniform when
// weighted is false).
func atoms(n int, m float64, weighted bool, seed uint64) (x, w []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x = make([]float64, n)
	for i := range x {
		x[i] = m + rng.NormFloat64()
	}
	if !weighted {
		return x, nil
	}
	w = make([]float64, n)
	s := 0.0
	for i := range w {
		w[i] = rng.Float64()
		s += w[i]
	}
	return x, ot.Normalised(w, s)
}

// bench1D times 1-D OT between two measures of a million atoms each: both
// sorted (Discrete) and W₂² on the union of their breakpoints (Cost).
func bench1D(b *testing.B, weighted bool) {
	const n = 1_000_000
	x, wx := atoms(n, 0, weighted, 1)
	y, wy := atoms(n, 2, weighted, 2)
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		mu, err := Discrete(x, wx)
		if err != nil {
			b.Fatal(err)
		}
		nu, _ := Discrete(y, wy)
		if _, err := Cost(mu, nu, 2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkW2Million is the target, 1-D OT on 1,000,000 atoms
// under 0.5 s, with unequal weights (merged breakpoints: 2·10⁶ segments);
// BenchmarkW2MillionUniform the same with uniform weights.
func BenchmarkW2Million(b *testing.B)        { bench1D(b, true) }
func BenchmarkW2MillionUniform(b *testing.B) { bench1D(b, false) }

// BenchmarkSortAtoms is the radix sort of a million weighted atoms alone,
// most of BenchmarkW2Million.
func BenchmarkSortAtoms(b *testing.B) {
	x, w := atoms(1_000_000, 0, true, 1)
	defer algotest.ThreadCPU(b)()
	for b.Loop() {
		sortAtoms(x, w)
	}
}
