package classifysim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/classic"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/algo/svm"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Classifiers is scikit-learn's "Classifier comparison" one model at a
// time: a random forest adding a tree a step, a CART tree making a split a
// step (best first), k-NN sweeping k, Gaussian naive Bayes taking a
// point a step, or the lab's logistic regression by gradient descent, on
// moons, circles or two Gaussian clusters; its probability p(class 1 | x)
// shades the plane under the training points, with the train and test
// accuracies over the steps.
var Classifiers = &sims.Spec{
	Name:  "classifiers",
	Title: "Classifier comparison: forest, tree, k-NN, naive Bayes, logistic, RBF SVM and MLP regions on moons, circles, Gaussians",
	Source: "scikit-learn's Classifier comparison; Breiman et al. 1984 (CART), Breiman 2001 (random forests), " +
		"Cover & Hart 1967 (k-NN), ESL §6.6.3, §9.2, §13.3, §15 (naive Bayes, trees, k-NN, forests); " +
		"seed 001 §4 (logistic regression)",
	Steps:   200,
	Speed:   2,
	Params:  param.List(cmpModel, cmpData, cmpN, cmpNoise, cmpTrees, cmpDepth, cmpKMax),
	New:     newClassifiers,
	Size:    classifiersSize,
	Metrics: classifiersMetrics,
}

// cmpModelKind names a classifier of the comparison.
type cmpModelKind string

func (m cmpModelKind) String() string { return string(m) }

const (
	modelForest cmpModelKind = "forest"
	modelTree   cmpModelKind = "tree"
	modelKNN    cmpModelKind = "knn"
	modelNB     cmpModelKind = "naive-bayes"
	modelLogReg cmpModelKind = "logistic"
	modelSVM    cmpModelKind = "svm"
	modelMLP    cmpModelKind = "mlp"
)

// cmpSet names a data set of the comparison.
type cmpSet string

func (s cmpSet) String() string { return string(s) }

const (
	setMoons   cmpSet = "moons"
	setCircles cmpSet = "circles"
	setLinear  cmpSet = "linear"
)

// classifiers' parameters.
var (
	cmpModel = param.Choice("model", []cmpModelKind{modelForest, modelTree, modelKNN, modelNB, modelLogReg, modelSVM, modelMLP}, modelForest,
		"forest: a random forest, a tree a step; tree: one CART tree, a split a step (best first); "+
			"knn: k nearest neighbours, k = 1, 2, … a step; naive-bayes: Gaussian naive Bayes, a training point a step; "+
			"logistic: the lab's logistic regression (λ = 1/n, scikit-learn's C = 1), a gradient step a step; "+
			"svm: an RBF-kernel SVM (γ = 2, C = 1, the gallery's SVC) by SMO, a pair update a step; "+
			"mlp: a 2-16-16-1 tanh network, Adam (lr 0.01) on the full batch, a step a step")
	cmpData = param.Choice("data", []cmpSet{setMoons, setCircles, setLinear}, setMoons,
		"moons: two interleaved half circles; circles: a ring round a disk of radius ½; "+
			"linear: two Gaussian clusters at ±(½, ½), s.d. √(0.3² + noise²), nearly linearly separable")
	cmpN     = param.Int("n", 200, "training points; as many test points are drawn from the same law").Range(20, cmpMaxN)
	cmpNoise = param.Float("noise", 0.3, "s.d. of the Gaussian noise on each coordinate").Range(0, 1).
			DefaultFunc(func(v param.Values) float64 {
			if cmpData.Get(v) == setMoons {
				return 0.3
			}
			return 0.2
		}, "0.3 for moons, 0.2 for circles and linear (the gallery's)")
	cmpTrees = param.Int("trees", 60, "forest: the trees to grow, one a step").Range(1, 500)
	cmpDepth = param.Int("max_depth", 0, "tree and forest: the greatest depth of a tree (0: grow until the leaves are pure)").
			Range(0, 30)
	cmpKMax = param.Int("kmax", 50, "knn: sweep k from 1 to kmax (at most n)").Range(1, cmpMaxN)
)

// cmpMaxN bounds n.
const cmpMaxN = 2000

// The decision map's grid, and the darkening of its regions under the
// points (as the playground's).
const (
	cmpGridX, cmpGridY = 96, 48
	cmpShade           = 0.45
)

type cmpSim struct {
	model  cmpModelKind
	x, qx  [][]float64
	y, qy  []int
	px, py []float64
	view   sims.Rect
	cells  [][]float64 // the grid's centres
	shade  []float64   // cmpShade everywhere, shared by every Frame
	p      []float64

	knn    *classic.KNN
	kmax   int
	tree   *classic.Tree
	forest *classic.Forest
	fGrid  []float64 // Σ over the trees of p(class 1) on the grid
	fSum   []float64 // Σ over the trees of p(class 0), p(class 1) at the training then the test points
	alone  []float64 // the newest tree's p(class 1) on the grid
	nb     *classic.GaussianNB
	seen   int // naive Bayes: training points taken in
	lg     *logistic
	sv     *cmpSVM
	mlp    *cmpMLP

	heat              []float64 // p(class 1) on the grid now; replaced, never written after a Frame
	trainAcc, testAcc float64
	oob               float64
	ready             bool
	trace             *sims.Trace // train, test, OOB accuracy
}

