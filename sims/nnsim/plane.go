package nnsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/sims"
)

// planeSet names a built-in 2-D data set of the plane sims.
type planeSet string

func (p planeSet) String() string { return string(p) }

const (
	setCircle planeSet = "circle"
	setXor    planeSet = "xor"
	setGauss  planeSet = "gauss"
	setSpiral planeSet = "spiral"
	setMoons  planeSet = "moons"
	setXor4   planeSet = "xor4"
	setPlane  planeSet = "plane"
	setBumps  planeSet = "bumps"
)

// planeSetHelp says what each set is.
const planeSetHelp = "circle: a ring round a disk; xor: the quadrants' signs; gauss: two clusters; " +
	"spiral: two interleaved spirals; moons: two half moons; xor4: the notes' four XOR points (Ex 9.1); " +
	"plane, bumps: regression surfaces t(x, y)"

// planeNoiseHelp says what the noise of planeData is.
const planeNoiseHelp = "Gaussian noise on the points, its s.d. this fraction of the gap between the classes " +
	"(between the spiral's arms, the circles, the moons' tips, the clusters' or quadrants' centres), the same on every set: " +
	"0.1 keeps every shape plain, 1 mixes the classes; for plane, bumps the s.d. of the noise on the target"

// circleFactor is the inner circle's radius of the circle set (the outer
// one's is 1).
const circleFactor = 0.5

// planeUnit is how many times larger than algo/dataset draws them the
// playground draws its built-in sets: TensorFlow Playground's units, the
// spiral out to radius 5 in a view of about [−6, 6]². The features are
// computed in these units, and only there do sin and cos add to x and y:
// over [−5, 5] they vary on the scale of the spiral's arms (half a period,
// π, against the classes' alternation every 5·2/7 ≈ 1.4 along a ray),
// where over [−1, 1] sin x is x to within 0.16 and cos x is 1 − x²/2 to
// within 0.05. With sin and cos the default network's test accuracy on
// the spiral was 0.79 at unit scale and is 0.95 here (3,600 steps, the
// mean of 12 seeds). The targets of plane and bumps keep their values.
const planeUnit = 5

// planeGap is a built-in classification set's gap (algo/dataset: the
// distance across the ideal boundary between the classes' noiseless
// structures) before planeUnit; 0 for the others.
func planeGap(set planeSet) float64 {
	switch set {
	case setCircle:
		return dataset.CirclesGap(circleFactor)
	case setXor:
		return dataset.XorGap
	case setGauss:
		return dataset.GaussGap
	case setSpiral:
		return dataset.SpiralGap
	case setMoons:
		return dataset.MoonsGap
	}
	return 0
}

// planeData draws a built-in set. The noise ν is in the set's own terms,
// so that it means the same on every set: on the points of a
// classification set Gaussian noise of s.d. σ = ν·δ in each coordinate,
// δ the set's gap (planeGap), so that a point on its class's curve, δ/2
// from the boundary, crosses it with probability Φ(−1/(2ν)) (3·10⁻⁷ at
// the default 0.1, 16% at 0.5); on a regression target, whose values
// span [−1, 1], noise of s.d. ν. Then every point but xor4's (the notes'
// four) is scaled by planeUnit.
func planeData(set planeSet, seed uint64, n int, noise float64) (*dataset.Labelled, error) {
	rng := streamRNG(seed, dataStream)
	sd := noise * planeGap(set)
	var l *dataset.Labelled
	var err error
	switch set {
	case setCircle:
		l, err = dataset.Circles(rng, n, circleFactor, sd)
	case setXor:
		l, err = dataset.XorCloud(rng, n, sd)
	case setGauss:
		l, err = dataset.TwoGaussians(rng, n, sd)
	case setSpiral:
		l, err = dataset.Spiral(rng, n, sd)
	case setMoons:
		l, err = dataset.Moons(rng, n, sd)
	case setXor4:
		return dataset.Xor(), nil
	case setPlane:
		l, err = dataset.OnSurface(rng, dataset.SurfacePlane, n, noise)
	default:
		l, err = dataset.OnSurface(rng, dataset.SurfaceBumps, n, noise)
	}
	if err != nil {
		return nil, err
	}
	for _, p := range l.X {
		for j := range p {
			p[j] *= planeUnit
		}
	}
	return l, nil
}

