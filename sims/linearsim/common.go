// Package linearsim turns the engines of algo/linear into sims: the
// perceptron, least squares and ridge, logistic and softmax regression, and
// the loss zoo of seed 001 §2–§6.
package linearsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
)

// dataStream is the PCG stream of every generated data set: the data follow
// the seed and stay put when a parameter of the method changes.
const (
	dataStream  = 0x6c696e6561725f64 // "linear_d"
	orderStream = 0x6c696e6561725f6f // "linear_o"
)

// The canvas grids: fine enough for half-block cells on a wide pane.
const (
	gridX = 96
	gridY = 48
)

// maxDrawn caps the points a Frame computes for a canvas (predictions of a
// big --data file): more cannot be told apart, and a Frame must stay cheap.
const maxDrawn = 2000

// view is the data's bounding box with a margin.
func view(x [][]float64) sims.Rect {
	xs, ys := column(x, 0), column(x, 1)
	return sims.Bounds(xs, ys).Pad(0.08)
}

// column returns feature j of every row (a fresh slice).
func column(x [][]float64, j int) []float64 {
	out := make([]float64, len(x))
	for i, r := range x {
		out[i] = r[j]
	}
	return out
}

// lineInView returns the segment of {(x, y): a·x + b·y + c = 0} inside v,
// or an empty path when the line misses it (or a = b = 0).
func lineInView(v sims.Rect, a, b, c float64, class int, dotted bool) sims.Path {
	p := sims.Path{Class: class, Dotted: dotted}
	var xs, ys []float64
	add := func(x, y float64) {
		const eps = 1e-9
		if x >= v.XMin-eps*(v.XMax-v.XMin) && x <= v.XMax+eps*(v.XMax-v.XMin) &&
			y >= v.YMin-eps*(v.YMax-v.YMin) && y <= v.YMax+eps*(v.YMax-v.YMin) {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	if b != 0 {
		add(v.XMin, -(a*v.XMin+c)/b)
		add(v.XMax, -(a*v.XMax+c)/b)
	}
	if a != 0 {
		add(-(b*v.YMin+c)/a, v.YMin)
		add(-(b*v.YMax+c)/a, v.YMax)
	}
	if len(xs) < 2 {
		return p
	}
	// The two points farthest apart (corners may repeat).
	bi, bj, best := 0, 1, -1.0
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if d := math.Hypot(xs[i]-xs[j], ys[i]-ys[j]); d > best {
				bi, bj, best = i, j, d
			}
		}
	}
	p.X = []float64{xs[bi], xs[bj]}
	p.Y = []float64{ys[bi], ys[bj]}
	return p
}

// classLegend names the classes of a labelled set, briefly (legends share
// a line with the axis ranges): "y=−1"/"y=+1" for two classes (the ±1
// labels of §2 and §4; class 0 is −1), else "k=0", "k=1", ...
func classLegend(c int) []string {
	if c == 2 {
		return []string{"y=−1", "y=+1"}
	}
	out := make([]string, c)
	for k := range out {
		out[k] = "k=" + strconv.Itoa(k)
	}
	return out
}

// fmtVec prints a short vector: (2, 2) or (0.123, −4.5).
func fmtVec(v []float64) string {
	s := "("
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatFloat(x, 'g', 4, 64)
	}
	return s + ")"
}

// featureNames returns the data's feature names, or x1..xd.
func featureNames(l *dataset.Labelled) []string {
	if len(l.Features) == l.D() {
		return l.Features
	}
	out := make([]string, l.D())
	for j := range out {
		out[j] = fmt.Sprintf("x%d", j+1)
	}
	return out
}

// axisLabels are the names of the first two features.
func axisLabels(l *dataset.Labelled) (string, string) {
	f := featureNames(l)
	if len(f) < 2 {
		return f[0], "y"
	}
	return f[0], f[1]
}

// signedBars draws a signed vector as bars of |v_j| coloured by sign, the
// sign also in the label (the bar chart has no negative side).
func signedBars(names []string, v []float64) []sims.Bar {
	bars := make([]sims.Bar, len(v))
	for j, x := range v {
		label, class := names[j]+" +", 0
		if x < 0 {
			label, class = names[j]+" −", 7
		}
		bars[j] = sims.Bar{Label: label, Value: math.Abs(x), Class: class}
	}
	return bars
}

// dataRNG returns the data stream's generator for a seed.
func dataRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, dataStream)) }

// preset names a generated data set of the linear sims; each sim offers
// its own menu of them.
type preset string

func (p preset) String() string { return string(p) }

const (
	presetLine      preset = "line"
	presetLinear    preset = "linear"
	presetEpsilon   preset = "epsilon"
	presetOverlap   preset = "overlap"
	presetSeparable preset = "separable"
	presetMoons     preset = "moons"
	presetOr        preset = "or"
	presetXor       preset = "xor"
	presetSpam      preset = "spam"
	presetBlobs     preset = "blobs"
	presetRings     preset = "rings"
)

