// Package cluster holds the clustering engines of scikit-learn's
// clustering comparison (its gallery's "Comparing different clustering
// algorithms on toy datasets") that the mixture family lacks: DBSCAN,
// agglomerative (hierarchical) clustering and spectral clustering, each
// steppable, with the gallery's six 2-D sets and the adjusted Rand index.
// k-means and EM are package mixture's.
package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Set names one of the gallery's six 2-D data sets.
type Set string

// The sets, as scikit-learn's gallery makes them (then standardised, as it
// does, to mean 0 and variance 1 in each coordinate):
//
//	circles  make_circles(factor=0.5, noise=0.05): two rings, outer class 0
//	moons    make_moons(noise=0.05): two interleaved half circles
//	blobs    make_blobs: three round clusters of s.d. 1, centres uniform in
//	         [−10, 10]², at least 6 apart
//	aniso    blobs sheared by [[0.6, −0.6], [−0.4, 0.8]]
//	varied   blobs of s.d. 1, 2.5 and 0.5
//	none     uniform on the unit square: no structure, one class
const (
	Circles Set = "circles"
	Moons   Set = "moons"
	Blobs   Set = "blobs"
	Aniso   Set = "aniso"
	Varied  Set = "varied"
	None    Set = "none"
)

// Sets lists them in the gallery's order.
var Sets = []Set{Circles, Moons, Varied, Aniso, Blobs, None}

// String is the set's name.
func (s Set) String() string { return string(s) }

// Classes is the number of true classes of the set (the gallery's
// n_clusters): 2 for circles and moons, 3 for the blobs, 1 for none.
func (s Set) Classes() int {
	switch s {
	case Circles, Moons:
		return 2
	case None:
		return 1
	}
	return 3
}

// MaxN bounds the points of a set and of an engine here: the engines keep
// an n×n matrix of distances or affinities.
const MaxN = 3000

// Generate draws n points of the set, standardised, with their true
// classes. As make_circles and make_moons do, the rings and moons take
// their points at evenly spaced angles, ⌊n/2⌋ on the first (outer ring,
// upper moon) and the rest on the second, in that order.
func Generate(s Set, rng *rand.Rand, n int) (points [][]float64, labels []int, err error) {
	if n < 2 || n > MaxN {
		return nil, nil, algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if rng == nil {
		return nil, nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	points, labels = make([][]float64, n), make([]int, n)
	flat := make([]float64, 2*n)
	for i := range points {
		points[i] = flat[2*i : 2*i+2 : 2*i+2]
	}
	nOut := n / 2
	nIn := n - nOut
	switch s {
	case Circles:
		for i := range n {
			c, m, j, r := 0, nOut, i, 1.0
			if i >= nOut {
				c, m, j, r = 1, nIn, i-nOut, 0.5
			}
			a := 2 * math.Pi * float64(j) / float64(m)
			points[i][0], points[i][1], labels[i] = r*math.Cos(a), r*math.Sin(a), c
		}
		addNoise(points, rng, 0.05)
	case Moons:
		for i := range n {
			if i < nOut {
				a := math.Pi * float64(i) / float64(max(nOut-1, 1))
				points[i][0], points[i][1] = math.Cos(a), math.Sin(a)
			} else {
				a := math.Pi * float64(i-nOut) / float64(max(nIn-1, 1))
				points[i][0], points[i][1], labels[i] = 1-math.Cos(a), 0.5-math.Sin(a), 1
			}
		}
		addNoise(points, rng, 0.05)
	case Blobs, Aniso, Varied:
		sd := [3]float64{1, 1, 1}
		if s == Varied {
			sd = [3]float64{1, 2.5, 0.5}
		}
		var c [3][2]float64
		for k := 0; k < 3; k++ {
			for again := true; again; {
				c[k][0], c[k][1] = 20*rng.Float64()-10, 20*rng.Float64()-10
				again = false
				for j := range k {
					if math.Hypot(c[k][0]-c[j][0], c[k][1]-c[j][1]) < 6 {
						again = true
					}
				}
			}
		}
		for i := range n {
			k := i * 3 / n
			x, y := c[k][0]+sd[k]*rng.NormFloat64(), c[k][1]+sd[k]*rng.NormFloat64()
			if s == Aniso {
				x, y = 0.6*x-0.4*y, -0.6*x+0.8*y
			}
			points[i][0], points[i][1], labels[i] = x, y, k
		}
	case None:
		for i := range n {
			points[i][0], points[i][1] = rng.Float64(), rng.Float64()
		}
	default:
		return nil, nil, algo.BadParam("set", s, fmt.Sprint(Sets))
	}
	standardise(points)
	return points, labels, nil
}

func addNoise(points [][]float64, rng *rand.Rand, sd float64) {
	for _, p := range points {
		p[0] += sd * rng.NormFloat64()
		p[1] += sd * rng.NormFloat64()
	}
}

// standardise centres each coordinate and divides it by its (population)
// standard deviation, as scikit-learn's StandardScaler does.
func standardise(points [][]float64) {
	n := float64(len(points))
	for t := range 2 {
		m := 0.0
		for _, p := range points {
			m += p[t]
		}
		m /= n
		v := 0.0
		for _, p := range points {
			v += (p[t] - m) * (p[t] - m)
		}
		sd := math.Sqrt(v / n)
		if sd == 0 {
			sd = 1
		}
		for _, p := range points {
			p[t] = (p[t] - m) / sd
		}
	}
}

// checkPoints validates 2-D or higher points: at least min of them, at
// most MaxN, each of the same dimension, every coordinate finite.
func checkPoints(points [][]float64, min int) error {
	n := len(points)
	if n < min || n > MaxN {
		return algo.BadParam("points", fmt.Sprintf("%d points", n), fmt.Sprintf("%d..%d points", min, MaxN))
	}
	d := len(points[0])
	if d < 1 {
		return algo.BadParam("points", "points of 0 coordinates", "at least one coordinate")
	}
	for i, p := range points {
		if len(p) != d {
			return algo.BadParam("points", fmt.Sprintf("point %d has %d coordinates", i+1, len(p)), fmt.Sprintf("%d, as point 1 has", d))
		}
		for _, v := range p {
			if !algo.Finite(v) {
				return algo.BadParam("points", fmt.Sprintf("point %d has %v", i+1, v), "finite coordinates")
			}
		}
	}
	return nil
}
