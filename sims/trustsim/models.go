package trustsim

import (
	"fmt"
	"math"
	"strconv"

	"github.com/thelab/lab/algo/adversarial"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
)

// taskKind is the classifier a sim attacks or explains: a network on 2-D
// points (two moons) or on the procedural digits.
type taskKind string

func (k taskKind) String() string { return string(k) }

const (
	taskPlane  taskKind = "plane"
	taskDigits taskKind = "digits"
)

// imageSide is a side of the generated digits.
type imageSide int

func (s imageSide) String() string { return strconv.Itoa(int(s)) }

// task is a classification problem split into train and test sets.
type task struct {
	kind        taskKind
	train, test *nn.Set
	side        int // digits: pixels per side
	classes     int
	view        sims.Rect // plane: the points' window
	lo, hi      float64   // the valid input range (digits: [0, 1]; plane: none)
	hidden      []int
}

// newPlaneTask draws n two-moons points (noise 0.15), 70% for training.
func newPlaneTask(seed uint64, n int) (*task, error) {
	l, err := dataset.Moons(streamRNG(seed, dataStream), n, 0.15)
	if err != nil {
		return nil, err
	}
	x := make([]float64, 0, 2*n)
	xs, ys := make([]float64, n), make([]float64, n)
	for i, r := range l.X {
		x = append(x, r[0], r[1])
		xs[i], ys[i] = r[0], r[1]
	}
	all, err := nn.NewClassSet(x, 2, l.Int(), 2)
	if err != nil {
		return nil, err
	}
	t := &task{kind: taskPlane, classes: 2, view: sims.Bounds(xs, ys).Pad(0.15), hidden: taskArch(taskPlane, 0).Hidden}
	t.train, t.test, err = all.Split(planeTrain, streamRNG(seed, dataStream+1))
	return t, err
}

// newDigitsTask draws n procedural digits of side×side pixels, 80% for
// training.
func newDigitsTask(seed uint64, n, side int) (*task, error) {
	pix, labels, err := digits.Generate(streamRNG(seed, dataStream), n, side, digits.Default)
	if err != nil {
		return nil, err
	}
	all, err := nn.NewClassSet(pix, side*side, labels, 10)
	if err != nil {
		return nil, err
	}
	t := &task{kind: taskDigits, classes: 10, side: side, lo: 0, hi: 1, hidden: taskArch(taskDigits, side).Hidden}
	t.train, t.test, err = all.Split(digitsTrain, streamRNG(seed, dataStream+1))
	return t, err
}

// outputs is one logit for two classes, else one per class.
// The training fractions of the tasks' splits.
const (
	planeTrain  = 0.7
	digitsTrain = 0.8
)

// taskArch is a task's network (trainModel's): two layers of 16 tanh
// units and a logit on the plane; for digits of side×side pixels one
// layer of half as many units as pixels and the ten classes' logits.
func taskArch(kind taskKind, side int) nn.MLPConfig {
	if kind == taskPlane {
		return nn.MLPConfig{In: 2, Hidden: []int{16, 16}, Out: 1, Act: nn.Tanh}
	}
	return nn.MLPConfig{In: side * side, Hidden: []int{2 * side * side / 4}, Out: 10, Act: nn.Tanh}
}

// taskBytes is a task of n examples: its training and test sets, and the
// trained network's parameters.
func taskBytes(kind taskKind, n, side int) int64 {
	a, frac := taskArch(kind, side), planeTrain
	if kind == taskDigits {
		frac = digitsTrain
	}
	train := nn.SplitSize(n, frac)
	return nn.SetBytes(train, a.In) + nn.SetBytes(n-train, a.In) + nn.ParamBytes(a)
}

// testSize is the test examples of a task of n.
func testSize(kind taskKind, n int) int {
	if kind == taskDigits {
		return n - nn.SplitSize(n, digitsTrain)
	}
	return n - nn.SplitSize(n, planeTrain)
}

// lossOf is the loss a task's network trains on.
func lossOf(kind taskKind) nn.Loss {
	if kind == taskDigits {
		return nn.CrossEntropy
	}
	return nn.Logistic
}

// forwardBytes is what forward on rows examples leaves held till the
// network's next pass: its forward tape, its batch, and its result.
func forwardBytes(a nn.MLPConfig, rows int) int64 {
	return nn.ForwardTapeBytes(a, rows) + nn.BatchBytes(rows, a.In) + tensor.Alloc(rows*a.Out)
}

// decisionMapBytes is a decision map of a task with test examples: the
// pass over the grid (forwardBytes), the map and its shading, and the
// test points.
func decisionMapBytes(a nn.MLPConfig, test int) int64 {
	return forwardBytes(a, mapNX*mapNY) + mapBytes(test)
}

// mapBytes is a decision map's picture without its pass: the map, its
// shading and the test points.
func mapBytes(test int) int64 { return 2*tensor.Alloc(mapNX*mapNY) + 2*tensor.Alloc(test) }

func (t *task) outputs() int {
	if t.classes == 2 {
		return 1
	}
	return t.classes
}

