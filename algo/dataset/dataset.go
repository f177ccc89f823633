// Package dataset holds the labelled data sets the lab's classification and
// regression sims share: the worked examples of the notes, seeded synthetic
// presets, and the conversion of numeric columns (from a CSV file) into
// features and labels.
package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
)

// MaxN is the largest number of rows a generator draws.
const MaxN = 100000

// Labelled is a data set of n rows of d features with one target each. For
// classification Classes > 0 and every Y is a class index 0..Classes−1; for
// regression Classes is 0 and Y holds real targets.
type Labelled struct {
	Name     string
	Features []string    // d feature names
	X        [][]float64 // n rows of d features
	Y        []float64
	Classes  int
}

// N is the number of rows; D the number of features.
func (l *Labelled) N() int { return len(l.X) }
func (l *Labelled) D() int {
	if len(l.X) == 0 {
		return len(l.Features)
	}
	return len(l.X[0])
}

// LabelledBytes bounds what a Labelled set of n rows of d features holds:
// each row's slice header and label, with the quarter more room that
// growing them by append may leave, its d features (an allocation a row
// when generated, a share of one block when read by FromColumns) and the
// features' names.
func LabelledBytes(n, d int) int64 {
	return int64(n)*((24+8)*5/4+algo.HeapBytes(8*int64(d))) + 32*int64(d) + 256
}

// PlusMinus returns binary labels as ±1 (class 0 → −1, class 1 → +1), the
// convention of seed 001 §2 and §4 (Equation 4.a). It is an error for data
// that is not two-class.
func (l *Labelled) PlusMinus() ([]float64, error) {
	if l.Classes != 2 {
		return nil, fmt.Errorf("%s: needs two classes, has %d", l.Name, l.Classes)
	}
	out := make([]float64, len(l.Y))
	for i, y := range l.Y {
		out[i] = 2*y - 1
	}
	return out, nil
}

// Int returns the class labels as ints.
func (l *Labelled) Int() []int {
	out := make([]int, len(l.Y))
	for i, y := range l.Y {
		out[i] = int(y)
	}
	return out
}

// FromColumns builds a data set from numeric columns: the column named
// "label" is the target, or else the last one. With classify set the target
// must be class labels: 0/1, −1/+1 (both read as two classes, −1 and 0 being
// class 0) or 0..c−1; otherwise it is a real target.
func FromColumns(name string, columns []string, rows [][]float64, classify bool) (*Labelled, error) {
	if len(columns) < 2 {
		return nil, fmt.Errorf("%s: needs at least one feature column and a label column, found %d column(s)", name, len(columns))
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows", name)
	}
	target := slices.Index(columns, "label")
	if target < 0 {
		target = len(columns) - 1
	}
	l := &Labelled{Name: name}
	for j, c := range columns {
		if j != target {
			l.Features = append(l.Features, c)
		}
	}
	// The rows share one backing array (a row each would be n allocations
	// for the collector to trace); each is capped at its length.
	d := len(columns) - 1
	cells := make([]float64, 0, len(rows)*d)
	l.X, l.Y = make([][]float64, len(rows)), make([]float64, len(rows))
	for i, r := range rows {
		start := len(cells)
		for j, v := range r {
			if j != target {
				cells = append(cells, v)
			}
		}
		l.X[i] = cells[start:len(cells):len(cells)]
		l.Y[i] = r[target]
	}
	if !classify {
		return l, nil
	}
	return l, l.classLabels(columns[target])
}

// classLabels maps the target column to class indices.
func (l *Labelled) classLabels(col string) error {
	seen := map[float64]bool{}
	for i, y := range l.Y {
		if y != math.Trunc(y) || y < -1 {
			return fmt.Errorf("%s: row %d: label column %q holds %v; labels must be 0/1, -1/+1 or 0..c-1", l.Name, i+1, col, y)
		}
		seen[y] = true
	}
	switch {
	case seen[-1] && len(seen) == 1+boolInt(seen[1]): // −1/+1
		for i := range l.Y {
			l.Y[i] = (l.Y[i] + 1) / 2
		}
		l.Classes = 2
	case seen[-1]:
		return fmt.Errorf("%s: label column %q mixes -1 with other labels than +1", l.Name, col)
	default:
		c := 0
		for y := range seen {
			c = max(c, int(y)+1)
		}
		l.Classes = max(c, 2)
	}
	return nil
}

// Or is the OR data set of seed 001, Example 1.3 (L110–L115): class 1 is
// "+", class 0 "−".
func Or() *Labelled {
	return &Labelled{Name: "or", Features: []string{"x1", "x2"}, Classes: 2,
		X: [][]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}, Y: []float64{0, 1, 1, 1}}
}

// Xor is the XOR data set with the labels the proof of Theorem 2.11 uses
// (−, +, +, −); the notes' table prints "− + + +", which is OR again
// (erratum E2 of the seed-001 catalogue).
func Xor() *Labelled {
	return &Labelled{Name: "xor", Features: []string{"x1", "x2"}, Classes: 2,
		X: [][]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}, Y: []float64{0, 1, 1, 0}}
}