// classifiersSize is what classifiers holds: its training and test
// points with their labels and coordinates, the grid's centres, the shade
// and p(class 1) that a Frame shares, the accuracies' Trace and the
// Frame's copies of it, the engine (a forest's grown trees, their nodes
// estimated by cmpNodes, with its running sums and out-of-bag sums; a
// growing tree; k-NN's neighbour lists; naive Bayes' sums, a few bytes)
// and a measured base (the Frame's charts and notes).
func classifiersSize(c sims.Config) int64 {
	v := c.Values
	n := cmpN.Get(v)
	cells := int64(cmpGridX * cmpGridY)
	b := dataset.LabelledBytes(2*n, 2) + 32*int64(n) + cells*(24+16+8+8) + 40<<10
	switch cmpModel.Get(v) {
	case modelForest:
		t := cmpTrees.Get(v)
		nodes := int64(t) * int64(cmpNodes(v, true))
		b += sims.TraceBytesAfter(3, 3, t) + 2*cells*8 + 56*int64(n) +
			int64(t)*(int64(unsafe.Sizeof(classic.Tree{}))+8) + classic.TreeBytes(int(nodes), 2)*9/8
	case modelTree:
		b += sims.TraceBytesAfter(2, 2, 2*n) + 2*classic.GrowingTreeBytes(cmpNodes(v, false)/2+1, 2)
	case modelKNN:
		b += sims.TraceBytesAfter(2, 2, cmpKMax.Get(v)) + 16*int64(n)
	case modelLogReg:
		b += sims.TraceBytesAfter(2, 2, cmpLogSteps) + linear.DesignBytes(n, 3) + linear.LogisticBytes(n, 3) + 1<<10
	case modelSVM:
		b += sims.TraceBytesAfter(2, 2, sims.TraceCap) + svm.KernelFootprint(n, 2, cmpSVMCache(n)) + 8*(cells+3*int64(n))
	case modelMLP:
		b += sims.TraceBytesAfter(2, 2, cmpMLPSteps) + cmpMLPBytes(n, int(cells))
	default:
		b += sims.TraceBytesAfter(2, 2, n) + 1<<10
	}
	return b
}

// cmpNodes estimates the nodes of a tree grown on the data of v (boot:
// a forest's tree, grown on a bootstrap's m ≈ 0.632n distinct points; else
// m = n), from trees measured at seeds 1 and 2: twice its leaves, of
// which it needs one for about every point that the noise carries among
// the other class, a share c·noise of them (c = 0.4 for moons, 0.9 for
// circles, whose gap is narrower, 0.15 for the Gaussian clusters; at most
// 0.45), and 1.3·log₂ m for the boundary's boxes where the classes do not
// mix; capped by a depth bound's 2^max_depth, and a quarter more for the
// seeds' spread.
func cmpNodes(v param.Values, boot bool) int {
	m, noise := float64(cmpN.Get(v)), cmpNoise.Get(v)
	if boot {
		m *= 0.632
	}
	c := 0.4
	switch cmpData.Get(v) {
	case setCircles:
		c = 0.9
	case setLinear:
		c = 0.15
	}
	leaves := math.Max(1.3*math.Log2(m), 3+m*math.Min(0.45, c*noise))
	if d := cmpDepth.Get(v); d > 0 && d < 30 {
		leaves = math.Min(leaves, math.Pow(2, float64(d)))
	}
	return int(2.5 * leaves)
}

