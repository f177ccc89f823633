// Package optimsim turns the engines of algo/optim into sims.
package optimsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

type (
	// function is what gd minimises: one of optim's test functions, or a
	// finite sum built here (problems.go) that SGD can sample.
	function = param.Option[optim.Function]
	// method is gd's update rule: one of Descent's, damped Newton or
	// mini-batch SGD.
	method = param.Option[optim.Method]
)

var (
	fnQuadratic  = function{Engine: optim.FnQuadratic}
	fnRosenbrock = function{Engine: optim.FnRosenbrock}
	fnWavy       = function{Engine: optim.FnWavy}
	fnLSQ        = function{Own: "lsq"}
	fnLogistic   = function{Own: "logistic"}
	functions    = []function{fnQuadratic, fnRosenbrock, {Engine: optim.FnBeale}, {Engine: optim.FnHimmelblau}, fnWavy, fnLSQ, fnLogistic}

	methodGD     = method{Engine: optim.GD}
	methodAdam   = method{Engine: optim.Adam}
	methodNewton = method{Own: "newton"}
	methodSGD    = method{Own: "sgd"}
	methods      = []method{methodGD, {Engine: optim.Momentum}, {Engine: optim.Nesterov}, methodAdam, methodNewton, methodSGD}
)

// gd's parameters.
var (
	gdFn = param.Choice("fn", functions, fnQuadratic,
		"function to minimise; quadratic is ½xᵀAx with eigenvalues 1 and kappa; wavy is Σ ½x² + 4 sin²x "+
			"(non-convex, L = 9); lsq and logistic are finite sums of n terms (SGD's problems)")
	gdKappa = param.Float("kappa", 10,
		"condition number L/m of the quadratic, and of the data of lsq and logistic").Range(1, 1000)
	gdN = param.Int("n", 200, "number of terms of lsq and logistic "+
		"(at most 20000: logistic's landscape then costs a second to draw, on a coarser grid)").Range(10, 20000)
	gdNoise  = param.Float("noise", 1, "s.d. σ of the lsq targets (f* ≈ σ²)").Range(0, 10)
	gdLambda = param.Float("lambda", 0.1, "ridge weight of logistic: m = λ").Range(0, 10)
	gdMethod = param.Choice("method", methods, methodGD,
		"update rule: gradient descent, heavy ball, Nesterov, Adam, damped Newton, or mini-batch SGD (lsq, logistic)")
	gdLR = param.Float("lr", 0.1,
		"step size t (t₀ of the sgd schedule); on the quadratic GD converges iff t < 2/L; newton takes none").
		Range(0, 10).OpenMin().
		DefaultFunc(defaultLR, "1/L for quadratic, lsq, logistic, wavy; 0.001 (rosenbrock), 0.01 (beale, himmelblau); adam 0.05; sgd 0.1/L")
	gdBeta = param.Float("beta", 0.9, "momentum (momentum, nesterov) or first-moment decay (adam)").Range(0, 0.999)
	gdX0   = param.Vector("x0", []float64{-2.5, 1.5}, "starting point x,y").Range(-10, 10).
		DefaultFunc(defaultStart, "the function's standard start")
	gdTol      = param.Float("tol", 1e-8, "stop when ‖∇f‖ ≤ tol (not sgd)").Range(0, 1)
	gdBatch    = param.Int("batch", 1, "sgd: mini-batch size B, at most n").Range(1, 100000)
	gdSchedule = param.Choice("schedule", []optim.Schedule{optim.Constant, optim.InvK, optim.InvSqrtK}, optim.Constant,
		"sgd: t_k = t₀, t₀/(1+ck) or t₀/√(1+ck); a second run uses constant (or 1/k against constant)")
	gdDecay    = param.Float("decay", 0, "sgd: c of the decaying schedules; 0 = m t₀/2, so that t_k ≈ 2/(mk)").Range(0, 10)
	gdSampling = param.Choice("sampling", []optim.Sampling{optim.IID, optim.Epoch}, optim.IID,
		"sgd: iid batches (the notes' uniform I) or epochs of a reshuffled permutation")
)

