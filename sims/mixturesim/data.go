package mixturesim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/algo/pca"
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

// pointData holds the points of a clustering sim: rows of d coordinates
// from --data, or 2-D points drawn with the truth that generated them; and
// where the pane draws them: in the plane itself when d = 2, otherwise on
// the plane of the first two principal components (package pca), on which
// a Gaussian of the fit is drawn as its exact marginal.
type pointData struct {
	points         [][]float64
	truth          []mixture.Component // nil with --data
	plane          *pca.Plane          // d > 2
	x, y           []float64           // the points as drawn
	xLabel, yLabel string
	note           string // which columns of --data, when not all of them, or how they are drawn
}

// at is where the pane draws a point or a mean of d coordinates.
func (p *pointData) at(v []float64) (x, y float64) {
	if p.plane == nil {
		return v[0], v[1]
	}
	return p.plane.Point(v)
}

// cov is how the pane draws a covariance of d×d: its marginal on the plane.
func (p *pointData) cov(c [][]float64) (sxx, sxy, syy float64) {
	if p.plane == nil {
		return c[0][0], c[0][1], c[1][1]
	}
	return p.plane.Cov(c)
}

// columnIndices resolves "a,b,…" to at least two distinct columns of t,
// each named (without regard to case) or numbered from 1; "all" is every
// column but one named label, which holds classes in the lab's tables
// (algo/dataset.FromColumns): the truth, not a feature.
func columnIndices(t *sims.Table, names string) ([]int, error) {
	if strings.EqualFold(strings.TrimSpace(names), "all") {
		var cols []int
		for i, c := range t.Columns {
			if c != "label" {
				cols = append(cols, i)
			}
		}
		if len(cols) < 2 {
			return nil, fmt.Errorf("--data %s: needs at least two numeric columns besides label, found %d", t.Name, len(cols))
		}
		return cols, nil
	}
	parts := strings.Split(names, ",")
	if len(parts) < 2 {
		return nil, fmt.Errorf("parameter columns = %q: name at least two columns of --data, a,b,…, or all", names)
	}
	cols := make([]int, len(parts))
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
		if slices.Contains(cols[:i], cols[i]) {
			return nil, fmt.Errorf("parameter columns = %q: column %s is named twice", names, t.Columns[cols[i]])
		}
	}
	return cols, nil
}

// dataHelp says, for em-gmm and kmeans, what their points are.
const dataHelp = "the columns of --data are the points: every column but one named label, or those named by columns=a,b,…; " +
	"more than two are clustered in d dimensions and drawn on their first two principal components; without --data, " +
	"n 2-D points are drawn from a random mixture of `clusters` Gaussians whose means are sep apart"

// maxK is the most components or clusters a mixture sim offers: what the
// engines accept and the palette tells apart.
const maxK = min(mixture.MaxK, sims.MaxClasses)

// mixClusters is the number of generating clusters, shared by em-gmm and
// kmeans.
var mixClusters = param.Int("clusters", 3, "true number of clusters in the generated data").Range(1, maxK).BuiltInData()

// mixColumns picks the columns of --data that em-gmm and kmeans cluster.
var mixColumns = param.Text("columns", "all",
	"the columns of --data to cluster: all (but one named label), or at least two by name or number, a,b,…; "+
		"more than two are drawn on their first two principal components")

