// Package classifysim turns algo/classify into a sim.
package classifysim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/classify"
	"github.com/thelab/lab/algo/stable"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Classifier is the generative Gaussian classifier of seed 002 Ex 1.1 and
// Exercise 1.1: labelled points arrive one per step, the class prior, means
// and covariances are refitted by maximum likelihood, and the posterior
// p(Y = 1 | x) of eq (1.4) is drawn as a field with its decision boundary.
// With fit=shared (one pooled covariance) the log-odds is affine and the
// boundary a straight line, the logistic form (1.2); with fit=separate it
// is a conic. The true model's Bayes posterior is drawn beside it.
var Classifier = &sims.Spec{
	Name:   "classifier",
	Title:  "Generative Gaussian classifier: posterior (1.4), linear boundary when covariances are shared",
	Source: "seed 002 §1.2 (Ex 1.1, eq 1.4, Exercise 1.1)",
	Data: "--data: labelled 2-D points, the class in the column \"label\" (else the last) and x, y the first two others, " +
		"two classes; they arrive in a seeded random order",
	Steps:  1000,
	Speed:  10,
	Params: param.List(clfFit, clfTruth, clfPi, clfSep),
	New:    newClassifier,
	Size:   classifierSize,

	Metrics: classifierMetrics,
}

// truth says whether the generating classes' covariances differ.
type truth string

func (t truth) String() string { return string(t) }

const (
	truthEqual     truth = "equal"
	truthDifferent truth = "different"
)

// classifier's parameters.
var (
	clfFit = param.Choice("fit", []classify.Covariance{classify.Shared, classify.Separate}, classify.Shared,
		"shared: one pooled covariance, a straight boundary (Σ₀ = Σ₁); separate: Σ₀ and Σ₁ apart, a conic")
	clfTruth = param.Choice("truth", []truth{truthEqual, truthDifferent}, truthEqual,
		"the generating classes' covariances: equal (the Bayes boundary is straight) or different (curved)").BuiltInData()
	clfPi  = param.Float("pi", 0.5, "true class prior π = p(Y = 1)").Range(0.05, 0.95).BuiltInData()
	clfSep = param.Float("sep", 3, "distance between the true class means").Range(0, 8).BuiltInData()
)

// truthFor builds the generating model: means ±sep/2 along a slanted axis;
// covariance [[1, .5], [.5, 1]] for both classes, or that and
// [[.4, −.2], [−.2, 1.8]].
func truthFor(pi, sep float64, different bool) classify.Params {
	h := sep / 2
	p := classify.Params{Pi: pi,
		Mu:  [2][2]float64{{-h * 0.9, -h * 0.45}, {h * 0.9, h * 0.45}},
		Cov: [2][2][2]float64{{{1, 0.5}, {0.5, 1}}, {{1, 0.5}, {0.5, 1}}}}
	if different {
		p.Cov[1] = [2][2]float64{{0.4, -0.2}, {-0.2, 1.8}}
	}
	return p
}

const (
	gridX, gridY = 72, 36
	testPoints   = 500
)

type clfSim struct {
	st   *classify.Stream
	view sims.Rect
	// px, py are the coordinates of the stream's points, appended as they
	// come (room for every point from the start): a Frame's scatter is a
	// prefix of them, shared, since nothing rewrites it.
	px, py []float64
	xLabel string
	yLabel string
	testX  [][2]float64 // held-out points from the truth (nil with data)
	testY  []int
	bayes  float64     // the Bayes classifier's accuracy on them
	acc    *sims.Trace // accuracy per step, from the first fit
	// The fitted posterior's grid, recomputed when the fit changes.
	heat  *sims.Grid
	heatN int
	truth *sims.Grid // the true posterior (nil with data)
}

// classifierSize is what classifier holds, from its start (the room for
// its points is made in New) to its largest: the stream (MaxPoints drawn
// from the truth, or a --data table's rows up to it) and the coordinates
// the Frames share, the test points, the accuracy Trace with its copy,
// and a measured base (the fitted and true posteriors' grids, the
// ellipses, the notes).
func classifierSize(c sims.Config) int64 {
	n, data := classify.MaxPoints, c.Data != nil
	if data {
		n = min(len(c.Data.Rows), n)
	}
	return classify.StreamBytes(n, data) + 16*int64(n) + 24*testPoints + 2*8*sims.TraceCap*2 + 160<<10
}

