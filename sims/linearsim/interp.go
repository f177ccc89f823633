package linearsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
)

// Interp is exact interpolation against ridge (seed 001 §3, Theorem 3.2,
// L330–L332; Definition 3.4 and Remark 3.6, L363–L393): n distinct points
// of a smooth curve plus noise arrive one per step; after each arrival the
// degree-(k−1) polynomial through all k points (training error 0, Theorem
// 3.2) and the ridge fit on the same features are recomputed, by an SVD of
// Φ and a QR of the augmented data. The interpolant oscillates wildly
// between the points (Runge's phenomenon); ridge stays tame. The pane draws
// both over the data and the truth, the train and test errors of both
// against k, and cond(Φ).
var Interp = &sims.Spec{
	Name:   "interp",
	Title:  "Exact interpolation (Thm 3.2) against ridge: a degree-(n−1) polynomial through n points",
	Source: "seed 001 §3 (Thm 3.2 L330–L332; Def 3.4, Remark 3.6 L363–L393)",
	Data: "numeric columns: one input x (mapped onto [−1, 1]) and the target (the column named label, else the last); " +
		"every 4th row is held out as the test set when there are 8 or more",
	Steps: 200,
	// One point a second: each arrival can be watched.
	Speed: 1,
	// A short story (the points arrive one a step, sixteen of them: then the next seed's noise).
	Replay: sims.ReplayPause,
	Params: param.List(interpTruth, interpNodes, interpN, interpNoise, interpBasis, interpDegree, interpLambda),
	New:    newInterp,
	// At most MaxInterpPoints training and interpTest test points, whatever
	// the parameters or the --data: the error Trace (five columns, full
	// room from the start), the curves and the engine's bases, measured.
	Size: func(sims.Config) int64 { return 256 << 10 },

	Metrics: interpMetrics,
}

// interp's parameters.
var (
	interpTruth = param.Choice("truth", []dataset.Curve{dataset.Runge, dataset.Sine, dataset.Straight}, dataset.Runge,
		"the smooth curve f: runge 1/(1+25x²), sin sin(πx), line 0.8x − 0.2").BuiltInData()
	interpNodes = param.Choice("nodes", []dataset.Layout{dataset.Scattered, dataset.Equispaced, dataset.Chebyshev}, dataset.Equispaced,
		"inputs x_i: random U(−1, 1) (arriving in draw order), equispaced (Runge), or the Chebyshev nodes (interpolants converge); grids arrive farthest point first").BuiltInData()
	interpN     = param.Int("n", 16, "number of points").Range(2, linear.MaxInterpPoints).BuiltInData()
	interpNoise = param.Float("noise", 0.05, "noise s.d. of the targets y = f(x) + noise·N(0, 1)").Range(0, 10).BuiltInData()
	interpBasis = param.Choice("basis", []linear.Basis{linear.Chebyshev, linear.Legendre, linear.Monomial}, linear.Chebyshev,
		"polynomial features: chebyshev T_j (well conditioned on [−1, 1]), legendre P_j, or monomials x^j (Vandermonde)")
	interpDegree = param.Int("degree", -1,
		"largest degree fitted; −1 = k − 1 with k points (the interpolant of Thm 3.2)").Range(-1, linear.MaxInterpDegree)
	interpLambda = param.Float("lambda", 0.001,
		"ridge weight λ > 0 on the non-constant coefficients (the normal equation has kλ)").Range(0, 100).OpenMin()
)

// interpTest is the number of fresh points of a preset's test set.
const interpTest = 200

// interpCurve is the number of points at which a Frame's curves are drawn.
const interpCurve = 241

// interpSim holds the engine and, per step, the drawn curves and the
// error traces.
type interpSim struct {
	eng      *linear.Interp
	truth    func(float64) float64 // nil for --data
	noise    float64               // the preset's noise s.d.; NaN for --data
	mapped   string                // "x from [a, b]" for --data
	view     sims.Rect
	xs       []float64 // the data inputs, shared by every Frame
	ys       []float64
	truthP   sims.Path
	curveX   []float64
	interpY  []float64 // the interpolant at curveX (fresh each step)
	ridgeY   []float64
	lo, hi   float64 // the interpolant's range on the curve grid
	maxRes   float64 // max |p(x_i) − y_i| over the k points
	errs     *sims.Trace
	testSize int
}