// GD is the gradient-descent playground (seed 001 §8): a 2-D test function
// or a finite sum (least squares, logistic loss), an update rule (GD,
// momentum, Nesterov, Adam, Newton, mini-batch SGD with a step-size
// schedule), its convergence curve under the bounds of Theorems 8.5, 8.7
// and 8.8 where their hypotheses hold, and the iterate path over the
// contours. With SGD a second run with a contrasting schedule (constant vs
// decaying) shares the batches: constant steps stall at a noise floor, a
// decaying schedule goes below it.
var GD = &sims.Spec{
	Name:   "gd",
	Title:  "Gradient descent, momentum, Nesterov, Adam, Newton and SGD on 2-D problems",
	Source: "seed 001 §8 (Def 8.2, Thms 8.5, 8.7, 8.8, SGD L891–L913) and §9 (L974–L982)",
	Steps:  1000,
	Speed:  5,
	Params: param.List(gdFn, gdKappa, gdN, gdNoise, gdLambda, gdMethod, gdLR, gdBeta, gdX0, gdTol,
		gdBatch, gdSchedule, gdDecay, gdSampling),
	New:  newGD,
	Size: gdSize,

	Metrics: gdMetrics,
}

// lOf is L of the problem the parameters describe, when known before the
// data are drawn (the data are shaped so that it is exact).
func lOf(v param.Values) float64 {
	switch gdFn.Get(v) {
	case fnQuadratic, fnLSQ:
		return gdKappa.Get(v)
	case fnLogistic:
		return gdKappa.Get(v)/4 + gdLambda.Get(v)
	case fnWavy:
		return 1 + 2*optim.WavyA
	}
	return 0
}

// defaultLR is 1/L (0.1/L for sgd) to six digits when L is known.
func defaultLR(v param.Values) float64 {
	m := gdMethod.Get(v)
	if m == methodAdam {
		return 0.05
	}
	L := lOf(v)
	if m == methodSGD && L > 0 {
		return param.Sig(0.1/L, 6)
	}
	if L > 0 {
		return param.Sig(1/L, 6)
	}
	if gdFn.Get(v) == fnRosenbrock {
		return 0.001
	}
	return 0.01
}

func defaultStart(v param.Values) []float64 {
	fn := gdFn.Get(v)
	if fn.Own != "" {
		return []float64{-2.5, 1.5}
	}
	return optim.NewProblem(fn.Engine, 1).Start
}

// engine is what the sim needs of Descent, Newton and SGD.
type engine interface {
	Step() error
	X() []float64
	F() float64
	Iter() int
}

// gdSize is what gd holds: lsq's and logistic's n terms (the design of
// two features and the objective's rows), each SGD run's order of the
// terms (sgd has a companion run), the Traces (f − f*, the best gradient
// and the path; with sgd the companion's gap and path and both step
// sizes) with their copies in a Frame, and a measured base (the
// function's level lines, the Frame's other charts).
func gdSize(c sims.Config) int64 {
	v := c.Values
	n := gdN.Get(v)
	b, cols := int64(120<<10), 4
	switch gdFn.Get(v) {
	case fnLSQ:
		b += linear.DesignBytes(n, 2) + linear.LeastSquaresBytes(n, 2)
	case fnLogistic:
		b += linear.DesignBytes(n, 2) + linear.LogisticBytes(n, 2)
	}
	if gdMethod.Get(v) == methodSGD {
		b += 2 * optim.SGDBytes(n, 2)
		cols += 5
	}
	return b + 2*8*sims.TraceCap*int64(cols)
}

type gdSim struct {
	prob   *optim.Problem
	eng    engine
	comp   *optim.SGD // sgd: the run with the contrasting schedule
	method method
	lr     float64
	x0     []float64
	r0sq   float64 // ‖x0 − x*‖², x* the nearest minimiser
	gap0   float64 // f(x0) − f*
	gamma  float64 // Theorem 8.7's rate, when its hypotheses hold
	bound  bool    // Theorem 8.7 applies
	b85    bool    // Theorem 8.5 applies
	b88    bool    // Theorem 8.8 applies (non-convex, L-smooth)
	gap    *sims.Trace
	grads  *sims.Trace // min_{i≤k} ‖∇f(x_i)‖ (Theorem 8.8)
	cgap   *sims.Trace // the companion's f − f*
	rates  *sims.Trace // t_k of both runs
	path   *sims.Trace
	cpath  *sims.Trace
	heat   *sims.Grid
	view   sims.Rect
	g      []float64
	best   float64
	floor  float64 // sgd: the predicted noise floor of constant steps
	hasFl  bool
	sched  optim.Schedule
	csched optim.Schedule
	decay  float64
	batch  int
	samp   optim.Sampling
}