// trainModel trains a tanh MLP on the task for steps minibatch steps
// (batch 32, Adam at 0.01), adversarially when atk.Eps > 0 (inner attack
// steps of atk), from the seed's initialisation stream: two models of one
// seed start from the same weights.
func (t *task) trainModel(seed uint64, steps, inner int, atk adversarial.Config) (*nn.MLP, error) {
	m, err := nn.NewMLP(nn.MLPConfig{In: t.train.D, Hidden: t.hidden, Out: t.outputs(), Act: nn.Tanh},
		streamRNG(seed, initStream))
	if err != nil {
		return nil, err
	}
	tr, err := adversarial.NewTrainer(m, t.train, min(32, t.train.N), inner, atk,
		opt.Config{Method: opt.Adam, LR: 0.01}, streamRNG(seed, trainStream))
	if err != nil {
		return nil, err
	}
	for range steps {
		if err := tr.Step(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// forward runs m on rows x and returns a copy of its outputs.
func forward(m nn.Model, x []float64) []float64 {
	in, _ := m.Shape()
	b, _ := nn.NewBatch(len(x)/in, in)
	b.LoadRows(x, nil)
	tp := tensor.NewForwardTape()
	return append([]float64(nil), m.Forward(tp, b.X, nil).Data...)
}

// probs turns one example's outputs into class probabilities.
func probs(out []float64) []float64 {
	if len(out) == 1 {
		p := stable.Sigmoid(out[0])
		return []float64{1 - p, p}
	}
	p := make([]float64, len(out))
	stable.Softmax(p, out)
	return p
}

// decisionMap draws p(class 1) of a two-class model over the task's view,
// with its ½ line, under the test points.
func (t *task) decisionMap(title string, m nn.Model) sims.CanvasChart {
	const nx, ny = mapNX, mapNY
	xy := make([]float64, 0, 2*nx*ny)
	v := t.view
	for j := range ny {
		y := v.YMin + (float64(j)+0.5)*(v.YMax-v.YMin)/ny
		for i := range nx {
			xy = append(xy, v.XMin+(float64(i)+0.5)*(v.XMax-v.XMin)/nx, y)
		}
	}
	out := forward(m, xy)
	heat := &sims.Grid{NX: nx, NY: ny, Z: make([]float64, nx*ny), Scale: sims.Diverging, Lo: 0, Hi: 1,
		Shade: make([]float64, nx*ny)}
	for i, z := range out {
		heat.Z[i], heat.Shade[i] = stable.Sigmoid(z), 0.45
	}
	n := t.test.N
	ps := sims.PointSet{Name: "test", X: make([]float64, n), Y: make([]float64, n), Classes: t.test.Labels}
	for i := range n {
		ps.X[i], ps.Y[i] = t.test.X[2*i], t.test.X[2*i+1]
	}
	return sims.CanvasChart{Title: title, View: v, Heat: heat, Contours: &sims.Grid{NX: nx, NY: ny, Z: heat.Z, Lo: 0, Hi: 1, Levels: 2},
		Points: []sims.PointSet{ps}, Legend: []string{"class 0", "class 1"}, XLabel: "x", YLabel: "y"}
}

// ballPath outlines the ε-ball about (x, y): a square for L∞, a circle
// for L2.
// The decision map's grid.
const (
	mapNX = 72
	mapNY = 36
)

func ballPath(x, y, eps float64, norm adversarial.Norm, class int) sims.Path {
	if norm == adversarial.LInf {
		return sims.Path{X: []float64{x - eps, x + eps, x + eps, x - eps, x - eps},
			Y: []float64{y - eps, y - eps, y + eps, y + eps, y - eps}, Class: class}
	}
	return sims.Ellipse(x, y, eps*eps, 0, eps*eps, 1, class)
}

// robustCurve is the test accuracy of m under a k-step sign-PGD attack in
// the norm at each ε of grid (ε = 0: clean), on at most 200 test rows.
func (t *task) robustCurve(m nn.Model, norm adversarial.Norm, grid []float64, k int) ([]float64, error) {
	sub := t.test
	if sub.N > 200 {
		idx := make([]int, 200)
		for i := range idx {
			idx[i] = i
		}
		sub = sub.Subset(idx)
	}
	acc := make([]float64, len(grid))
	for i, e := range grid {
		cfg := adversarial.Config{Method: adversarial.SignPGD, Norm: norm, Eps: e, Step: 2.5 * e / float64(k),
			Lo: t.lo, Hi: t.hi}
		var err error
		if acc[i], err = adversarial.Robust(m, sub, cfg, k, 100); err != nil {
			return nil, fmt.Errorf("accuracy at ε = %g: %w", e, err)
		}
	}
	return acc, nil
}

// epsGrid is n+1 values from 0 to top.
func epsGrid(top float64, n int) []float64 {
	g := make([]float64, n+1)
	for i := range g {
		g[i] = top * float64(i) / float64(n)
	}
	return g
}

// argmax is the index of the largest value.
func argmax(p []float64) int {
	best := 0
	for i, v := range p {
		if v > p[best] {
			best = i
		}
	}
	return best
}

// maxAbs is the largest |v|.
func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
