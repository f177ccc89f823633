package mixturesim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

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
	note           string // which columns of --data, when it has more than two
}

// columnIndices resolves "a,b" to two distinct columns of t, each named
// (without regard to case) or numbered from 1.
func columnIndices(t *sims.Table, names string) ([]int, error) {
	parts := strings.Split(names, ",")
	if len(parts) != 2 {
		return nil, fmt.Errorf("parameter columns = %q: must name two columns of --data, a,b (the engines are 2-D)", names)
	}
	cols := make([]int, 2)
	for i, name := range parts {
		name = strings.TrimSpace(name)
		cols[i] = slices.IndexFunc(t.Columns, func(c string) bool { return strings.EqualFold(c, name) })
		if n, err := strconv.Atoi(name); cols[i] < 0 && err == nil && n >= 1 && n <= len(t.Columns) {
			cols[i] = n - 1
		}
		if cols[i] < 0 {
			return nil, fmt.Errorf("parameter columns = %q: %s has no column %q (it has %s)", names, t.Name,
				name, strings.Join(t.Columns, ", "))
		}
	}
	if cols[0] == cols[1] {
		return nil, fmt.Errorf("parameter columns = %q: name two different columns", names)
	}
	return cols, nil
}

// maxK is the most components or clusters a mixture sim offers: what the
// engines accept and the palette tells apart.
const maxK = min(mixture.MaxK, sims.MaxClasses)

// mixClusters is the number of generating clusters, shared by em-gmm and
// kmeans.
var mixClusters = param.Int("clusters", 3, "true number of clusters in the generated data (not used with --data)").Range(1, maxK)

// mixColumns picks the columns of --data that em-gmm and kmeans cluster.
var mixColumns = param.Text("columns", "1,2",
	"the two columns of --data to cluster, by name or number: a,b (the engines are 2-D)")

// loadPoints reads two columns of a --data table (those named by columns,
// else the first two; a table with more says which it used), or draws n
// points from a random mixture of `clusters` Gaussians sep apart
// (mixture.Blobs).
func loadPoints(cfg sims.Config, n int, sep float64) (*points2D, error) {
	p := &points2D{xLabel: "x", yLabel: "y"}
	if t := cfg.Data; t != nil {
		if len(t.Columns) < 2 {
			return nil, fmt.Errorf("--data %s: needs at least two numeric columns, found %d", t.Name, len(t.Columns))
		}
		cols, err := columnIndices(t, mixColumns.Get(cfg.Values))
		if err != nil {
			return nil, err
		}
		if !mixColumns.IsSet(cfg.Values) && len(t.Columns) > 2 {
			p.note = fmt.Sprintf("clustering columns %s and %s of the %d in %s (--set columns=a,b picks two others)",
				t.Columns[0], t.Columns[1], len(t.Columns), t.Name)
		}
		p.points = make([][]float64, len(t.Rows))
		for i, r := range t.Rows {
			if len(r) <= max(cols[0], cols[1]) {
				return nil, fmt.Errorf("--data %s: row %d has %d values, want at least %d", t.Name, i+1, len(r), max(cols[0], cols[1])+1)
			}
			p.points[i] = []float64{r[cols[0]], r[cols[1]]}
		}
		p.xLabel, p.yLabel = t.Columns[cols[0]], t.Columns[cols[1]]
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