// gdStream seeds the SGD batches; both runs share it (common random numbers).
const gdStream = 0x67645f736764 // "gd_sgd"

func newProblem(v param.Values, seed uint64) (*optim.Problem, error) {
	kappa := gdKappa.Get(v)
	switch fn := gdFn.Get(v); fn {
	case fnLSQ:
		p, err := lsqProblem(seed, gdN.Get(v), kappa, gdNoise.Get(v))
		if err != nil {
			return nil, err
		}
		snap(&p.M, 1)
		snap(&p.L, kappa)
		return p, nil
	case fnLogistic:
		lam := gdLambda.Get(v)
		p, err := logisticProblem(seed, gdN.Get(v), kappa, lam)
		if err != nil {
			return nil, err
		}
		snap(&p.M, lam)
		snap(&p.L, kappa/4+lam)
		return p, nil
	default:
		return optim.NewProblem(fn.Engine, kappa), nil
	}
}

// snap sets *x to exact when they agree to rounding: the shaped data make
// the Hessian's extreme eigenvalues equal to their formulas, and computed
// values an ulp above them would switch a theorem off at t = 1/L.
func snap(x *float64, exact float64) {
	if math.Abs(*x-exact) <= 1e-9*math.Max(1, math.Abs(exact)) {
		*x = exact
	}
}

func newGD(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	prob, err := newProblem(v, cfg.Seed)
	if err != nil {
		return nil, err
	}
	x0 := gdX0.Get(v)
	s := &gdSim{
		prob:   prob,
		lr:     gdLR.Get(v),
		method: gdMethod.Get(v),
		x0:     x0,
		gap:    sims.NewTrace(0, 1),
		grads:  sims.NewTrace(0, 1),
		path:   sims.NewTrace(0, 2),
		g:      make([]float64, 2),
	}
	switch s.method {
	case methodNewton:
		s.eng, err = optim.NewNewton(prob.Objective.(optim.TwiceDifferentiable), x0, optim.NewtonConfig{Tol: gdTol.Get(v)})
	case methodSGD:
		err = s.newSGD(v, cfg.Seed)
	default:
		s.eng, err = optim.NewDescent(prob, x0, optim.DescentConfig{
			Method: s.method.Engine, LR: s.lr, Beta: gdBeta.Get(v), Tol: gdTol.Get(v),
		})
	}
	if err != nil {
		return nil, err
	}
	s.r0sq = math.Inf(1)
	for _, m := range prob.Minima {
		dx, dy := x0[0]-m[0], x0[1]-m[1]
		s.r0sq = math.Min(s.r0sq, dx*dx+dy*dy)
	}
	s.gap0 = prob.Func(x0) - prob.FStar
	if s.method == methodGD {
		if prob.M > 0 {
			s.gamma, s.bound = optim.StronglyConvexRate(prob.M, prob.L, s.lr)
		}
		_, s.b85 = optim.ConvexBound(prob.L, s.lr, s.r0sq, 1)
		s.b85 = s.b85 && prob.Convex
		_, s.b88 = optim.NonConvexBound(prob.L, s.lr, s.gap0, 0)
		s.b88 = s.b88 && !prob.Convex
	}
	r := prob.Region
	s.view = sims.Rect{XMin: r[0], XMax: r[1], YMin: r[2], YMax: r[3]}
	// Widen the window to hold a start outside the standard region.
	s.view.XMin, s.view.XMax = math.Min(s.view.XMin, x0[0]-0.2), math.Max(s.view.XMax, x0[0]+0.2)
	s.view.YMin, s.view.YMax = math.Min(s.view.YMin, x0[1]-0.2), math.Max(s.view.YMax, x0[1]+0.2)
	pt := make([]float64, 2)
	nx, ny := heatGrid(v)
	s.heat = sims.SampleGrid(s.view, nx, ny, func(x, y float64) float64 {
		pt[0], pt[1] = x, y
		return math.Log10(math.Max(prob.Func(pt)-prob.FStar, 0) + 1e-3)
	})
	s.heat.Levels = 14
	s.best = math.Inf(1)
	s.record()
	return s, nil
}