// method is how a regression sim minimises its loss: an optim engine
// (gradient descent, SGD, damped Newton) or the normal equation.
type method string

func (m method) String() string { return string(m) }

const (
	methodGD     method = "gd"
	methodSGD    method = "sgd"
	methodNewton method = "newton"
	methodNormal method = "normal"
)

// stepper is what the regression sims need of an optim engine.
type stepper interface {
	Step() error
	X() []float64
	F() float64
	Iter() int
}

// loadDesign reads a sim's data set (its --data table, else its preset)
// and makes its design matrix, with the bias column when bias is set.
func loadDesign(cfg sims.Config, data func(sims.Config) (*dataset.Labelled, error), bias bool) (*dataset.Labelled, *linear.Design, error) {
	l, err := data(cfg)
	if err != nil {
		return nil, nil, err
	}
	x, err := linear.NewDesign(l.X, bias)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", l.Name, err)
	}
	return l, x, nil
}

// scatter is a data set with two features as a canvas draws it: its
// points, their classes, the view and the axis names.
type scatter struct {
	xs, ys []float64
	cls    []int
	view   sims.Rect
	xl, yl string
}

func newScatter(l *dataset.Labelled) scatter {
	s := scatter{xs: column(l.X, 0), ys: column(l.X, 1), cls: l.Int(), view: view(l.X)}
	s.xl, s.yl = axisLabels(l)
	return s
}

// points is the canvas layer of the data, coloured by class.
func (s scatter) points() []sims.PointSet {
	return []sims.PointSet{{Name: "data", X: s.xs, Y: s.ys, Classes: s.cls}}
}

// newGD is gradient descent on f from theta0 with the step t = lr, or 1/L
// when lr is 0, stopping at ‖∇f‖ ≤ tol; it returns the engine and t.
func newGD(f optim.Objective, theta0 []float64, lr, tol, L float64) (*optim.Descent, float64, error) {
	if lr == 0 {
		lr = 1 / L
	}
	eng, err := optim.NewDescent(f, theta0, optim.DescentConfig{Method: optim.GD, LR: lr, Tol: tol})
	return eng, lr, err
}

// The parameters of SGD that logreg and softmax share.
var (
	sgdBatch    = param.Int("batch", 10, "mini-batch size B (method=sgd; at most the number of rows)").Range(1, dataset.MaxN)
	sgdSchedule = param.Choice("schedule", []optim.Schedule{optim.Constant, optim.InvK, optim.InvSqrtK}, optim.InvSqrtK,
		"step sizes t_k = t0, t0/(1+ck) or t0/√(1+ck) (method=sgd)")
	sgdDecay = param.Float("decay", 0, "c of the decaying schedules; 0 = B/n, one unit per epoch (method=sgd)").Range(0, 10)
)

// gradNorm is ‖∇f‖ at the engine's iterate: the engine's own value when it
// keeps one (gd, newton), else computed into scratch (sgd).
func gradNorm(eng stepper, f optim.Objective, scratch []float64) float64 {
	if g, ok := eng.(interface{ GradNorm() float64 }); ok {
		return g.GradNorm()
	}
	f.Grad(scratch, eng.X())
	return norm2(scratch)
}

// norm2 is ‖v‖₂.
func norm2(v []float64) float64 { return floats.Norm(v, 2) }

// rowsOf is the rows and features of a sim's data: its --data table's
// (every column but the label), else the preset's n and d.
func rowsOf(c sims.Config, n, d int) (int, int) {
	if c.Data != nil {
		return len(c.Data.Rows), max(len(c.Data.Columns)-1, 1)
	}
	return n, d
}

// dataBytes is what a linear sim holds of n rows of d features: the data
// set, its design matrix with the bias column when bias is set, and with
// two features the canvas's scatter of them (two columns and the classes).
func dataBytes(n, d int, bias bool) int64 {
	p := d
	if bias {
		p++
	}
	b := dataset.LabelledBytes(n, d) + linear.DesignBytes(n, p)
	if d == 2 {
		b += 3 * algo.HeapBytes(8*int64(n))
	}
	return b
}

// dataClasses bounds the classes of a --data table's labels (0..c−1, or
// two for 0/1 and −1/+1): its label column's largest value plus one,
// read without copying the table.
func dataClasses(t *sims.Table) int {
	col := slices.Index(t.Columns, "label")
	if col < 0 {
		col = len(t.Columns) - 1
	}
	c := 2
	for _, r := range t.Rows {
		if y := r[col]; y >= float64(c) && y < dataset.MaxN {
			c = int(y) + 1
		}
	}
	return c
}

// shadeBytes is a plane's shading on the canvas grid (sims.SampleGrid).
const shadeBytes = 8*gridX*gridY + 1<<10

// traceBytes is what a sims.Trace of cols columns holds, with the copy of
// its columns in a Frame.
func traceBytes(cols int) int64 { return 2 * 8 * sims.TraceCap * int64(cols) }