func newClassifier(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	fit, err := classify.NewFit(clfFit.Get(v))
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x636c6173736966)) // "classif"
	s := &clfSim{xLabel: "x₁", yLabel: "x₂", heatN: -1}
	if t := cfg.Data; t != nil {
		l, err := t.Labelled(true)
		if err != nil {
			return nil, err
		}
		if l.D() < 2 {
			return nil, fmt.Errorf("--data %s: needs two feature columns, found %d", t.Name, l.D())
		}
		pts := make([][2]float64, l.N())
		for i, x := range l.X {
			pts[i] = [2]float64{x[0], x[1]}
		}
		labels := l.Int()
		if s.st, err = classify.NewStream(fit, nil, pts, labels, rng); err != nil {
			return nil, err
		}
		xs, ys := make([]float64, len(pts)), make([]float64, len(pts))
		for i, p := range pts {
			xs[i], ys[i] = p[0], p[1]
		}
		s.view = sims.Bounds(xs, ys).Pad(0.08)
		s.px, s.py = make([]float64, 0, min(len(pts), classify.MaxPoints)), make([]float64, 0, min(len(pts), classify.MaxPoints))
		s.xLabel, s.yLabel = l.Features[0], l.Features[1] // the label column may come first
		return s, nil
	}
	truth := truthFor(clfPi.Get(v), clfSep.Get(v), clfTruth.Get(v) == truthDifferent)
	if s.st, err = classify.NewStream(fit, &truth, nil, nil, rng); err != nil {
		return nil, err
	}
	test := rand.New(rand.NewPCG(cfg.Seed, 0x74657374)) // "test"
	s.testX, s.testY = make([][2]float64, testPoints), make([]int, testPoints)
	for i := range s.testX {
		s.testX[i], s.testY[i] = truth.Sample(test)
	}
	s.bayes = classify.Accuracy(truth, s.testX, s.testY)
	s.px, s.py = make([]float64, 0, classify.MaxPoints), make([]float64, 0, classify.MaxPoints)
	r := 2 + clfSep.Get(v)/2
	s.view = sims.Rect{XMin: -r - 1, XMax: r + 1, YMin: -r - 0.5, YMax: r + 0.5}
	s.truth = sims.SampleGrid(s.view, gridX, gridY, func(x, y float64) float64 { return truth.Posterior([2]float64{x, y}) })
	styleGrid(s.truth)
	return s, nil
}

func styleGrid(g *sims.Grid) {
	g.Scale, g.Lo, g.Hi, g.Levels = sims.Diverging, 0, 1, 2
}

// accuracy is the fitted model's accuracy on the held-out points, or on
// the points seen so far with a data set.
func (s *clfSim) accuracy() (float64, bool) {
	p, ok := s.st.Fit().Params()
	if !ok {
		return 0, false
	}
	if s.testX != nil {
		return classify.Accuracy(p, s.testX, s.testY), true
	}
	xs, ys := s.st.Points()
	return classify.Accuracy(p, xs, ys), true
}

func (s *clfSim) Step() error {
	if err := s.st.Step(); err != nil {
		return err
	}
	if a, ok := s.accuracy(); ok {
		if s.acc == nil {
			s.acc = sims.NewTrace(s.st.N(), 2)
		}
		s.acc.Add(a, s.bayes)
	}
	return nil
}