// Spam is the bag-of-words table of seed 001, Example 1.2 (L96–L106): six
// e-mails over the words (and, viagra, the, of, nigeria), spam = class 1.
func Spam() *Labelled {
	return &Labelled{Name: "spam", Features: []string{"and", "viagra", "the", "of", "nigeria"}, Classes: 2,
		X: [][]float64{
			{1, 1, 0, 1, 1}, {0, 0, 1, 1, 0}, {0, 1, 1, 0, 0},
			{1, 0, 0, 1, 0}, {1, 0, 1, 0, 1}, {1, 0, 1, 1, 0},
		},
		Y: []float64{1, 0, 1, 0, 1, 0}}
}

// SpamQuery is the notes' test e-mail x′ = (1, 1, 0, 0, 0).
var SpamQuery = []float64{1, 1, 0, 0, 0}

// Separable draws n points uniformly in [−1, 1]² labelled by a random unit
// direction w* through the origin, keeping only points whose margin
// |⟨x, w*⟩| is at least gamma, so that the data is linearly separable with
// margin ≥ gamma (the setting of Theorem 2.8). It returns w* too.
func Separable(rng *rand.Rand, n int, gamma float64) (*Labelled, []float64, error) {
	if n < 2 || n > MaxN {
		return nil, nil, algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if !(gamma > 0 && gamma < 0.5) {
		return nil, nil, algo.BadParam("gamma", gamma, "in (0, 0.5)")
	}
	theta := rng.Float64() * 2 * math.Pi
	w := []float64{math.Cos(theta), math.Sin(theta)}
	l := &Labelled{Name: "separable", Features: []string{"x1", "x2"}, Classes: 2}
	for len(l.X) < n {
		x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
		m := x[0]*w[0] + x[1]*w[1]
		if math.Abs(m) < gamma {
			continue
		}
		l.X = append(l.X, x)
		l.Y = append(l.Y, b2f(m > 0))
	}
	return l, w, nil
}

// Blobs draws n points from k isotropic Gaussian clusters of standard
// deviation sd whose centres sit evenly on a circle of radius 3; the class is
// the cluster.
func Blobs(rng *rand.Rand, n, k int, sd float64) (*Labelled, error) {
	if n < k || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in %d..%d", k, MaxN))
	}
	if k < 2 || k > 10 {
		return nil, algo.BadParam("classes", k, "in 2..10")
	}
	if !(sd > 0) {
		return nil, algo.BadParam("sd", sd, "> 0")
	}
	l := &Labelled{Name: "blobs", Features: []string{"x1", "x2"}, Classes: k}
	phase := rng.Float64() * 2 * math.Pi
	for i := 0; i < n; i++ {
		c := i % k
		a := phase + 2*math.Pi*float64(c)/float64(k)
		l.X = append(l.X, []float64{3*math.Cos(a) + sd*rng.NormFloat64(), 3*math.Sin(a) + sd*rng.NormFloat64()})
		l.Y = append(l.Y, float64(c))
	}
	return l, nil
}

// Moons draws n points on two interleaved half circles with Gaussian noise
// of standard deviation noise, half in each class.
func Moons(rng *rand.Rand, n int, noise float64) (*Labelled, error) {
	if n < 2 || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in 2..%d", MaxN))
	}
	if !(noise >= 0) {
		return nil, algo.BadParam("noise", noise, "≥ 0")
	}
	l := &Labelled{Name: "moons", Features: []string{"x1", "x2"}, Classes: 2}
	for i := 0; i < n; i++ {
		t := math.Pi * rng.Float64()
		x, y := math.Cos(t), math.Sin(t)
		c := i % 2
		if c == 1 {
			x, y = 1-x, 0.5-y
		}
		l.X = append(l.X, []float64{x + noise*rng.NormFloat64(), y + noise*rng.NormFloat64()})
		l.Y = append(l.Y, float64(c))
	}
	return l, nil
}

// Rings draws n points on `rings` concentric circles of radii 1, 2, ...,
// with radial noise of standard deviation noise; the class is the ring.
func Rings(rng *rand.Rand, n, rings int, noise float64) (*Labelled, error) {
	if n < rings || n > MaxN {
		return nil, algo.BadParam("n", n, fmt.Sprintf("in %d..%d", rings, MaxN))
	}
	if rings < 2 || rings > 10 {
		return nil, algo.BadParam("rings", rings, "in 2..10")
	}
	if !(noise >= 0) {
		return nil, algo.BadParam("noise", noise, "≥ 0")
	}
	l := &Labelled{Name: "rings", Features: []string{"x1", "x2"}, Classes: rings}
	for i := 0; i < n; i++ {
		c := i % rings
		a := 2 * math.Pi * rng.Float64()
		r := float64(c+1) + noise*rng.NormFloat64()
		l.X = append(l.X, []float64{r * math.Cos(a), r * math.Sin(a)})
		l.Y = append(l.Y, float64(c))
	}
	return l, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
