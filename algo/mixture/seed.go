package mixture

import "math/rand/v2"

// plusPlus chooses k initial centres among the points (x, y) by k-means++
// seeding (Arthur & Vassilvitskii 2007): the first uniformly, each next one
// with probability proportional to its squared distance to the nearest centre
// already chosen. It writes the centres into cx and cy (length k), uses d2
// (length n) as scratch, leaving in it each point's squared distance to its
// nearest centre, and returns the potential φ = Σ_n d2[n]. EM and k-means
// share it, so that the two started from the same rng state start from the
// same centres (the ε → 0 limit of Exercise 2.2, seed 002 L764–766).
func plusPlus(x, y []float64, k int, rng *rand.Rand, d2, cx, cy []float64) float64 {
	n := len(x)
	c := rng.IntN(n)
	cx[0], cy[0] = x[c], y[c]
	for i := range d2 {
		d2[i] = sq(x[i]-x[c]) + sq(y[i]-y[c])
	}
	for j := 1; j < k; j++ {
		total := 0.0
		for _, d := range d2 {
			total += d
		}
		if total > 0 {
			// Draw c with probability d2[c]/total; should rounding leave
			// u ≥ 0 after the last point, take the last point with d2 > 0.
			u := rng.Float64() * total
			for i, d := range d2 {
				if d > 0 {
					c = i
					if u -= d; u < 0 {
						break
					}
				}
			}
		} else {
			c = rng.IntN(n) // every point coincides with a centre: any will do
		}
		cx[j], cy[j] = x[c], y[c]
		for i := range d2 {
			d2[i] = min(d2[i], sq(x[i]-x[c])+sq(y[i]-y[c]))
		}
	}
	phi := 0.0
	for _, d := range d2 {
		phi += d
	}
	return phi
}
