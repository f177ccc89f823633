package classic

import (
	"math/rand/v2"

	"github.com/thelab/lab/algo/dataset"
)

// oracleData draws the data sets the scikit-learn references were computed
// on: 150 training and 100 test points of moons (noise 0.3), circles
// (factor 0.5, noise 0.2) or three blobs (s.d. 1.2), from PCG(7, name
// length) — the training set first, then the test set, from one stream.
func oracleData(name string) (x [][]float64, y []int, qx [][]float64, qy []int) {
	rng := rand.New(rand.NewPCG(7, uint64(len(name))))
	var l *dataset.Labelled
	var err error
	switch name {
	case "moons":
		l, err = dataset.Moons(rng, 250, 0.3)
	case "circles":
		l, err = dataset.Circles(rng, 250, 0.5, 0.2)
	default:
		l, err = dataset.Blobs(rng, 250, 3, 1.2)
	}
	if err != nil {
		panic(err)
	}
	ys := l.Int()
	return l.X[:150], ys[:150], l.X[150:], ys[150:]
}