// heatGrid is the resolution of the landscape picture: 160×80 points, or
// for logistic, each of whose points costs n terms of log(1 + e^t) (about
// 40 ns each), as many of that shape as heatTerms terms allow, at least
// 40×20: at n = 20000, 44×22 (0.8 s) instead of 160×80 (10 s).
func heatGrid(v param.Values) (int, int) {
	const nx, ny = 160, 80
	if gdFn.Get(v) != fnLogistic {
		return nx, ny
	}
	s := math.Sqrt(math.Min(1, heatTerms/float64(gdN.Get(v))/(nx*ny)))
	return max(40, int(nx*s)), max(20, int(ny*s))
}

// heatTerms is the most terms of a finite sum the landscape picture
// evaluates.
const heatTerms = 2e7

// newSGD builds the SGD run and its companion with the contrasting
// schedule, and predicts the constant-step noise floor.
func (s *gdSim) newSGD(v param.Values, seed uint64) error {
	fs, ok := s.prob.Objective.(optim.FiniteSum)
	if !ok {
		return algo.BadParam("method", methodSGD, "used with fn=lsq or fn=logistic (a finite sum)")
	}
	s.batch = gdBatch.Get(v)
	if n := fs.Len(); s.batch > n {
		return algo.BadParam("batch", s.batch, fmt.Sprintf("in 1..%d (n)", n))
	}
	s.sched = gdSchedule.Get(v)
	s.csched = optim.InvK
	if s.sched != optim.Constant {
		s.csched = optim.Constant
	}
	s.samp = gdSampling.Get(v)
	s.decay = gdDecay.Get(v)
	if s.decay == 0 {
		s.decay = s.prob.M * s.lr / 2
		if s.decay == 0 {
			s.decay = float64(s.batch) / float64(fs.Len())
		}
	}
	cfg := optim.SGDConfig{LR: s.lr, Schedule: s.sched, Decay: s.decay, Batch: s.batch, Sampling: s.samp}
	eng, err := optim.NewSGD(fs, s.x0, cfg, rand.New(rand.NewPCG(seed, gdStream)))
	if err != nil {
		return err
	}
	cfg.Schedule = s.csched
	s.comp, err = optim.NewSGD(fs, s.x0, cfg, rand.New(rand.NewPCG(seed, gdStream)))
	if err != nil {
		return err
	}
	s.eng = eng
	s.cgap = sims.NewTrace(0, 1)
	s.cpath = sims.NewTrace(0, 2)
	s.rates = sims.NewTrace(0, 2)
	if td, ok := s.prob.Objective.(optim.TwiceDifferentiable); ok && len(s.prob.Minima) == 1 {
		h := mat.NewSymDense(2, nil)
		td.Hess(h, s.prob.Minima[0])
		if fl, err := optim.SGDNoiseFloor(fs, h, s.prob.Minima[0], s.lr, s.batch); err == nil {
			s.floor, s.hasFl = fl, true
		}
	}
	return nil
}

func (s *gdSim) record() {
	x := s.eng.X()
	s.gap.Add(s.eng.F() - s.prob.FStar)
	s.path.Add(x[0], x[1])
	s.prob.Grad(s.g, x)
	s.best = math.Min(s.best, floats.Norm(s.g, 2))
	s.grads.Add(s.best)
	if s.comp != nil {
		cx := s.comp.X()
		s.cgap.Add(s.comp.F() - s.prob.FStar)
		s.cpath.Add(cx[0], cx[1])
		s.rates.Add(s.eng.(*optim.SGD).LR(), s.comp.LR())
	}
}

func (s *gdSim) Step() error {
	err := s.eng.Step()
	if err == nil && s.comp != nil {
		err = s.comp.Step()
	}
	if err == nil {
		s.record()
	}
	return err
}

// boundAt is Theorem 8.7's right-hand side γ^k (L/2)‖x0 − x*‖².
func (s *gdSim) boundAt(k int) float64 {
	b, _ := optim.StronglyConvexBound(s.prob.M, s.prob.L, s.lr, s.r0sq, k)
	return b
}

// bound85At is Theorem 8.5's ‖x0 − x*‖²/(2tk), shown at k = 0 with its
// k = 1 value (a bound there too: r0²/(2t) ≥ (L/2)r0² ≥ f(x0) − f*).
func (s *gdSim) bound85At(k int) float64 {
	b, _ := optim.ConvexBound(s.prob.L, s.lr, s.r0sq, max(k, 1))
	return b
}