func (s *clfSim) Frame() sims.Frame {
	fit := s.st.Fit()
	p, ok := fit.Params()
	n0, n1 := fit.Counts()
	acc, _ := s.accuracy()
	var quad float64
	if ok {
		a, _, _ := p.Quadratic()
		quad = math.Sqrt(a[0][0]*a[0][0] + a[0][1]*a[0][1] + a[1][0]*a[1][0] + a[1][1]*a[1][1])
	}
	metrics := []sims.Metric{
		{Name: "n", Value: float64(n0 + n1)},
		{Name: "accuracy", Value: acc},
	}
	if s.testX != nil {
		metrics = append(metrics, sims.Metric{Name: "bayes", Value: s.bayes})
	}
	metrics = append(metrics, sims.Metric{Name: "‖A‖", Value: quad})

	xs, ys := s.st.Points()
	for _, x := range xs[len(s.px):] {
		s.px, s.py = append(s.px, x[0]), append(s.py, x[1])
	}
	n := len(s.px)
	points := []sims.PointSet{{Name: "data", X: s.px[:n:n], Y: s.py[:n:n], Classes: ys}}
	fitted := sims.CanvasChart{
		Title: "fitted p(Y=1|x) (1.4), boundary at ½", View: s.view, Points: points,
		Legend: []string{"class 0", "class 1"}, XLabel: s.xLabel, YLabel: s.yLabel,
	}
	if ok {
		if s.heatN != n0+n1 {
			// σ(xᵀAx + bᵀx + c): the log-odds (1.4) in its quadratic form,
			// ten flops a cell instead of two 2×2 inversions.
			a, b, c0 := p.Quadratic()
			s.heat = sims.SampleGrid(s.view, gridX, gridY, func(x, y float64) float64 {
				return stable.Sigmoid(x*(a[0][0]*x+a[0][1]*y) + y*(a[1][0]*x+a[1][1]*y) + b[0]*x + b[1]*y + c0)
			})
			styleGrid(s.heat)
			s.heatN = n0 + n1
		}
		fitted.Heat, fitted.Contours = s.heat, s.heat
		for k := range 2 {
			c := p.Cov[k]
			fitted.Paths = append(fitted.Paths, sims.Ellipse(p.Mu[k][0], p.Mu[k][1], c[0][0], c[0][1], c[1][1], 1, k))
		}
	}
	charts := []sims.Chart{fitted}
	if s.truth != nil {
		tr := s.st.Truth()
		bayes := sims.CanvasChart{Title: "true (Bayes) p(Y=1|x)", View: s.view, Heat: s.truth, Contours: s.truth,
			Legend: []string{"class 0", "class 1"}, XLabel: "x₁", YLabel: "x₂"}
		for k := range 2 {
			c := tr.Cov[k]
			bayes.Paths = append(bayes.Paths, sims.Ellipse(tr.Mu[k][0], tr.Mu[k][1], c[0][0], c[0][1], c[1][1], 1, k))
		}
		charts = append(charts, bayes)
	}
	lc := sims.LineChart{Title: "held-out accuracy", XLabel: "points", Fraction: true}
	if s.testX == nil {
		lc.Title = "accuracy on the points seen"
	}
	if s.acc != nil {
		lc.X0, lc.X1 = s.acc.Span()
		lc.Series = []sims.Series{{Name: "fitted", Y: s.acc.Column(0), Class: 0}}
		if s.testX != nil {
			lc.Series = append(lc.Series, sims.Series{Name: "Bayes", Y: s.acc.Column(1), Class: 1, Bound: true})
		}
	}
	charts = append(charts, lc)
	return sims.Frame{Sim: Classifier.Name, Step: n0 + n1, Metrics: metrics, Charts: charts, Text: s.notes(p, ok)}
}

func (s *clfSim) notes(p classify.Params, ok bool) []string {
	if !ok {
		return []string{"waiting for enough points of each class to fit the covariances"}
	}
	a, b, c := p.Quadratic()
	lines := []string{"log-odds (1.4) = xᵀAx + wᵀx + w₀ with A = −½(Σ₁⁻¹ − Σ₀⁻¹)"}
	if s.st.Fit().Covariance() == classify.Shared {
		lines = append(lines, fmt.Sprintf("shared Σ: A = 0, w = Σ⁻¹(μ₁−μ₀) = (%.3g, %.3g), w₀ = %.3g:", b[0], b[1], c),
			"a straight boundary: p(Y=1|x) = σ(wᵀx + w₀), logistic regression (1.2)")
	} else {
		lines = append(lines, fmt.Sprintf("separate Σ₀, Σ₁: A = [[%.2g, %.2g], [%.2g, %.2g]] ≠ 0: a conic boundary",
			a[0][0], a[0][1], a[1][0], a[1][1]), "try fit=shared: one pooled Σ makes the boundary straight")
	}
	return lines
}

func (s *clfSim) Result() map[string]any {
	p, ok := s.st.Fit().Params()
	acc, _ := s.accuracy()
	res := map[string]any{"n": s.st.N(), "accuracy": acc, "fit": string(s.st.Fit().Covariance())}
	if s.testX != nil {
		res["bayes_accuracy"] = s.bayes
	}
	if ok {
		a, b, c := p.Quadratic()
		res["pi"], res["means"] = p.Pi, [][]float64{p.Mu[0][:], p.Mu[1][:]}
		res["covariances"] = [][][]float64{{p.Cov[0][0][:], p.Cov[0][1][:]}, {p.Cov[1][0][:], p.Cov[1][1][:]}}
		res["A"], res["w"], res["w0"] = [][]float64{a[0][:], a[1][:]}, b[:], c
	}
	return res
}
