package mixture

import "math/rand/v2"

// plusPlus chooses k initial centres among the points cols (by coordinate,
// cols[t][i]) by k-means++ seeding (Arthur & Vassilvitskii 2007): the first
// uniformly, each next one with probability proportional to its squared
// distance to the nearest centre already chosen. It writes the centres into
// c (k×d, row-major), uses d2 (length n) as scratch, leaving in it each
// point's squared distance to its nearest centre, and returns the potential
// φ = Σ_n d2[n]. EM and k-means share it, so that the two started from the
// same rng state start from the same centres (the ε → 0 limit of Exercise
// 2.2, seed 002 L764–766).
func plusPlus(cols [][]float64, k int, rng *rand.Rand, d2, c []float64) float64 {
	n, d := len(cols[0]), len(cols)
	dj := make([]float64, n) // squared distances to the newest centre
	// add makes point i centre j and sets dj.
	add := func(j, i int) {
		clear(dj)
		for t, col := range cols {
			ct := col[i]
			c[j*d+t] = ct
			for p, v := range col {
				dj[p] += sq(v - ct)
			}
		}
	}
	add(0, rng.IntN(n))
	copy(d2, dj)
	for j := 1; j < k; j++ {
		total := 0.0
		for _, v := range d2 {
			total += v
		}
		next := 0
		if total > 0 {
			// Draw next with probability d2[next]/total; should rounding
			// leave u ≥ 0 after the last point, take the last point with
			// d2 > 0.
			u := rng.Float64() * total
			for i, v := range d2 {
				if v > 0 {
					next = i
					if u -= v; u < 0 {
						break
					}
				}
			}
		} else {
			next = rng.IntN(n) // every point coincides with a centre: any will do
		}
		add(j, next)
		for i, v := range dj {
			d2[i] = min(d2[i], v)
		}
	}
	phi := 0.0
	for _, v := range d2 {
		phi += v
	}
	return phi
}