func (s *gdSim) bound88At(k int) float64 {
	b, _ := optim.NonConvexBound(s.prob.L, s.lr, s.gap0, k)
	return b
}

func (s *gdSim) gradNorm() float64 {
	s.prob.Grad(s.g, s.eng.X())
	return floats.Norm(s.g, 2)
}

func (s *gdSim) Frame() sims.Frame {
	x := s.eng.X()
	x0, x1 := s.gap.Span()
	var charts []sims.Chart
	if s.comp != nil {
		charts = append(charts, s.sgdGapChart(x0, x1))
	} else {
		series := []sims.Series{{Name: "f−f*", Y: s.gap.Column(0), Class: 0}}
		if s.bound {
			series = append(series, sims.Series{Name: "Thm 8.7 bound", Y: s.gap.Map(s.boundAt), Class: 1, Bound: true})
		}
		if s.b85 {
			series = append(series, sims.Series{Name: "Thm 8.5 bound", Y: s.gap.Map(s.bound85At), Class: 3, Bound: true})
		}
		charts = append(charts, sims.LineChart{Title: "f(x_k) − f*", Series: series, LogY: true, X0: x0, X1: x1, XLabel: "step k"})
	}
	if s.b88 {
		charts = append(charts, sims.LineChart{Title: "min_{i≤k} ‖∇f(x_i)‖",
			Series: []sims.Series{
				{Name: "min ‖∇f‖", Y: s.grads.Column(0), Class: 0},
				{Name: "Thm 8.8 bound", Y: s.grads.Map(s.bound88At), Class: 1, Bound: true},
			}, LogY: true, X0: x0, X1: x1, XLabel: "step k"})
	}
	px, py := s.path.Column(0), s.path.Column(1)
	// Orange path and iterate, pink minima: both stand out on the dimmed
	// viridis field; the companion SGD run is green.
	paths := []sims.Path{{X: px, Y: py, Class: 1}}
	markers := []sims.Marker{{X: s.x0[0], Y: s.x0[1], Glyph: '○', Class: 1}}
	for _, m := range s.prob.Minima {
		markers = append(markers, sims.Marker{X: m[0], Y: m[1], Glyph: '★', Class: 3})
	}
	var legend []string
	if s.comp != nil {
		paths = append(paths, sims.Path{X: s.cpath.Column(0), Y: s.cpath.Column(1), Class: 2})
		cx := s.comp.X()
		markers = append(markers, sims.Marker{X: cx[0], Y: cx[1], Glyph: '●', Class: 2})
		legend = []string{"", string(s.sched), string(s.csched)}
	}
	markers = append(markers, sims.Marker{X: x[0], Y: x[1], Glyph: '●', Class: 1})
	primary := len(charts) // the path over the contours
	charts = append(charts, sims.CanvasChart{
		Title: s.prob.Name + " contours and iterate path",
		View:  s.view, Heat: s.heat,
		Paths:   paths,
		Markers: markers,
		Legend:  legend,
		XLabel:  "x", YLabel: "y",
	})
	if s.comp != nil {
		r0, r1 := s.rates.Span()
		charts = append(charts, sims.LineChart{Title: "step size t_k",
			Series: []sims.Series{
				{Name: string(s.sched), Y: s.rates.Column(0), Class: 1},
				{Name: string(s.csched), Y: s.rates.Column(1), Class: 2},
			}, LogY: true, X0: r0, X1: r1, XLabel: "step k"})
	}
	gn := s.gradNorm()
	return sims.Frame{
		Sim:  "gd",
		Step: s.eng.Iter(),
		Metrics: []sims.Metric{
			{Name: "f", Value: s.eng.F()},
			{Name: "grad_norm", Value: gn},
			{Name: "gap", Value: s.eng.F() - s.prob.FStar},
		},
		Charts:  charts,
		Primary: primary,
		Text:    s.notes(),
	}
}

// sgdGapChart draws both SGD runs' gaps with the predicted noise floor of
// constant steps.
func (s *gdSim) sgdGapChart(x0, x1 float64) sims.LineChart {
	series := []sims.Series{
		{Name: "sgd, " + string(s.sched), Y: s.gap.Column(0), Class: 1},
		{Name: string(s.csched), Y: s.cgap.Column(0), Class: 2},
	}
	if s.hasFl && s.samp == optim.IID {
		fl := s.floor
		series = append(series, sims.Series{Name: "noise floor", Y: s.gap.Map(func(int) float64 { return fl }), Class: 4, Bound: true})
	}
	return sims.LineChart{Title: "f(x_k) − f*", Series: series, LogY: true, X0: x0, X1: x1, XLabel: "step k"}
}