// planeTable reads --data for a plane sim: two feature columns and a
// label column, and the task the labels make, said in words. Labels that
// are all whole numbers 0..9 (or ±1) are classes; labels that are real
// numbers are regression targets. Labels that are classes but for a few
// rows (at most planeStray of them: a 1.5 among 0s, 1s and 2s) are a
// mistake, refused with the first such row, rather than silently turning
// the classifier into a regression.
func planeTable(t *sims.Table) (*dataset.Labelled, string, error) {
	l, err := t.Labelled(true)
	if err == nil && l.Classes <= sims.MaxClasses {
		return planeCheck(t, l, fmt.Sprintf("task: %d classes, from column %s of %s", l.Classes, sims.Shown(labelName(t)), t.File()))
	}
	col := t.Column("label")
	if col < 0 {
		col = len(t.Columns) - 1
	}
	stray, first := 0, -1
	for i, r := range t.Rows {
		if y := r[col]; !(y == math.Trunc(y) && y >= -1 && y < sims.MaxClasses) {
			stray++
			if first < 0 {
				first = i
			}
		}
	}
	if stray > 0 && stray <= max(1, len(t.Rows)/planeStray) {
		return nil, "", fmt.Errorf("--data %s: line %d: column %s holds %v, where %d of the %d rows hold a class 0..%d: "+
			"correct it, or give real targets in every row for regression",
			t.Name, t.Lines[first], sims.Shown(labelName(t)), t.Rows[first][col], len(t.Rows)-stray, len(t.Rows), sims.MaxClasses-1)
	}
	if l, err = t.Labelled(false); err != nil {
		return nil, "", err
	}
	return planeCheck(t, l, fmt.Sprintf("task: regression on column %s of %s (not classes 0..%d: %v at line %d)",
		sims.Shown(labelName(t)), t.File(), sims.MaxClasses-1, t.Rows[first][col], t.Lines[first]))
}

// planeStray: at most one row in planeStray whose label is not a class,
// among labels that are classes, is a mistake rather than a regression.
const planeStray = 20

// labelName is the name of the column of labels or targets: "label", or
// the last column when none is so named (dataset.FromColumns).
func labelName(t *sims.Table) string {
	if t.Column("label") >= 0 {
		return "label"
	}
	return t.Columns[len(t.Columns)-1]
}

// planeCheck refuses data that are not two features and a target.
func planeCheck(t *sims.Table, l *dataset.Labelled, task string) (*dataset.Labelled, string, error) {
	if l.D() != 2 {
		return nil, "", fmt.Errorf("--data %s: a plane sim needs two feature columns and a label column, found %d feature columns (%v)",
			t.Name, l.D(), l.Features)
	}
	return l, task, nil
}

// planeTask is a 2-D data set made ready for a network: the points, their
// features, and a train/test split.
type planeTask struct {
	data          *dataset.Labelled
	feats         nn.Features
	classes       int       // 0 for regression
	trainXY       []float64 // the training points, x, y pairs
	trainY        []float64 // their labels or targets
	train, test   *nn.Set
	view          sims.Rect
	xl, yl        string
	tmax          float64 // the largest |target| (regression)
	sameTrainTest bool    // too few points to split: both are the whole set
}

// newPlaneTask splits the data with the seed's data stream and maps the
// points to their features.
func newPlaneTask(l *dataset.Labelled, feats nn.Features, frac float64, seed uint64) (*planeTask, error) {
	if feats.Dim() == 0 {
		return nil, fmt.Errorf("no input features: turn on at least one of x, y, x2, y2, xy, sin, cos")
	}
	p := &planeTask{data: l, feats: feats, classes: l.Classes, xl: "x", yl: "y"}
	if len(l.Features) == 2 {
		p.xl, p.yl = l.Features[0], l.Features[1]
	}
	xy := make([]float64, 0, 2*l.N())
	for _, r := range l.X {
		xy = append(xy, r[0], r[1])
	}
	x := feats.Apply(xy)
	var all *nn.Set
	var err error
	if l.Classes > 0 {
		all, err = nn.NewClassSet(x, feats.Dim(), l.Int(), l.Classes)
	} else {
		all, err = nn.NewRegressionSet(x, feats.Dim(), append([]float64(nil), l.Y...))
	}
	if err != nil {
		return nil, err
	}
	order := make([]int, l.N())
	for i := range order {
		order[i] = i
	}
	if l.N() < 8 {
		p.train, p.test, p.sameTrainTest = all, all, true
	} else {
		rng := streamRNG(seed, dataStream+1)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		k := trainCount(l.N(), frac)
		p.train, p.test = all.Subset(order[:k]), all.Subset(order[k:])
		order = order[:k]
	}
	for _, i := range order {
		p.trainXY = append(p.trainXY, l.X[i][0], l.X[i][1])
		p.trainY = append(p.trainY, l.Y[i])
	}
	xs, ys := make([]float64, l.N()), make([]float64, l.N())
	for i, r := range l.X {
		xs[i], ys[i] = r[0], r[1]
		p.tmax = math.Max(p.tmax, math.Abs(l.Y[i]))
	}
	p.view = sims.Bounds(xs, ys).Pad(0.1)
	return p, nil
}

// trainCount is the training points of a split of n ≥ 8 points: the
// fraction frac of them, leaving at least two and one for the test.
func trainCount(n int, frac float64) int {
	return min(max(int(frac*float64(n)+0.5), 2), n-1)
}

