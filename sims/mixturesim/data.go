package mixturesim

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// The PCG streams of the data and of the initialisation: both follow the
// seed, and changing k leaves the generated data as it was. em-gmm and
// kmeans share them, so with equal seeds and parameters they cluster the same
// points from the same k-means++ centres.
const (
	dataStream = 0x6d6978747572655f // "mixture_"
	initStream = 0x656d5f696e6974   // "em_init"
)

// points2D holds 2-D data for a clustering sim: from --data, or generated
// with the truth that generated it.
type points2D struct {
	points         [][]float64
	truth          []mixture.Component // nil with --data
	xLabel, yLabel string
}

// maxK is the most components or clusters a mixture sim offers: what the
// engines accept and the palette tells apart.
const maxK = min(mixture.MaxK, sims.MaxClasses)

// mixClusters is the number of generating clusters, shared by em-gmm and
// kmeans.
var mixClusters = param.Int("clusters", 3, "true number of clusters in the generated data (not used with --data)").Range(1, maxK)

// loadPoints reads the first two columns of a --data table, or draws n points
// from a random mixture of `clusters` Gaussians sep apart (mixture.Blobs).
func loadPoints(cfg sims.Config, n int, sep float64) (*points2D, error) {
	p := &points2D{xLabel: "x", yLabel: "y"}
	if t := cfg.Data; t != nil {
		if len(t.Columns) < 2 {
			return nil, fmt.Errorf("--data %s: needs at least two numeric columns, found %d", t.Name, len(t.Columns))
		}
		p.points = make([][]float64, len(t.Rows))
		for i, r := range t.Rows {
			if len(r) < 2 {
				return nil, fmt.Errorf("--data %s: row %d has %d values, want at least 2", t.Name, i+1, len(r))
			}
			p.points[i] = r[:2:2] // a view: the engines copy the points
		}
		p.xLabel, p.yLabel = t.Columns[0], t.Columns[1]
		return p, nil
	}
	sample, err := mixture.Blobs(rand.New(rand.NewPCG(cfg.Seed, dataStream)), n, mixClusters.Get(cfg.Values), sep)
	if err != nil {
		return nil, err
	}
	p.points, p.truth = sample.Points, sample.Truth
	return p, nil
}

// initRNG is the random source of restart r's k-means++ seeding.
func initRNG(seed uint64, r int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, initStream+uint64(r)))
}
