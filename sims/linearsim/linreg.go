package linearsim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
)

// linreg's parameters.
var (
	linregPreset = param.Choice("data", []preset{presetLine, presetLinear, presetEpsilon}, presetLine,
		"line: y = 1.5x − 0.5 + noise; linear: d correlated features; epsilon: the notes' X = [[0, ε], [1, 1]], y = (1, −1)").BuiltInData()
	linregN   = param.Int("n", 60, "number of points (line, linear)").Range(2, dataset.MaxN).BuiltInData()
	linregD   = param.Int("d", 5, "number of features (linear)").Range(1, 200).BuiltInData()
	linregRho = param.Float("rho", 1,
		"weight of the factor shared by all features (linear): larger is more collinear").Range(0, 10).BuiltInData()
	linregNoise = param.Float("noise", 0.7, "noise s.d. of the targets (line, linear)").Range(0, 100).BuiltInData()
	linregEps   = param.Float("eps", 0.1, "ε of the notes' example: w = (−2/ε, 1) without ridge").Range(0, 10).OpenMin().BuiltInData()

	linregBias = param.Bool("bias", true, "fit an intercept b (never penalised)").
			DefaultWhen(isEpsilon, false, "off for epsilon (the notes' example has no bias), else on")

	linregLambda = param.Float("lambda", 0, "ridge weight λ ≥ 0 (0 is least squares)").Range(0, 1000)
	linregMethod = param.Choice("method", []method{methodGD, methodNormal}, methodGD,
		"gd: gradient descent from 0; normal: one Cholesky solve of (XᵀX + nλI)w = Xᵀy")
	linregLR  = param.Float("lr", 0, "GD step size t; 0 = 1/L with L the largest Hessian eigenvalue").Range(0, 100)
	linregTol = param.Float("tol", 1e-9, "GD stops when ‖∇f‖ ≤ tol").Range(0, 1)
)

// isEpsilon holds for the notes' ε example, which has no bias.
func isEpsilon(v param.Values) bool { return linregPreset.Get(v) == presetEpsilon }

// Linreg is least squares and ridge regression (seed 001 §3): the
// objective (1/n)‖Xw + b − y‖² + λ‖w‖² minimised by one normal-equation
// solve or by gradient descent, with the fit, the loss against the
// closed-form optimum, the ridge path and the condition number of the
// normal equation; the notes' ill-conditioned ε example is a preset.
var Linreg = &sims.Spec{
	Name:   "linreg",
	Title:  "Least squares and ridge: normal equation or GD, ridge path, conditioning, the ε example",
	Source: "seed 001 §3 (L341–L393: normal equation, ε example, Def 3.4, Prop 3.5, Remark 3.6)",
	Data:   "numeric columns; the column named label (else the last) is the target y, the others the features",
	Steps:  500,
	Speed:  2,
	Params: param.List(linregPreset, linregN, linregD, linregRho, linregNoise, linregEps, linregBias,
		linregLambda, linregMethod, linregLR, linregTol),
	New:  newLinreg,
	Size: linregSize,

	Metrics: linregMetrics,
}

// The ridge path's λ grid: 10^-6 … 10^3.
const (
	pathLo, pathHi = -6.0, 3.0
	pathN          = 91
)

// linregSize is what linreg holds: its data (the design with d features),
// the least-squares objective's rows, the x column of a one-feature fit,
// the ridge path (θ(λ) at pathN values of λ, each with its condition),
// the Frame's prediction scatter of at most maxDrawn rows and what gonum
// keeps pooled of the solve's workspace (of the order of the p×p Gram
// matrix, 50 to 70 KiB measured at d = 200), besides a measured base (the
// loss Trace, the spectrum, the Frame's other charts).
func linregSize(c sims.Config) int64 {
	v := c.Values
	n, d := linregN.Get(v), 1
	switch linregPreset.Get(v) {
	case presetLinear:
		d = linregD.Get(v)
	case presetEpsilon:
		n, d = 2, 2 // the notes' two points
	}
	n, d = rowsOf(c, n, d)
	p := d
	if linregBias.Get(v) {
		p++
	}
	b := dataBytes(n, d, linregBias.Get(v)) + linear.LeastSquaresBytes(n, p) + pathN*(algo.HeapBytes(8*int64(p))+64) +
		2*8*maxDrawn + min(8*int64(p*p), 128<<10)
	if d == 1 {
		b += algo.HeapBytes(8 * int64(n))
	}
	return b + 24<<10
}