// notes explains which theory applies to the current settings.
func (s *gdSim) notes() []string {
	p := s.prob
	if s.method == methodNewton {
		st, mu := s.eng.(*optim.Newton).LastStep()
		return []string{fmt.Sprintf("Newton: x ← x − s(∇²f + μI)⁻¹∇f, Cholesky solve; last s = %.3g, μ = %.3g", st, mu),
			"no step size: on a quadratic the first step lands on x*; Thms 8.5–8.8 are for GD."}
	}
	if p.L == 0 {
		return []string{fmt.Sprintf("%s is not convex (or not L-smooth): no global rate applies; watch ‖∇f‖.", p.Name)}
	}
	line := fmt.Sprintf("m = %.4g, L = %.4g, t = %.3g = %.3g/L.", p.M, p.L, s.lr, s.lr*p.L)
	switch {
	case s.method == methodSGD:
		return s.sgdNotes()
	case s.method != methodGD:
		return []string{line, "Theorems 8.5, 8.7 and 8.8 are stated for plain GD (method=gd)."}
	case !p.Convex:
		if s.b88 {
			return []string{line + " f is not convex: Thm 8.8 bounds the least gradient so far:",
				"min_{i≤k} ‖∇f(x_i)‖ ≤ √(2(f(x0) − f*)/(t(k+1))); x_k may stop at a local minimum."}
		}
		return []string{line, fmt.Sprintf("Thm 8.8 needs t ≤ 1/L = %.3g: no bound drawn.", 1/p.L)}
	case s.bound:
		out := []string{line, fmt.Sprintf("Thm 8.7: f−f* ≤ γ^k (L/2)‖x0−x*‖², γ = 1 − 2tmL/(m+L) = %.4f.", s.gamma)}
		if s.b85 {
			out = append(out, "Thm 8.5 (convex, t ≤ 1/L): f−f* ≤ ‖x0−x*‖²/(2tk).")
		}
		return out
	case s.b85:
		return []string{line, "Thm 8.5 (convex, t ≤ 1/L): f−f* ≤ ‖x0−x*‖²/(2tk); m = 0: no linear rate."}
	case s.lr >= 2/p.L:
		return []string{line, "t ≥ 2/L: GD diverges on this quadratic."}
	default:
		return []string{line, fmt.Sprintf("Thm 8.7 needs t ≤ 2/(m+L) = %.3g: no bound drawn.", 2/(p.M+p.L))}
	}
}

func (s *gdSim) sgdNotes() []string {
	p := s.prob
	n := p.Objective.(optim.FiniteSum).Len()
	lines := []string{
		fmt.Sprintf("m = %.4g, L = %.4g; SGD, B = %d of n = %d (%s), t₀ = %.3g = %.3g/L, c = %.3g",
			p.M, p.L, s.batch, n, s.samp, s.lr, s.lr*p.L, s.decay),
		fmt.Sprintf("orange: t_k = %s; green, same batches: t_k = %s", s.sched.Formula(), s.csched.Formula()),
	}
	switch {
	case !s.hasFl:
		lines = append(lines, "no stationary noise floor at this t₀")
	case s.samp == optim.IID:
		lines = append(lines, fmt.Sprintf("constant t stalls near E[f−f*] ≈ ½tr(HP) = %.3g (linearised, exact for lsq);", s.floor),
			"1/k steps keep shrinking the noise and go below it (t = 1/k)")
	default:
		lines = append(lines, fmt.Sprintf("epoch sampling: constant steps stall below the iid floor %.3g (the noise of an epoch cancels)", s.floor))
	}
	return lines
}

func (s *gdSim) Result() map[string]any {
	r := map[string]any{
		"x":         append([]float64(nil), s.eng.X()...),
		"f":         s.eng.F(),
		"grad_norm": s.gradNorm(),
		"steps":     s.eng.Iter(),
		"method":    s.method.String(),
		"f_star":    s.prob.FStar,
	}
	if s.comp != nil {
		r["companion_schedule"] = string(s.csched)
		r["companion_gap"] = s.comp.F() - s.prob.FStar
		if s.hasFl {
			r["noise_floor"] = s.floor
		}
	}
	return r
}