func newClassifiers(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	n, noise := cmpN.Get(v), cmpNoise.Get(v)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x636f6d70617265)) // "compare"
	var l *dataset.Labelled
	var err error
	switch cmpData.Get(v) {
	case setCircles:
		l, err = dataset.Circles(rng, 2*n, 0.5, noise)
	case setLinear:
		l, err = dataset.TwoGaussians(rng, 2*n, noise)
	default:
		l, err = dataset.Moons(rng, 2*n, noise)
	}
	if err != nil {
		return nil, err
	}
	ys := l.Int()
	s := &cmpSim{model: cmpModel.Get(v), x: l.X[:n:n], y: ys[:n:n], qx: l.X[n:], qy: ys[n:], p: make([]float64, 2)}
	s.px, s.py = make([]float64, n), make([]float64, n)
	ax, ay := make([]float64, 2*n), make([]float64, 2*n)
	for i, r := range l.X {
		ax[i], ay[i] = r[0], r[1]
		if i < n {
			s.px[i], s.py[i] = r[0], r[1]
		}
	}
	s.view = sims.Bounds(ax, ay).Pad(0.05)
	s.cells = make([][]float64, cmpGridX*cmpGridY)
	s.shade = make([]float64, len(s.cells))
	cx := make([]float64, 2*len(s.cells))
	for j := range cmpGridY {
		y := s.view.YMin + (float64(j)+0.5)*(s.view.YMax-s.view.YMin)/cmpGridY
		for i := range cmpGridX {
			k := j*cmpGridX + i
			cx[2*k], cx[2*k+1] = s.view.XMin+(float64(i)+0.5)*(s.view.XMax-s.view.XMin)/cmpGridX, y
			s.cells[k], s.shade[k] = cx[2*k:2*k+2:2*k+2], cmpShade
		}
	}
	switch s.model {
	case modelForest:
		s.forest, err = classic.NewForest(s.x, s.y, 2, classic.ForestConfig{Trees: cmpTrees.Get(v), MaxDepth: cmpDepth.Get(v)},
			rand.New(rand.NewPCG(cfg.Seed, 0x666f72657374))) // "forest"
		if err != nil {
			return nil, sims.Blame(err, v, sims.As("trees", cmpTrees), sims.As("max_depth", cmpDepth))
		}
		s.fGrid, s.fSum = make([]float64, len(s.cells)), make([]float64, 4*n)
		s.trace = sims.NewTrace(1, 3)
		return s, nil
	case modelTree:
		if s.tree, err = classic.NewTree(s.x, s.y, 2, nil, classic.TreeConfig{MaxDepth: cmpDepth.Get(v)}, nil); err != nil {
			return nil, sims.Blame(err, v, sims.As("max_depth", cmpDepth))
		}
		s.trace = sims.NewTrace(0, 2)
	case modelKNN:
		s.kmax = cmpKMax.Get(v)
		if s.kmax > n {
			return nil, algo.BadParam("kmax", s.kmax, fmt.Sprintf("in 1..%d (n, the training points)", n))
		}
		if s.knn, err = classic.NewKNN(s.x, s.y, 2, 1); err != nil {
			return nil, err
		}
		s.trace = sims.NewTrace(1, 2)
	case modelLogReg:
		if s.lg, err = newLogistic(s.x, s.y); err != nil {
			return nil, err
		}
		s.trace = sims.NewTrace(0, 2)
	case modelSVM:
		if s.sv, err = newCmpSVM(s.x, s.y, s.cells, s.qx); err != nil {
			return nil, sims.Blame(err, v, sims.As("labels", cmpN)) // a small set drew one class
		}
		s.trace = sims.NewTrace(0, 2)
	case modelMLP:
		if s.mlp, err = newCmpMLP(s.x, s.qx, s.cells, s.y, s.qy, cfg.Seed); err != nil {
			return nil, err
		}
		s.trace = sims.NewTrace(0, 2)
	default:
		if s.nb, err = classic.NewGaussianNB(2, 2, classic.DefaultSmoothing); err != nil {
			return nil, err
		}
		return s, nil
	}
	s.refresh()
	return s, nil
}

// current is the classifier now (nil before naive Bayes is ready or the
// forest has a tree).
func (s *cmpSim) current() classic.Classifier {
	switch {
	case s.tree != nil:
		return s.tree
	case s.knn != nil:
		return s.knn
	case s.nb != nil && s.nb.Ready():
		return s.nb
	case s.lg != nil:
		return s.lg
	case s.forest != nil && s.forest.Len() > 0:
		return s.forest
	}
	return nil
}

// refresh recomputes the map and the accuracies of the model now (the
// forest's map is kept up to date tree by tree in Step).
func (s *cmpSim) refresh() {
	switch {
	case s.sv != nil:
		s.refreshSVM()
		return
	case s.mlp != nil:
		s.refreshMLP()
		return
	}
	m := s.current()
	if m == nil {
		return
	}
	s.ready = true
	if s.forest == nil {
		heat := make([]float64, len(s.cells))
		for i, q := range s.cells {
			m.Proba(q, s.p)
			heat[i] = s.p[1]
		}
		s.heat = heat
	}
	xs, ys := s.x, s.y
	if s.nb != nil {
		xs, ys = s.x[:s.seen], s.y[:s.seen]
	}
	if s.forest != nil {
		s.oob = math.NaN()
		if a, _, ok := s.forest.OOB(); ok {
			s.oob = a
		}
		s.trace.Add(s.trainAcc, s.testAcc, s.oob)
		return
	}
	s.trainAcc, s.testAcc = classic.Accuracy(m, xs, ys), classic.Accuracy(m, s.qx, s.qy)
	if s.trace == nil {
		s.trace = sims.NewTrace(s.seen, 2)
	}
	s.trace.Add(s.trainAcc, s.testAcc)
}

