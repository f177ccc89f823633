package algotest

import (
	"math"
	"math/rand/v2"
)

// Orthogonal returns a random d×d orthogonal matrix Q as its rows q[a]
// (Gram–Schmidt on a matrix of standard normal draws): the rotations and
// reflections that invariance tests apply to data.
func Orthogonal(rng *rand.Rand, d int) [][]float64 {
	q := make([][]float64, d)
	for a := range q {
		v := make([]float64, d)
		for t := range v {
			v[t] = rng.NormFloat64()
		}
		for _, u := range q[:a] {
			dot := 0.0
			for t := range v {
				dot += v[t] * u[t]
			}
			for t := range v {
				v[t] -= dot * u[t]
			}
		}
		norm := 0.0
		for _, x := range v {
			norm += x * x
		}
		for t := range v {
			v[t] /= math.Sqrt(norm)
		}
		q[a] = v
	}
	return q
}