type linregSim struct {
	data   *dataset.Labelled
	names  []string
	ls     *linear.LeastSquares
	opt    linear.Solution // the closed form at λ
	fstar  float64
	gnStar float64 // ‖∇f‖ at the closed form
	f0     float64 // f at θ = 0
	gn0    float64 // ‖∇f‖ at θ = 0
	method method
	eng    *optim.Descent // nil for method=normal
	solved bool           // method=normal: the solve has been made
	lr     float64
	m, L   float64

	lambda   float64
	path     [][]float64 // θ(λ) on the grid
	conds    []float64
	loss     *sims.Trace
	fitView  sims.Rect
	xs, ys   []float64 // the fit canvas's points: (x, y) or (y, ŷ) set per frame
	epsilonP float64   // the ε of the preset, else 0
}

func linregData(cfg sims.Config) (*dataset.Labelled, error) {
	if cfg.Data != nil {
		return cfg.Data.Labelled(false)
	}
	v := cfg.Values
	switch linregPreset.Get(v) {
	case presetLinear:
		return dataset.Linear(dataRNG(cfg.Seed), linregN.Get(v), linregD.Get(v), linregRho.Get(v), linregNoise.Get(v))
	case presetEpsilon:
		return dataset.Epsilon(linregEps.Get(v))
	}
	return dataset.Line(dataRNG(cfg.Seed), linregN.Get(v), linregNoise.Get(v))
}

func newLinreg(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	l, x, err := loadDesign(cfg, linregData, linregBias.Get(v))
	if err != nil {
		return nil, err
	}
	s := &linregSim{data: l, names: featureNames(l), method: linregMethod.Get(v), lambda: linregLambda.Get(v),
		loss: sims.NewTrace(0, 1)}
	if s.ls, err = linear.NewLeastSquares(x, l.Y, s.lambda); err != nil {
		return nil, err
	}
	if s.opt, err = s.ls.Solve(); err != nil {
		return nil, err
	}
	s.fstar = s.ls.Func(s.opt.Theta)
	g := make([]float64, x.P())
	s.ls.Grad(g, s.opt.Theta)
	s.gnStar = floats.Norm(g, 2)
	if s.m, s.L, err = s.ls.Curvature(); err != nil {
		return nil, err
	}
	if cfg.Data == nil && linregPreset.Get(v) == presetEpsilon {
		s.epsilonP = linregEps.Get(v)
	}
	lambdas := make([]float64, pathN)
	for k := range lambdas {
		lambdas[k] = math.Pow(10, pathLo+(pathHi-pathLo)*float64(k)/(pathN-1))
	}
	if s.path, s.conds, err = s.ls.RidgePath(lambdas); err != nil {
		return nil, err
	}
	theta0 := make([]float64, x.P())
	if s.method == methodGD {
		s.eng, s.lr, err = newGD(s.ls, theta0, linregLR.Get(v), linregTol.Get(v), s.L)
		if err != nil {
			return nil, err
		}
	}
	s.f0 = s.ls.Func(theta0)
	s.ls.Grad(g, theta0)
	s.gn0 = floats.Norm(g, 2)
	s.loss.Add(s.f0)
	if l.D() == 1 {
		s.xs, s.ys = column(l.X, 0), l.Y
		s.fitView = sims.Bounds(s.xs, s.ys).Pad(0.08)
	} else {
		lo, hi := floats.Min(l.Y), floats.Max(l.Y)
		s.fitView = sims.Rect{XMin: lo, XMax: hi, YMin: lo, YMax: hi}.Pad(0.15)
	}
	return s, nil
}

func (s *linregSim) Step() error {
	if s.eng == nil {
		if s.solved {
			return algo.ErrConverged
		}
		s.solved = true
		s.loss.Add(s.fstar)
		return nil
	}
	err := s.eng.Step()
	if err == nil {
		s.loss.Add(s.eng.F())
	}
	return err
}

// theta is the current parameter: the iterate, or the solution once solved.
func (s *linregSim) theta() []float64 {
	if s.eng != nil {
		return s.eng.X()
	}
	if s.solved {
		return s.opt.Theta
	}
	return make([]float64, s.ls.Design().P())
}

func (s *linregSim) step() int {
	if s.eng != nil {
		return s.eng.Iter()
	}
	if s.solved {
		return 1
	}
	return 0
}