// planeTaskBytes is a planeTask of n points of d features, train of them
// for training and test for testing: the points as drawn (a row each,
// appended), the two sets and the training points' coordinates.
func planeTaskBytes(n, d, train, test int) int64 {
	points := 16*int64(n) + 4*tensor.Appended(n)
	return points + nn.SetBytes(train, d) + nn.SetBytes(test, d) + tensor.Appended(2*train) + tensor.Appended(train)
}

// outputs is the number of network outputs the task needs: one logit for
// two classes, one per class for more, one value for regression.
func (p *planeTask) outputs() int {
	if p.classes > 2 {
		return p.classes
	}
	return 1
}

// points are the training points, coloured by class (by the target's sign
// for regression), at most maxPoints of them.
func (p *planeTask) points() []sims.PointSet {
	n := min(len(p.trainY), maxPoints)
	ps := sims.PointSet{Name: "train", X: make([]float64, n), Y: make([]float64, n), Classes: make([]int, n)}
	for i := range n {
		ps.X[i], ps.Y[i] = p.trainXY[2*i], p.trainXY[2*i+1]
		if p.classes > 0 {
			ps.Classes[i] = int(p.trainY[i])
		} else if p.trainY[i] >= 0 {
			ps.Classes[i] = 1
		}
	}
	return []sims.PointSet{ps}
}

// maxPoints caps the points drawn: more cannot be told apart.
const maxPoints = 2000

func (p *planeTask) legend() []string {
	switch {
	case p.classes == 0:
		return []string{"t<0", "t≥0"}
	case p.classes == 2:
		return []string{"class 0", "class 1"}
	}
	return classLegend(p.classes)
}

// planeGrid is a fixed grid of points over a view with their features, to
// draw what a network computes over the plane.
type planeGrid struct {
	nx, ny int
	batch  *nn.Batch
}

func newPlaneGrid(p *planeTask, nx, ny int) (*planeGrid, error) {
	xy := make([]float64, 0, 2*nx*ny)
	v := p.view
	for j := range ny {
		y := v.YMin + (float64(j)+0.5)*(v.YMax-v.YMin)/float64(ny)
		for i := range nx {
			xy = append(xy, v.XMin+(float64(i)+0.5)*(v.XMax-v.XMin)/float64(nx), y)
		}
	}
	b, err := nn.NewBatch(nx*ny, p.feats.Dim())
	if err != nil {
		return nil, err
	}
	b.LoadRows(p.feats.Apply(xy), nil)
	return &planeGrid{nx: nx, ny: ny, batch: b}, nil
}

// The decision map's grid: fine enough for half-block cells on a wide pane.
const (
	mapX = 96
	mapY = 48
)

// regionShade darkens the regions of a decision map so that the points
// over them, drawn in their class colours, stand out on their own class's
// region too.
const regionShade = 0.45

// decisionMap runs m over the grid on tp and draws its output: the
// probability of class 1 (two classes, with the ½ line), the most likely
// class bright where sure (more classes), or the fitted surface
// (regression), with the training points over it.
func (p *planeTask) decisionMap(title string, m nn.Model, tp *tensor.Tape, g *planeGrid) sims.CanvasChart {
	tp.Rewind()
	out := m.Forward(tp, g.batch.X, nil)
	n := g.nx * g.ny
	heat := &sims.Grid{NX: g.nx, NY: g.ny, Z: make([]float64, n)}
	c := sims.CanvasChart{Title: title, View: p.view, Heat: heat, Points: p.points(), Legend: p.legend(),
		XLabel: p.xl, YLabel: p.yl}
	switch {
	case p.classes == 2:
		heat.Shade = make([]float64, n)
		for i := range n {
			heat.Z[i] = stable.Sigmoid(out.Data[i])
			heat.Shade[i] = regionShade
		}
		heat.Scale, heat.Lo, heat.Hi = sims.Diverging, 0, 1
		c.Contours = &sims.Grid{NX: g.nx, NY: g.ny, Z: heat.Z, Lo: 0, Hi: 1, Levels: 2}
	case p.classes > 2:
		k := p.classes
		heat.Scale, heat.Lo, heat.Hi, heat.Levels = sims.Categorical, 0, float64(k-1), k
		heat.Shade = make([]float64, n)
		for i := range n {
			row := out.Data[i*k : (i+1)*k]
			best := nn.Predict(row)
			sum := 0.0
			for _, z := range row {
				sum += math.Exp(z - row[best])
			}
			heat.Z[i] = float64(best)
			heat.Shade[i] = regionShade * (1/sum - 1/float64(k)) / (1 - 1/float64(k))
		}
	default:
		copy(heat.Z, out.Data)
		heat.Scale, heat.Lo, heat.Hi = sims.Diverging, -p.tmax, p.tmax
	}
	return c
}
