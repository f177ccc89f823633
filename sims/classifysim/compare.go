package classifysim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/classic"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/optim"
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
	Name: "classifiers",
	Title: "Classifier comparison: random forest, decision tree, k-NN, naive Bayes, logistic regression regions " +
		"on moons, circles, Gaussians",
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
	cmpModel = param.Choice("model", []cmpModelKind{modelForest, modelTree, modelKNN, modelNB, modelLogReg}, modelForest,
		"forest: a random forest, a tree a step; tree: one CART tree, a split a step (best first); "+
			"knn: k nearest neighbours, k = 1, 2, … a step; naive-bayes: Gaussian naive Bayes, a training point a step; "+
			"logistic: the lab's logistic regression (λ = 1/n, scikit-learn's C = 1), a gradient step a step")
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
	case modelLogReg:
		return "steps"
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