func (s *linregSim) Frame() sims.Frame {
	th := s.theta()
	d := s.data.D()
	// f and ‖∇f‖ come from the engine or from New: a Frame makes no pass
	// over the data but the (subsampled) predictions.
	f, gn := s.f0, s.gn0
	switch {
	case s.eng != nil:
		f, gn = s.eng.F(), s.eng.GradNorm()
	case s.solved:
		f, gn = s.fstar, s.gnStar
	}
	x0, x1 := s.loss.Span()
	lossChart := sims.LineChart{
		Title: "loss f and closed-form f*",
		Series: []sims.Series{
			{Name: "f", Y: s.loss.Column(0), Class: 0},
			{Name: fmt.Sprintf("closed form f* = %.4g", s.fstar), Y: s.loss.Map(func(int) float64 { return s.fstar }), Class: 1, Bound: true},
		},
		X0: x0, X1: x1, XLabel: "step",
	}
	cur := math.Log10(math.Max(s.lambda, math.Pow(10, pathLo)))
	condChart := sims.LineChart{
		Title:  "cond(XᵀX + nλI)",
		Series: []sims.Series{{Name: "condition number", Y: s.conds, Class: 5}},
		LogY:   true, X0: pathLo, X1: pathHi, XLabel: "log₁₀ λ",
	}
	charts := []sims.Chart{s.fitChart(th), lossChart, s.pathChart(th, cur)}
	if d > 1 {
		charts = append(charts, condChart, s.spectrumChart())
	}
	wn := floats.Norm(th[:d], 2)
	metrics := []sims.Metric{
		{Name: "loss", Value: f},
		{Name: "mse", Value: f - s.lambda*wn*wn},
		{Name: "grad_norm", Value: gn},
		{Name: "w_norm", Value: wn},
		sims.MetricOr("cond", s.opt.Cond, "the normal equations are singular (rank-deficient, λ = 0): the condition number is infinite"),
	}
	return sims.Frame{Sim: Linreg.Name, Step: s.step(), Metrics: metrics, Charts: charts, Text: s.notes(th)}
}

// fitChart draws the data with the current fit (1-D input) or the
// predictions against the targets.
func (s *linregSim) fitChart(th []float64) sims.CanvasChart {
	d := s.data.D()
	b := 0.0
	if s.ls.Design().Bias() {
		b = th[d]
	}
	if d == 1 {
		v := s.fitView
		return sims.CanvasChart{
			Title:  fmt.Sprintf("fit ŷ = %.3gx %s %.3g", th[0], signOf(b), math.Abs(b)),
			View:   v,
			Points: []sims.PointSet{{Name: "data", X: s.xs, Y: s.ys, Class: 0}},
			Paths: []sims.Path{
				lineInView(v, th[0], -1, b, 1, false),
				lineInView(v, s.opt.Theta[0], -1, s.closedB(), 2, true),
			},
			Legend: []string{"data", "current fit", "closed form"},
			XLabel: s.names[0], YLabel: "y",
		}
	}
	// At most maxDrawn rows, evenly strided: a canvas cannot show more.
	stride := (s.data.N() + maxDrawn - 1) / maxDrawn
	var ys, pred []float64
	for i := 0; i < s.data.N(); i += stride {
		ys = append(ys, s.data.Y[i])
		pred = append(pred, floats.Dot(s.data.X[i], th[:d])+b)
	}
	v := s.fitView
	return sims.CanvasChart{
		Title:  "ŷ against y",
		View:   v,
		Points: []sims.PointSet{{Name: "rows", X: ys, Y: pred, Class: 0}},
		Paths:  []sims.Path{{X: []float64{v.XMin, v.XMax}, Y: []float64{v.XMin, v.XMax}, Class: 1, Dotted: true}},
		Legend: []string{"rows", "ŷ = y"},
		XLabel: "y", YLabel: "ŷ",
	}
}

// maxSpectrumBars caps the singular values drawn: the largest and the
// smallest halves when there are more.
const maxSpectrumBars = 6

// spectrumChart draws the SVD view of ridge (Proposition 3.5, L375–L385;
// catalogue B5): each σ_i² of X_c next to the σ_i² + nλ that the ridge
// solve divides by, so a tiny σ_i² (a near-dependence such as the ε
// example's) is seen to be lifted to at least nλ.
func (s *linregSim) spectrumChart() sims.BarChart {
	sp := s.opt.Spectrum
	nl := float64(s.data.N()) * s.lambda
	idx := make([]int, 0, maxSpectrumBars)
	for i := range sp {
		if len(sp) <= maxSpectrumBars || i < maxSpectrumBars/2 || i >= len(sp)-maxSpectrumBars/2 {
			idx = append(idx, i)
		}
	}
	bars := make([]sims.Bar, 0, 2*len(idx))
	for _, i := range idx {
		bars = append(bars,
			sims.Bar{Label: fmt.Sprintf("σ%d²", i+1), Value: sp[i], Class: 0},
			sims.Bar{Label: fmt.Sprintf("σ%d²+nλ", i+1), Value: sp[i] + nl, Class: 1})
	}
	title := "σᵢ² of X_c and σᵢ² + nλ (Prop 3.5)"
	if len(idx) < len(sp) {
		title += fmt.Sprintf(", %d of %d", len(idx), len(sp))
	}
	return sims.BarChart{Title: title, Bars: bars}
}

func (s *linregSim) closedB() float64 {
	if s.ls.Design().Bias() {
		return s.opt.Theta[s.data.D()]
	}
	return 0
}