// loadPoints reads the columns of a --data table named by columns (every
// column by default), and with more than two finds the plane of their first
// two principal components to draw them on; or it draws n 2-D points from
// a random mixture of `clusters` Gaussians sep apart (mixture.Blobs).
func loadPoints(cfg sims.Config, n int, sep float64) (*pointData, error) {
	p := &pointData{xLabel: "x", yLabel: "y"}
	if t := cfg.Data; t != nil {
		if len(t.Columns) < 2 {
			return nil, fmt.Errorf("--data %s: needs at least two numeric columns, found %d", t.Name, len(t.Columns))
		}
		cols, err := columnIndices(t, mixColumns.Get(cfg.Values))
		if err != nil {
			return nil, err
		}
		if len(cols) > mixture.MaxDim {
			return nil, fmt.Errorf("--data %s: %d columns to cluster, at most %d (name some with --set columns=a,b,…)",
				t.Name, len(cols), mixture.MaxDim)
		}
		p.points = make([][]float64, len(t.Rows))
		for i, r := range t.Rows {
			row := make([]float64, len(cols))
			for a, c := range cols {
				if c >= len(r) {
					return nil, fmt.Errorf("--data %s: row %d has %d values, want at least %d", t.Name, i+1, len(r), c+1)
				}
				row[a] = r[c]
			}
			p.points[i] = row
		}
		if len(cols) == 2 {
			p.xLabel, p.yLabel = t.Columns[cols[0]], t.Columns[cols[1]]
			p.x, p.y = make([]float64, len(p.points)), make([]float64, len(p.points))
			for i, r := range p.points {
				p.x[i], p.y[i] = r[0], r[1]
			}
			if len(t.Columns) > 2 {
				p.note = fmt.Sprintf("clustering columns %s and %s of the %d in %s (columns=a,b,… picks others)",
					p.xLabel, p.yLabel, len(t.Columns), t.Name)
			}
			return p, nil
		}
		return p, p.project(t, cols)
	}
	sample, err := mixture.Blobs(rand.New(rand.NewPCG(cfg.Seed, dataStream)), n, mixClusters.Get(cfg.Values), sep)
	if err != nil {
		return nil, err
	}
	p.points, p.truth = sample.Points, sample.Truth
	p.x, p.y = make([]float64, n), make([]float64, n)
	for i, r := range p.points {
		p.x[i], p.y[i] = r[0], r[1]
	}
	return p, nil
}

// pointsOf is the number of points and their coordinates that loadPoints
// makes: a --data table's rows and columns (at most mixture.MaxDim), else
// n generated points in the plane.
func pointsOf(cfg sims.Config, n int) (int, int) {
	if t := cfg.Data; t != nil {
		return len(t.Rows), min(len(t.Columns), mixture.MaxDim)
	}
	return n, 2
}

// pointsBytes is what a pointData of n points of d coordinates holds:
// each point's row (its slice header with a quarter more room, as
// appending leaves it) and where it is drawn (two values).
func pointsBytes(n, d int) int64 {
	return int64(n)*(24*5/4+algo.HeapBytes(8*int64(d))+16) + 4<<10
}

// project finds the principal plane of the points (the columns cols of t)
// and where the pane draws them.
func (p *pointData) project(t *sims.Table, cols []int) error {
	d := len(cols)
	byCoord := make([][]float64, d)
	for a := range byCoord {
		byCoord[a] = make([]float64, len(p.points))
		for i, r := range p.points {
			byCoord[a][i] = r[a]
		}
	}
	plane, err := pca.Fit(byCoord)
	if err != nil {
		return fmt.Errorf("--data %s: %w", t.Name, err)
	}
	p.plane = plane
	p.x, p.y = plane.Points(byCoord)
	f1, f2 := plane.Explained()
	p.xLabel, p.yLabel = fmt.Sprintf("PC1 (%.0f%%)", 100*f1), fmt.Sprintf("PC2 (%.0f%%)", 100*f2)
	names := make([]string, d)
	for a, c := range cols {
		names[a] = t.Columns[c]
	}
	p.note = fmt.Sprintf("clustering %d columns of %s in %d-D (%s); drawn on the first two principal components, "+
		"%.0f%% of the variance: clusters apart in d-D may overlap here", d, t.Name, d, strings.Join(names, ", "), 100*(f1+f2))
	return nil
}

// initRNG is the random source of restart r's k-means++ seeding.
func initRNG(seed uint64, r int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, initStream+uint64(r)))
}