func (s *cmpSim) Step() error {
	switch {
	case s.forest != nil:
		if err := s.forest.Step(); err != nil {
			return err
		}
		trees := s.forest.Trees()
		t := trees[len(trees)-1]
		alone, heat := make([]float64, len(s.cells)), make([]float64, len(s.cells))
		k := float64(len(trees))
		for i, q := range s.cells {
			t.Proba(q, s.p)
			alone[i] = s.p[1]
			s.fGrid[i] += s.p[1]
			heat[i] = s.fGrid[i] / k
		}
		s.alone, s.heat = alone, heat
		// The accuracies from running sums of the trees' probabilities:
		// a tree's worth of work a step, the forest's Predict (argmax of
		// the summed probabilities, the smaller class among ties) without
		// going through every tree again.
		n := len(s.x)
		right := [2]int{}
		for i := range 2 * n {
			q, y, part := s.x, s.y, 0
			if i >= n {
				q, y, part = s.qx, s.qy, 1
			}
			t.Proba(q[i%n], s.p)
			s.fSum[2*i] += s.p[0]
			s.fSum[2*i+1] += s.p[1]
			if c := boolInt(s.fSum[2*i+1] > s.fSum[2*i]); c == y[i%n] {
				right[part]++
			}
		}
		s.trainAcc, s.testAcc = float64(right[0])/float64(n), float64(right[1])/float64(n)
	case s.tree != nil:
		if err := s.tree.Step(); err != nil {
			return err
		}
	case s.lg != nil:
		if err := s.lg.gd.Step(); err != nil {
			return err
		}
		if s.lg.gd.Iter() >= cmpLogSteps {
			s.refresh()
			return fmt.Errorf("%w: %d gradient steps, ‖∇f‖ = %.2g", algo.ErrConverged, cmpLogSteps, s.lg.gd.GradNorm())
		}
	case s.sv != nil:
		if err := s.sv.step(s.x, s.cells, s.qx); err != nil {
			return err
		}
	case s.mlp != nil:
		if s.mlp.tr.Steps() >= cmpMLPSteps {
			return fmt.Errorf("%w: %d Adam steps, training loss %.4g", algo.ErrConverged, cmpMLPSteps, s.mlp.loss)
		}
		if err := s.mlp.tr.Step(); err != nil {
			return err
		}
	case s.knn != nil:
		if s.knn.K() >= s.kmax {
			return algo.ErrConverged
		}
		if err := s.knn.Step(); err != nil {
			return err
		}
	default:
		if s.seen >= len(s.x) {
			return algo.ErrConverged
		}
		if err := s.nb.Add(s.x[s.seen], s.y[s.seen]); err != nil {
			return err
		}
		s.seen++
	}
	s.refresh()
	return nil
}

// xLabel names the steps' quantity.
func (s *cmpSim) xLabel() string {
	switch s.model {
	case modelForest:
		return "trees"
	case modelTree:
		return "splits"
	case modelKNN:
		return "k"
	case modelLogReg, modelMLP:
		return "steps"
	case modelSVM:
		return "SMO pair updates"
	}
	return "points"
}

func (s *cmpSim) step() int {
	switch {
	case s.forest != nil:
		return s.forest.Len()
	case s.tree != nil:
		return s.tree.Splits()
	case s.knn != nil:
		return s.knn.K() - 1
	case s.lg != nil:
		return s.lg.gd.Iter()
	case s.sv != nil:
		return s.sv.smo.Iter()
	case s.mlp != nil:
		return s.mlp.tr.Steps()
	}
	return s.seen
}