// pathChart draws each coefficient's ridge path against log₁₀ λ with the
// current λ as a dotted vertical line and the current coefficients on it.
func (s *linregSim) pathChart(th []float64, cur float64) sims.CanvasChart {
	d := s.data.D()
	shown := min(d, 8)
	xs := make([]float64, pathN)
	for k := range xs {
		xs[k] = pathLo + (pathHi-pathLo)*float64(k)/(pathN-1)
	}
	lo, hi := 0.0, 0.0
	paths := make([]sims.Path, 0, shown+1)
	for j := 0; j < shown; j++ {
		ys := make([]float64, pathN)
		for k := range ys {
			ys[k] = s.path[k][j]
			lo, hi = math.Min(lo, ys[k]), math.Max(hi, ys[k])
		}
		paths = append(paths, sims.Path{X: xs, Y: ys, Class: j})
	}
	for j := 0; j < shown; j++ {
		lo, hi = math.Min(lo, th[j]), math.Max(hi, th[j])
	}
	if hi-lo < 1e-12 {
		hi = lo + 1
	}
	v := sims.Rect{XMin: pathLo, XMax: pathHi, YMin: lo, YMax: hi}.Pad(0.05)
	v.XMin, v.XMax = pathLo, pathHi
	paths = append(paths, sims.Path{X: []float64{cur, cur}, Y: []float64{v.YMin, v.YMax}, Class: 9, Dotted: true})
	markers := make([]sims.Marker, shown)
	for j := range markers {
		markers[j] = sims.Marker{X: cur, Y: th[j], Glyph: '●', Class: j}
	}
	legend := make([]string, shown)
	copy(legend, s.names[:shown])
	title := "ridge path w_j(λ)"
	if shown < d {
		title += fmt.Sprintf(", %d of %d", shown, d)
	}
	return sims.CanvasChart{Title: title, View: v, Paths: paths, Markers: markers, Legend: legend,
		XLabel: "log₁₀ λ", YLabel: "w_j"}
}

func (s *linregSim) notes(th []float64) []string {
	var lines []string
	n := s.data.N()
	switch {
	case s.eng == nil && !s.solved:
		lines = append(lines, "method=normal: the next step solves (X_cᵀX_c + nλI) w = X_cᵀy_c by Cholesky (never an inverse)")
	case s.eng == nil:
		lines = append(lines, fmt.Sprintf("solved: one Cholesky solve of the normal equation (note nλ = %.4g)", float64(n)*s.lambda))
	default:
		line := fmt.Sprintf("GD from 0, t = %.3g = %.3g/L; ∇²f has L = %.4g, m = %.4g", s.lr, s.lr*s.L, s.L, s.m)
		if gamma, ok := optim.StronglyConvexRate(s.m, s.L, s.lr); ok && s.m > 0 {
			line += fmt.Sprintf(", Thm 8.7 γ = %.4f", gamma)
		}
		lines = append(lines, line)
	}
	if s.opt.RankDeficient {
		lines = append(lines, fmt.Sprintf("⚠ rank deficient: rank %d < d = %d, XᵀX is singular: least-norm w shown", s.opt.Rank, s.data.D()),
			"  (any λ > 0 makes XᵀX + nλI regular, Prop 3.5)")
	} else {
		lines = append(lines, fmt.Sprintf("cond(X_cᵀX_c + nλI) = %.4g at λ = %g; closed form ‖w*‖ = %.4g", s.opt.Cond, s.lambda, floats.Norm(s.opt.Theta[:s.data.D()], 2)))
	}
	if eps := s.epsilonP; eps > 0 {
		lines = append(lines, fmt.Sprintf("the notes' ε example: at λ = 0 w = (−2/ε, 1) = (%.4g, 1), chaotic as ε → 0;", -2/eps),
			"ridge (λ > 0) shrinks it: see the path, ● is the current w")
	}
	return lines
}

func (s *linregSim) Result() map[string]any {
	th := s.theta()
	d := s.data.D()
	r := map[string]any{
		"w": append([]float64(nil), th[:d]...), "b": 0.0, "mse": s.ls.MSE(th), "loss": s.ls.Func(th),
		"closed_form_w": append([]float64(nil), s.opt.Theta[:d]...), "rank": s.opt.Rank,
		"rank_deficient": s.opt.RankDeficient, "steps": s.step(),
	}
	if s.ls.Design().Bias() {
		r["b"] = th[d]
		r["closed_form_b"] = s.opt.Theta[d]
	}
	if !math.IsInf(s.opt.Cond, 0) {
		r["cond"] = s.opt.Cond
	}
	return r
}

// signOf is "+" or "−" for printing a + b.
func signOf(b float64) string {
	if b < 0 {
		return "−"
	}
	return "+"
}