func newInterp(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &interpSim{noise: math.NaN(), errs: sims.NewTrace(1, 5)}
	var x, y, tx, ty []float64
	if cfg.Data != nil {
		var err error
		if x, y, tx, ty, s.mapped, err = interpTable(cfg); err != nil {
			return nil, err
		}
	} else {
		curve, noise := interpTruth.Get(v), interpNoise.Get(v)
		l, err := dataset.OnCurve(dataRNG(cfg.Seed), curve, interpNodes.Get(v), interpN.Get(v), noise)
		if err != nil {
			return nil, err
		}
		test, err := dataset.OnCurve(rand.New(rand.NewPCG(cfg.Seed, orderStream)), curve, dataset.Scattered, interpTest, noise)
		if err != nil {
			return nil, err
		}
		x, y, tx, ty = column(l.X, 0), l.Y, column(test.X, 0), test.Y
		s.truth, s.noise = dataset.Curves[curve], noise
	}
	eng, err := linear.NewInterp(linear.InterpConfig{X: x, Y: y, TestX: tx, TestY: ty,
		Basis: interpBasis.Get(v), Degree: interpDegree.Get(v), Lambda: interpLambda.Get(v)})
	if err != nil {
		return nil, err
	}
	s.eng, s.xs, s.ys, s.testSize = eng, x, y, len(tx)
	s.curveX = make([]float64, interpCurve)
	for i := range s.curveX {
		s.curveX[i] = -1 + 2*float64(i)/(interpCurve-1)
	}
	// The window: the data's y-range (and the truth's) with a margin of a
	// quarter of it; fixed for the run so that the picture does not jump.
	lo, hi := floats.Min(y), floats.Max(y)
	if s.truth != nil {
		s.truthP = sims.Path{X: s.curveX, Y: make([]float64, interpCurve), Class: 3, Dotted: true}
		for i, t := range s.curveX {
			s.truthP.Y[i] = s.truth(t)
			lo, hi = math.Min(lo, s.truthP.Y[i]), math.Max(hi, s.truthP.Y[i])
		}
	}
	span := math.Max(hi-lo, 0.5)
	s.view = sims.Rect{XMin: -1.05, XMax: 1.05, YMin: lo - span/4, YMax: hi + span/4}
	s.record()
	return s, nil
}

// interpTable reads --data: one input column and the target; every 4th
// row is a test row when there are 8 or more; the inputs are mapped
// affinely onto [−1, 1] (the bases live there) and the training rows
// shuffled from the seed (the order in which they arrive).
func interpTable(cfg sims.Config) (x, y, tx, ty []float64, mapped string, err error) {
	l, err := cfg.Data.Labelled(false)
	if err != nil {
		return nil, nil, nil, nil, "", err
	}
	if l.D() != 1 {
		return nil, nil, nil, nil, "", fmt.Errorf("%s: interp takes one input column and the target, found %d inputs", l.Name, l.D())
	}
	all := column(l.X, 0)
	a, b := floats.Min(all), floats.Max(all)
	if !(b > a) {
		return nil, nil, nil, nil, "", fmt.Errorf("%s: all inputs equal %g: exact interpolation needs distinct x_i (Theorem 3.2)", l.Name, a)
	}
	for i, xi := range all {
		u := math.Max(-1, math.Min(1, (2*xi-a-b)/(b-a)))
		if len(all) >= 8 && i%4 == 3 {
			tx, ty = append(tx, u), append(ty, l.Y[i])
		} else {
			x, y = append(x, u), append(y, l.Y[i])
		}
	}
	if len(x) > linear.MaxInterpPoints {
		return nil, nil, nil, nil, "", fmt.Errorf("%s: %d training rows; interp takes at most %d", l.Name, len(x), linear.MaxInterpPoints)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, orderStream))
	rng.Shuffle(len(x), func(i, j int) { x[i], x[j], y[i], y[j] = x[j], x[i], y[j], y[i] })
	return x, y, tx, ty, fmt.Sprintf("%s ∈ [%.4g, %.4g] mapped onto [−1, 1]", featureNames(l)[0], a, b), nil
}

// record evaluates both fits on the curve grid and appends the errors.
func (s *interpSim) record() {
	s.interpY = make([]float64, interpCurve)
	s.ridgeY = make([]float64, interpCurve)
	s.lo, s.hi = math.Inf(1), math.Inf(-1)
	for i, t := range s.curveX {
		s.interpY[i], s.ridgeY[i] = s.eng.InterpAt(t), s.eng.RidgeAt(t)
		s.lo, s.hi = math.Min(s.lo, s.interpY[i]), math.Max(s.hi, s.interpY[i])
	}
	s.maxRes = 0
	for i := 0; i < s.eng.K(); i++ {
		s.maxRes = math.Max(s.maxRes, math.Abs(s.eng.InterpAt(s.xs[i])-s.ys[i]))
	}
	ti, tr := s.eng.TrainMSE()
	vi, vr := s.eng.TestMSE()
	s.errs.Add(sims.NoiseFloor(ti, s.trainScale()), vi, sims.NoiseFloor(tr, s.trainScale()), vr, sims.FiniteOr(s.eng.Cond(), math.MaxFloat64))
}