func (s *cmpSim) Frame() sims.Frame {
	const notYet = "no model yet"
	metrics := []sims.Metric{
		sims.MetricOr("train acc", s.acc(s.trainAcc), notYet),
		sims.MetricOr("test acc", s.acc(s.testAcc), notYet),
	}
	n := len(s.px)
	if s.nb != nil {
		n = s.seen
	}
	mapChart := sims.CanvasChart{Title: s.mapTitle(), View: s.view, Legend: []string{"class 0", "class 1"},
		Points: []sims.PointSet{{Name: "train", X: s.px[:n:n], Y: s.py[:n:n], Classes: s.y[:n:n]}},
		XLabel: "x₁", YLabel: "x₂"}
	if s.ready {
		heat := &sims.Grid{NX: cmpGridX, NY: cmpGridY, Z: s.heat, Scale: sims.Diverging, Lo: 0, Hi: 1, Shade: s.shade}
		mapChart.Heat = heat
		mapChart.Contours = &sims.Grid{NX: cmpGridX, NY: cmpGridY, Z: s.heat, Lo: 0, Hi: 1, Levels: 2}
	}
	charts := []sims.Chart{mapChart}
	acc := sims.LineChart{Title: "accuracy: train, test", XLabel: s.xLabel(), Fraction: true}
	if s.trace != nil && s.trace.Len() > 0 {
		acc.X0, acc.X1 = s.trace.Span()
		acc.Series = []sims.Series{{Name: "train", Y: s.trace.Column(0), Class: 0}, {Name: "test", Y: s.trace.Column(1), Class: 1}}
	}
	switch {
	case s.forest != nil:
		trees := s.forest.Len()
		metrics = append(metrics, sims.MetricOr("OOB acc", s.acc(s.oob), "no point left out of a bootstrap yet"),
			sims.Metric{Name: "trees", Value: float64(trees)})
		depth, leaves := 0, 0
		for _, t := range s.forest.Trees() {
			depth, leaves = max(depth, t.Depth()), leaves+t.Leaves()
		}
		if trees > 0 {
			metrics = append(metrics, sims.Metric{Name: "depth", Value: float64(depth)},
				sims.Metric{Name: "leaves", Value: float64(leaves) / float64(trees)})
		} else {
			metrics = append(metrics, sims.MetricOr("depth", math.NaN(), notYet), sims.MetricOr("leaves", math.NaN(), notYet))
		}
		if s.trace.Len() > 0 {
			acc.Title = "accuracy: train, test, out of bag"
			acc.Series = append(acc.Series, sims.Series{Name: "OOB", Y: s.trace.Column(2), Class: 2})
		}
		charts = append(charts, acc)
		if s.alone != nil {
			charts = append(charts, sims.CanvasChart{Title: fmt.Sprintf("tree %d alone: its boxes", trees), View: s.view,
				Legend:   []string{"class 0", "class 1"},
				Heat:     &sims.Grid{NX: cmpGridX, NY: cmpGridY, Z: s.alone, Scale: sims.Diverging, Lo: 0, Hi: 1, Shade: s.shade},
				Contours: &sims.Grid{NX: cmpGridX, NY: cmpGridY, Z: s.alone, Lo: 0, Hi: 1, Levels: 2},
				XLabel:   "x₁", YLabel: "x₂"})
		}
	case s.tree != nil:
		metrics = append(metrics, sims.Metric{Name: "depth", Value: float64(s.tree.Depth())},
			sims.Metric{Name: "leaves", Value: float64(s.tree.Leaves())})
		charts = append(charts, acc)
	case s.knn != nil:
		metrics = append(metrics, sims.Metric{Name: "k", Value: float64(s.knn.K())})
		charts = append(charts, acc)
	case s.lg != nil:
		metrics = append(metrics, sims.Metric{Name: "grad_norm", Value: s.lg.gd.GradNorm()})
		charts = append(charts, acc)
	case s.sv != nil:
		free, bounded, _ := s.sv.smo.Counts()
		metrics = append(metrics, sims.Metric{Name: "sv", Value: float64(free + bounded)},
			sims.Metric{Name: "kkt", Value: s.sv.smo.KKT()})
		mapChart.Markers = s.svMarkers()
		charts[0] = mapChart
		charts = append(charts, acc)
	case s.mlp != nil:
		metrics = append(metrics, sims.Metric{Name: "loss", Value: s.mlp.loss})
		charts = append(charts, acc)
	default:
		metrics = append(metrics, sims.Metric{Name: "n", Value: float64(s.seen)})
		charts = append(charts, acc)
	}
	return sims.Frame{Sim: Classifiers.Name, Step: s.step(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// acc is a for a model that exists, else NaN.
func (s *cmpSim) acc(a float64) float64 {
	if !s.ready {
		return math.NaN()
	}
	return a
}

func (s *cmpSim) mapTitle() string {
	switch {
	case s.forest != nil:
		return fmt.Sprintf("forest of %d trees: mean p(class 1|x), line ½", s.forest.Len())
	case s.tree != nil:
		return fmt.Sprintf("tree of %d leaves: p(class 1|x), line ½", s.tree.Leaves())
	case s.knn != nil:
		return fmt.Sprintf("%d-NN: p(class 1|x), line ½", s.knn.K())
	case s.lg != nil:
		return "logistic regression: p(class 1|x), line ½"
	case s.sv != nil:
		return "RBF SVM: σ(2F(x)) shading, line F = 0"
	case s.mlp != nil:
		return fmt.Sprintf("MLP after %d Adam steps: p(class 1|x), line ½", s.mlp.tr.Steps())
	}
	return fmt.Sprintf("naive Bayes on %d points: p(class 1|x), line ½", s.seen)
}

func (s *cmpSim) notes() []string {
	switch {
	case s.forest != nil:
		lines := []string{"random forest (Breiman 2001): p is the mean of the trees' p, each tree grown on a bootstrap " +
			"sample, searching 1 random feature of the 2 (⌊√d⌋) at each split"}
		if s.forest.Len() > 0 {
			lines = append(lines, "one tree alone (its map) cuts the plane into axis-aligned boxes and fits the noise; "+
				"their average smooths the boundary and steadies the test accuracy")
		}
		return append(lines, "OOB: each training point scored by the trees whose bootstrap missed it (about e⁻¹ ≈ 37%)")
	case s.tree != nil:
		lines := []string{"CART (Breiman et al. 1984), best first: each step splits the leaf whose best split " +
			"x_f ≤ t lowers the Gini impurity 1 − Σp_c² most (t halfway between neighbouring values)"}
		if g := s.tree.NextGain(); g > 0 {
			lines = append(lines, fmt.Sprintf("next split lowers the weighted impurity by %.3g", g))
		} else {
			lines = append(lines, "grown: every leaf is pure or at max_depth")
		}
		return append(lines, "the regions are axis-aligned boxes; grown to pure leaves the tree scores 1 on its training "+
			"points and fits their noise: watch the test accuracy")
	case s.knn != nil:
		lines := []string{"k-NN: p(class 1|x) is the share of class 1 among the k training points nearest x; " +
			"a tie between the classes goes to class 0"}
		if s.knn.K() == 1 {
			return append(lines, "k = 1: a jagged boundary through the points; each is its own neighbour, so the training accuracy is 1")
		}
		return append(lines, "larger k averages more neighbours: a smoother boundary, until it underfits")
	case s.lg != nil:
		return []string{"logistic regression: p(class 1|x) = σ(⟨w, x⟩ + b), the mean log-loss + (λ/2)‖w‖² with λ = 1/n " +
			"minimised by gradient descent, t = 1/L",
			"its boundary is a straight line whatever the data: it cannot follow the moons or enclose the circles"}
	case s.sv != nil:
		return []string{"RBF SVM (γ = 2, C = 1) by SMO: the class is the sign of F(x) = Σ α_i y_i k(x_i, x) + b; " +
			"shading σ(2F), a squash of F, not a probability",
			fmt.Sprintf("○ free SV (0 < α < C), × bound SV (α = C); KKT violation %.3g, stops at %g", s.sv.smo.KKT(), cmpSVMTol)}
	case s.mlp != nil:
		return []string{"MLP 2-16-16-1, tanh: p(class 1|x) = σ(output); Adam (lr 0.01) on the full batch's logistic loss",
			fmt.Sprintf("training loss %.4g (%.4g at the start): the boundary bends to the data", s.mlp.loss, s.mlp.loss0)}
	}
	lines := []string{"Gaussian naive Bayes: within a class the features are independent normals; " +
		"means and variances are refitted as each point arrives (variances + 1e-9·max Var)"}
	if !s.ready {
		return append(lines, "waiting for points to fit")
	}
	return append(lines, "log p(1|x) − log p(0|x) is quadratic in x: the boundary is a conic with axes along x₁ and x₂")
}

func (s *cmpSim) Result() map[string]any {
	r := map[string]any{"model": string(s.model), "train_acc": s.acc(s.trainAcc), "test_acc": s.acc(s.testAcc)}
	if !s.ready {
		r["undefined"] = map[string]string{"train_acc": "no model yet", "test_acc": "no model yet"}
	}
	switch {
	case s.forest != nil:
		r["trees"] = s.forest.Len()
		if a, n, ok := s.forest.OOB(); ok {
			r["oob_acc"], r["oob_points"] = a, n
		}
	case s.tree != nil:
		r["depth"], r["leaves"] = s.tree.Depth(), s.tree.Leaves()
	case s.knn != nil:
		r["k"] = s.knn.K()
	case s.lg != nil:
		th := s.lg.gd.X()
		r["w"], r["b"], r["grad_norm"] = []float64{th[0], th[1]}, th[2], s.lg.gd.GradNorm()
	case s.sv != nil:
		free, bounded, _ := s.sv.smo.Counts()
		r["sv"], r["kkt"], r["pair_updates"] = free+bounded, s.sv.smo.KKT(), s.sv.smo.Iter()
		r["dual"], r["primal"] = s.sv.smo.Dual(), s.sv.smo.Primal()
	case s.mlp != nil:
		r["loss"], r["loss_start"], r["steps"] = s.mlp.loss, s.mlp.loss0, s.mlp.tr.Steps()
	default:
		r["n"] = s.seen
	}
	return r
}

// cmpLogSteps bounds the gradient steps of model=logistic, and
// cmpLogTol is its stopping rule ‖∇f‖ ≤ tol.
const (
	cmpLogSteps = 2000
	cmpLogTol   = 1e-6
)

// logistic is the lab's logistic regression (algo/linear, seed 001 §4)
// on the comparison's data, minimised by gradient descent (algo/optim)
// with t = 1/L, as a classic.Classifier: p(class 1 | x) = σ(⟨w, x⟩ + b),
// class 1 when the score is positive.
type logistic struct {
	lg *linear.Logistic
	gd *optim.Descent
}

// newLogistic sets up the mean log-loss + (λ/2)‖w‖², λ = 1/n (the
// objective of scikit-learn's LogisticRegression(C=1) divided by n), at
// θ = 0.
func newLogistic(x [][]float64, y []int) (*logistic, error) {
	d, err := linear.NewDesign(x, true)
	if err != nil {
		return nil, err
	}
	pm := make([]float64, len(y))
	for i, c := range y {
		pm[i] = float64(2*c - 1)
	}
	lg, err := linear.NewLogistic(d, pm, 1/float64(len(y)))
	if err != nil {
		return nil, err
	}
	_, L, err := lg.Curvature()
	if err != nil {
		return nil, err
	}
	gd, err := optim.NewDescent(lg, make([]float64, 3), optim.DescentConfig{Method: optim.GD, LR: 1 / L, Tol: cmpLogTol})
	if err != nil {
		return nil, err
	}
	return &logistic{lg: lg, gd: gd}, nil
}

func (l *logistic) Proba(q, p []float64) {
	p[1] = l.lg.Prob(l.gd.X(), q)
	p[0] = 1 - p[1]
}

func (l *logistic) Predict(q []float64) int {
	th := l.gd.X()
	return boolInt(th[0]*q[0]+th[1]*q[1]+th[2] > 0)
}

// The SVM of model=svm: scikit-learn's gallery's SVC(gamma=2, C=1), an
// RBF kernel exp(−γ‖x − z‖²), solved by the lab's SMO to its KKT
// tolerance, cmpSVMPairs pair updates a step.
const (
	cmpSVMGamma = 2
	cmpSVMC     = 1
	cmpSVMTol   = 1e-3
	cmpSVMPairs = 1
)

// cmpSVM is the SMO of model=svm with the decision function
// F(x) = Σ α_i y_i k(x_i, x) + b on the grid and the test points, kept
// without b as the pair updates change α.
type cmpSVM struct {
	k     kernel.RBF
	smo   *svm.SMO
	y     []float64
	prevA []float64 // α where fg and fq were last brought up to date
	fg    []float64 // Σ α_i y_i k(x_i, g) at the grid's centres
	fq    []float64 // the same at the test points
}

// newCmpSVM starts SMO from α = 0 on x with labels 0, 1 (as −1, +1),
// its kernel-row cache large enough for every row.
func newCmpSVM(x [][]float64, y []int, cells, qx [][]float64) (*cmpSVM, error) {
	pm := make([]float64, len(y))
	for i, c := range y {
		pm[i] = float64(2*c - 1)
	}
	v := &cmpSVM{k: kernel.RBF{Gamma: cmpSVMGamma}, y: pm, prevA: make([]float64, len(y)),
		fg: make([]float64, len(cells)), fq: make([]float64, len(qx))}
	var err error
	v.smo, err = svm.NewKernel(x, v.k, pm, svm.Config{C: cmpSVMC, Tol: cmpSVMTol, Cache: cmpSVMCache(len(y)), Reserve: true})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// cmpSVMCache is a cache of every kernel row of n points.
func cmpSVMCache(n int) int64 { return 4*int64(n)*int64(n) + 64<<10 }

// step makes cmpSVMPairs pair updates and brings F up to date at the grid
// and the test points.
func (v *cmpSVM) step(x, cells, qx [][]float64) error {
	for range cmpSVMPairs {
		i, j := v.smo.Pair()
		if err := v.smo.Step(); err != nil {
			return err
		}
		a := v.smo.Alpha()
		for _, t := range [2]int{i, j} {
			if t < 0 {
				continue
			}
			d := (a[t] - v.prevA[t]) * v.y[t]
			if d == 0 {
				continue
			}
			for c, q := range cells {
				v.fg[c] += d * kernel.Eval(v.k, x[t], q)
			}
			for c, q := range qx {
				v.fq[c] += d * kernel.Eval(v.k, x[t], q)
			}
			v.prevA[t] = a[t]
		}
	}
	return nil
}

// squash is the map's shading of the decision function, 1/(1 + e^(−2F)):
// ½ on the boundary F = 0, 0.88 and 0.12 on the margins F = ±1. It is
// not a probability.
func squash(f float64) float64 { return 1 / (1 + math.Exp(-2*f)) }

// The MLP of model=mlp: 2 → 16 → 16 → 1 tanh units, the logistic loss,
// trained by Adam on the full batch, a step a step, for at most
// cmpMLPSteps steps.
const (
	cmpMLPWidth = 16
	cmpMLPLR    = 0.01
	cmpMLPSteps = 500
)

// cmpMLPArch is model=mlp's network.
var cmpMLPArch = nn.MLPConfig{In: 2, Hidden: []int{cmpMLPWidth, cmpMLPWidth}, Out: 1, Act: nn.Tanh}

// cmpMLP is the network of model=mlp, its trainer and the batches its
// map and accuracies run on.
type cmpMLP struct {
	net               *nn.MLP
	tr                *nn.Trainer
	tp                *tensor.Tape // forward passes for the map and the accuracies
	grid, train, test *nn.Batch
	loss0, loss       float64 // the training loss at the start and now
}

func newCmpMLP(x, qx, cells [][]float64, y, qy []int, seed uint64) (*cmpMLP, error) {
	flat := func(r [][]float64) []float64 {
		f := make([]float64, 0, 2*len(r))
		for _, p := range r {
			f = append(f, p[0], p[1])
		}
		return f
	}
	xs := flat(x)
	set, err := nn.NewClassSet(xs, 2, y, 2)
	if err != nil {
		return nil, err
	}
	m := &cmpMLP{tp: tensor.NewForwardTape()}
	if m.net, err = nn.NewMLP(cmpMLPArch, rand.New(rand.NewPCG(seed, 0x6d6c70))); err != nil { // "mlp"
		return nil, err
	}
	if m.tr, err = nn.NewTrainer(m.net, set, nn.TrainConfig{Batch: len(y), Opt: opt.Config{Method: opt.Adam, LR: cmpMLPLR}},
		rand.New(rand.NewPCG(seed, 0x6164616d))); err != nil { // "adam"
		return nil, err
	}
	for _, b := range []struct {
		dst  **nn.Batch
		x    []float64
		y    []int
		rows int
	}{{&m.grid, flat(cells), nil, len(cells)}, {&m.train, xs, y, len(y)}, {&m.test, flat(qx), qy, len(qy)}} {
		if *b.dst, err = nn.NewBatch(b.rows, 2); err != nil {
			return nil, err
		}
		(*b.dst).LoadRows(b.x, b.y)
	}
	return m, nil
}

// logits runs the network on b and returns its logits (the tape's: valid
// until the next run).
func (m *cmpMLP) logits(b *nn.Batch) []float64 {
	m.tp.Rewind()
	return m.net.Forward(m.tp, b.X, nil).Data
}

// accuracy is the share of b's rows whose logit's sign names their class.
func (m *cmpMLP) accuracy(b *nn.Batch) float64 {
	right := 0
	for i, z := range m.logits(b) {
		if boolInt(z > 0) == b.Labels[i] {
			right++
		}
	}
	return float64(right) / float64(len(b.Labels))
}

// cmpMLPBytes is what model=mlp holds: the network, its trainer, the
// forward tape on the grid, the three batches and the training set.
func cmpMLPBytes(n, cells int) int64 {
	tc := nn.TrainConfig{Batch: n, Opt: opt.Config{Method: opt.Adam, LR: cmpMLPLR}}
	return nn.ParamBytes(cmpMLPArch) + tc.Bytes(cmpMLPArch, n, 2, 1, nn.Logistic) +
		nn.ForwardTapeBytes(cmpMLPArch, max(cells, n)) + nn.BatchBytes(cells, 2) + 2*nn.BatchBytes(n, 2) +
		nn.SetBytes(n, 2) + 8*int64(cells+2*n)
}

// refreshSVM draws σ(2F) on the grid and scores sign F on the training
// and test points.
func (s *cmpSim) refreshSVM() {
	v := s.sv
	b := v.smo.Bias()
	heat := make([]float64, len(s.cells))
	for i, f := range v.fg {
		heat[i] = squash(f + b)
	}
	right := 0
	for i := range v.y {
		if v.smo.Margin(i, b) > 0 {
			right++
		}
	}
	test := 0
	for i, f := range v.fq {
		if boolInt(f+b > 0) == s.qy[i] {
			test++
		}
	}
	s.heat, s.ready = heat, true
	s.trainAcc, s.testAcc = float64(right)/float64(len(v.y)), float64(test)/float64(len(s.qy))
	s.trace.Add(s.trainAcc, s.testAcc)
}

// svMarkers marks the support vectors: ○ free, × at the bound C.
func (s *cmpSim) svMarkers() []sims.Marker {
	var m []sims.Marker
	for i, a := range s.sv.smo.Alpha() {
		switch {
		case a <= 0:
		case a >= s.sv.smo.C():
			m = append(m, sims.Marker{X: s.px[i], Y: s.py[i], Glyph: '×', Class: s.y[i]})
		default:
			m = append(m, sims.Marker{X: s.px[i], Y: s.py[i], Glyph: '○', Class: s.y[i]})
		}
	}
	return m
}

// refreshMLP draws σ(logit) on the grid, scores the logit's sign on the
// training and test points and takes the training loss.
func (s *cmpSim) refreshMLP() {
	m := s.mlp
	heat := make([]float64, len(s.cells))
	for i, z := range m.logits(m.grid) {
		heat[i] = 1 / (1 + math.Exp(-z))
	}
	s.heat, s.ready = heat, true
	s.trainAcc, s.testAcc = m.accuracy(m.train), m.accuracy(m.test)
	m.loss = m.lossNow()
	if m.tr.Steps() == 0 {
		m.loss0 = m.loss
	}
	s.trace.Add(s.trainAcc, s.testAcc)
}

// lossNow is the mean logistic loss on the training points at the
// current weights, log(1 + e^(−y z)) with y = ±1, from the logits.
func (m *cmpMLP) lossNow() float64 {
	sum := 0.0
	for i, z := range m.logits(m.train) {
		yz := float64(2*m.train.Labels[i]-1) * z
		// log(1 + e^(−yz)), stable either side of 0
		if yz > 0 {
			sum += math.Log1p(math.Exp(-yz))
		} else {
			sum += -yz + math.Log1p(math.Exp(yz))
		}
	}
	return sum / float64(len(m.train.Labels))
}