// trainScale is the mean square of the training targets: the scale of a
// training error that is rounding alone (the interpolant's, which hits
// every point).
func (s *interpSim) trainScale() float64 {
	k := s.eng.K()
	var ySq float64
	for _, y := range s.ys[:k] {
		ySq += y * y / float64(k)
	}
	return ySq
}

func (s *interpSim) Step() error {
	if err := s.eng.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

func (s *interpSim) Frame() sims.Frame {
	k := s.eng.K()
	ti, tr := s.eng.TrainMSE()
	vi, vr := s.eng.TestMSE()
	trainI := sims.MetricOr("train_mse_interp", ti, "no training point yet")
	trainI.Scale = s.trainScale()
	metrics := []sims.Metric{
		{Name: "points", Value: float64(k)},
		trainI,
		sims.MetricOr("test_mse_interp", vi, "no test point"),
		sims.MetricOr("train_mse_ridge", tr, "no training point yet"),
		sims.MetricOr("test_mse_ridge", vr, "no test point"),
		sims.MetricOr("cond", s.eng.Cond(), "the feature matrix is singular: its condition number is infinite"),
	}
	charts := []sims.Chart{s.fitChart(), s.errChart(), s.condChart()}
	return sims.Frame{Sim: Interp.Name, Step: k - 1, Metrics: metrics, Charts: charts, Text: s.notes()}
}

// fitChart draws the points seen, the truth, the interpolant and the ridge
// fit; the interpolant is clipped to the window (the data's y-range with a
// margin), where it often cannot stay.
func (s *interpSim) fitChart() sims.CanvasChart {
	k := s.eng.K()
	var paths []sims.Path
	if s.truth != nil {
		paths = append(paths, s.truthP)
	}
	paths = append(paths, clipY(s.curveX, s.ridgeY, s.view, 2)...)
	paths = append(paths, clipY(s.curveX, s.interpY, s.view, 1)...)
	legend := []string{"data", "interpolant", "ridge"}
	if s.truth != nil {
		legend = append(legend, "truth")
	}
	if !s.eng.Interpolates() {
		legend[1] = "least sq."
	}
	xl := "x"
	if s.mapped != "" {
		xl = "x scaled"
	}
	return sims.CanvasChart{
		Title:   fmt.Sprintf("k = %d of %d, degree %d", k, s.eng.N(), s.eng.Degree()),
		View:    s.view,
		Points:  []sims.PointSet{{Name: "data", X: s.xs[:k], Y: s.ys[:k], Class: 0}},
		Paths:   paths,
		Markers: []sims.Marker{{X: s.xs[k-1], Y: s.ys[k-1], Glyph: '◆', Class: 0}},
		Legend:  legend,
		XLabel:  xl, YLabel: "y",
	}
}

// clipY splits the polyline (x_i, y_i) into the runs inside the window's
// y-range: each segment is cut where it crosses YMin or YMax (a segment
// jumping across the window between two samples keeps its part inside),
// and runs of consecutive in-window pieces are joined.
func clipY(x, y []float64, v sims.Rect, class int) []sims.Path {
	var out []sims.Path
	cur := sims.Path{Class: class}
	flush := func() {
		if len(cur.X) > 1 {
			out = append(out, cur)
		}
		cur = sims.Path{Class: class}
	}
	for i := 0; i+1 < len(x); i++ {
		y0, y1 := y[i], y[i+1]
		if !algo.Finite(y0) || !algo.Finite(y1) {
			flush()
			continue
		}
		// The parameters t ∈ [0, 1] of the segment with y inside the window.
		t0, t1 := 0.0, 1.0
		if y0 == y1 {
			if y0 < v.YMin || y0 > v.YMax {
				flush()
				continue
			}
		} else {
			ta, tb := (v.YMin-y0)/(y1-y0), (v.YMax-y0)/(y1-y0)
			t0, t1 = math.Max(0, math.Min(ta, tb)), math.Min(1, math.Max(ta, tb))
			if t0 >= t1 {
				flush()
				continue
			}
		}
		px := func(t float64) float64 { return x[i] + t*(x[i+1]-x[i]) }
		py := func(t float64) float64 { return math.Max(v.YMin, math.Min(v.YMax, y0+t*(y1-y0))) }
		if t0 > 0 || len(cur.X) == 0 {
			flush()
			cur.X, cur.Y = append(cur.X, px(t0)), append(cur.Y, py(t0))
		}
		cur.X, cur.Y = append(cur.X, px(t1)), append(cur.Y, py(t1))
		if t1 < 1 {
			flush()
		}
	}
	flush()
	return out
}

// errChart draws the train and test MSE of both fits against k.
func (s *interpSim) errChart() sims.LineChart {
	x0, x1 := s.errs.Span()
	series := []sims.Series{
		{Name: "I test", Y: s.errs.Column(1), Class: 1},
		{Name: "I train", Y: s.errs.Column(0), Class: 4},
		{Name: "R test", Y: s.errs.Column(3), Class: 2},
		{Name: "R train", Y: s.errs.Column(2), Class: 5},
	}
	if s.testSize == 0 {
		series = []sims.Series{series[1], series[3]}
	}
	if s.noise > 0 {
		n2 := s.noise * s.noise
		series = append(series, sims.Series{Name: fmt.Sprintf("noise² %.3g", n2), Y: s.errs.Map(func(int) float64 { return n2 }), Class: 9, Bound: true})
	}
	return sims.LineChart{Title: "MSE against k: I interpolant, R ridge", Series: series, LogY: true, X0: x0, X1: x1, XLabel: "points k"}
}

// condChart draws cond₂(Φ) against k.
func (s *interpSim) condChart() sims.LineChart {
	x0, x1 := s.errs.Span()
	return sims.LineChart{Title: "cond₂(Φ)",
		Series: []sims.Series{{Name: "cond₂(Φ)", Y: s.errs.Column(4), Class: 6}},
		LogY:   true, X0: x0, X1: x1, XLabel: "points k"}
}

func (s *interpSim) notes() []string {
	k, d := s.eng.K(), s.eng.Degree()
	ti, tr := s.eng.TrainMSE()
	vi, vr := s.eng.TestMSE()
	lines := []string{"Thm 3.2: distinct x_i ⇒ a degree-(k−1) polynomial hits all k points"}
	if s.eng.Interpolates() {
		lines = append(lines, fmt.Sprintf("k = %d: max |p(x_i) − y_i| %s, cond₂(Φ) = %.3g (%s)", k, sims.IsResidual("%.2g", s.maxRes, math.Sqrt(s.trainScale())), s.eng.Cond(), s.eng.Basis()))
	} else {
		lines = append(lines, fmt.Sprintf("k = %d > degree+1 = %d: least squares, not interpolating; cond₂(Φ) = %.3g", k, d+1, s.eng.Cond()))
	}
	test := ""
	if s.testSize > 0 {
		test = fmt.Sprintf(", test %.3g/%.3g", vi, vr)
	}
	if s.noise >= 0 {
		test += fmt.Sprintf(" (noise² %.3g)", s.noise*s.noise)
	}
	train := fmt.Sprintf("%.2g", ti)
	if ti <= sims.RoundingNoise*s.trainScale() {
		train = "≈ 0"
	}
	lines = append(lines, fmt.Sprintf("MSE interp/ridge: train %s/%.3g%s", train, tr, test),
		fmt.Sprintf("ridge λ = %g: QR of [Φ; √(kλ)E] (Remark 3.6), kλ = %.3g", s.eng.Lambda(), float64(k)*s.eng.Lambda()))
	if s.hi > s.view.YMax || s.lo < s.view.YMin {
		lines = append(lines, fmt.Sprintf("interpolant clipped to data's y-range ± ¼; it spans [%.3g, %.3g]", s.lo, s.hi))
	}
	switch {
	case s.eng.Rank() < s.eng.P():
		lines = append(lines, fmt.Sprintf("⚠ numerical rank of Φ %d < %d: the interpolant is lost to rounding", s.eng.Rank(), s.eng.P()))
	case s.eng.Cond() > 1e12:
		lines = append(lines, "⚠ cond(Φ) > 1e12: rounding rules the coefficients (try nodes=chebyshev)")
	}
	if s.mapped != "" {
		lines = append(lines, s.mapped)
	}
	return lines
}

func (s *interpSim) Result() map[string]any {
	ti, tr := s.eng.TrainMSE()
	vi, vr := s.eng.TestMSE()
	r := map[string]any{
		"points": s.eng.K(), "degree": s.eng.Degree(), "basis": string(s.eng.Basis()), "lambda": s.eng.Lambda(),
		"interp_coef":      append([]float64(nil), s.eng.InterpCoef()...),
		"ridge_coef":       append([]float64(nil), s.eng.RidgeCoef()...),
		"train_mse_interp": ti, "train_mse_ridge": tr,
		"max_train_residual": s.maxRes, "rank": s.eng.Rank(), "interpolates": s.eng.Interpolates(),
	}
	if s.testSize > 0 {
		r["test_mse_interp"], r["test_mse_ridge"] = vi, vr
	}
	if c := s.eng.Cond(); !math.IsInf(c, 0) {
		r["cond"] = c
	}
	return r
}
