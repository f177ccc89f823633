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
	// mini-batch SGD (or the race of several batch sizes).
	method = param.Option[optim.Method]
	// schedule is SGD's step-size schedule: one of SGD's own, or the step
	// decay of optim.StepDecay.
	schedule = param.Option[optim.Schedule]
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
	methodRace   = method{Own: "batches"}
	methods      = []method{methodGD, {Engine: optim.Momentum}, {Engine: optim.Nesterov}, methodAdam, methodNewton, methodSGD, methodRace}

	schedConstant = schedule{Engine: optim.Constant}
	schedInvK     = schedule{Engine: optim.InvK}
	schedStep     = schedule{Own: "step"}
	schedulesGD   = []schedule{schedConstant, schedInvK, {Engine: optim.InvSqrtK}, schedStep}
)

// raceBatches are the batch sizes the batches view races, besides n.
var raceBatches = []int{1, 8, 64}

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
		"update rule: gradient descent, heavy ball, Nesterov, Adam, damped Newton, or mini-batch SGD (lsq, logistic); "+
			"batches races SGD at B = 1, 8, 64 and n against gradient evaluations")
	gdLR = param.Float("lr", 0.1,
		"step size t (t₀ of the sgd schedule); on the quadratic GD converges iff t < 2/L; newton takes none").
		Range(0, 10).OpenMin().
		DefaultFunc(defaultLR, "1/L for quadratic, lsq, logistic, wavy; 0.001 (rosenbrock), 0.01 (beale, himmelblau); adam 0.05; sgd 0.1/L; batches 0.3/L")
	gdBeta = param.Float("beta", 0.9, "momentum (momentum, nesterov) or first-moment decay (adam)").Range(0, 0.999)
	gdX0   = param.Vector("x0", []float64{-2.5, 1.5}, "starting point x,y").Range(-10, 10).
		DefaultFunc(defaultStart, "the function's standard start")
	gdTol      = param.Float("tol", 1e-8, "stop when ‖∇f‖ ≤ tol (not sgd)").Range(0, 1)
	gdBatch    = param.Int("batch", 1, "sgd: mini-batch size B, at most n").Range(1, 100000)
	gdSchedule = param.Choice("schedule", schedulesGD, schedConstant,
		"sgd, batches: t_k = t₀, t₀/(1+ck), t₀/√(1+ck) or step decay t₀·drop^min(⌊k/every⌋, drops) (k counts updates); "+
			"sgd adds a second run, constant (or 1/k against constant)")
	gdDecay = param.Float("decay", 0, "sgd: c of the decaying schedules; 0 = m t₀/2, so that t_k ≈ 2/(mk)").Range(0, 10)
	gdDrop  = param.Float("drop", 0.1, "schedule=step: factor γ of each drop (the notes' 1/10)").Range(0, 1).OpenMin()
	gdEvery = param.Int("every", 200, "schedule=step: updates T between drops").Range(1, 1000000).
		DefaultFunc(func(v param.Values) int { return max(1, gdN.Get(v)/gdBatch.Get(v)) }, "⌊n/batch⌋, one epoch")
	gdDrops    = param.Int("drops", 2, "schedule=step: number of drops D (the notes' η₀, η₀/10, η₀/100: 2)").Range(0, optim.MaxDrops)
	gdSampling = param.Choice("sampling", []optim.Sampling{optim.IID, optim.Epoch}, optim.IID,
		"sgd, batches: iid batches (the notes' uniform I) or epochs of a reshuffled permutation")
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
		gdBatch, gdSchedule, gdDecay, gdDrop, gdEvery, gdDrops, gdSampling),
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
	if m == methodRace && L > 0 {
		return param.Sig(0.3/L, 6)
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
	switch gdMethod.Get(v) {
	case methodSGD:
		b += 2 * optim.SGDBytes(n, 2)
		cols += 5
	case methodRace:
		// The runs, and their Traces (gap and path, three columns a run)
		// with a Frame's copies.
		runs := int64(len(raceBatches) + 1)
		return b + runs*optim.SGDBytes(n, 2) + 2*8*sims.TraceCap*3*runs
	}
	return b + 2*8*sims.TraceCap*int64(cols)
}

type gdSim struct {
	prob   *optim.Problem
	eng    engine
	comp   optim.Stepper // sgd: the run with the contrasting schedule
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
	sched  schedule
	csched schedule
	step   optim.StepDecay // schedule=step
	decay  float64
	batch  int
	samp   optim.Sampling

	// batches: the race of several batch sizes by gradient evaluations.
	race  *optim.BatchRace
	tick  int         // evaluations a step grants each run
	ticks int         // steps taken
	rgap  *sims.Trace // f − f* of each run, a row a step
	rpath *sims.Trace // each run's iterate (x, y)
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
		g:      make([]float64, 2),
	}
	if s.method != methodRace { // the batches view keeps its own
		s.gap, s.grads, s.path = sims.NewTrace(0, 1), sims.NewTrace(0, 1), sims.NewTrace(0, 2)
	}
	switch s.method {
	case methodNewton:
		s.eng, err = optim.NewNewton(prob.Objective.(optim.TwiceDifferentiable), x0, optim.NewtonConfig{Tol: gdTol.Get(v)})
	case methodSGD:
		err = s.newSGD(v, cfg.Seed)
	case methodRace:
		err = s.newRace(v, cfg.Seed)
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
	s.csched = schedInvK
	if err := s.readSchedule(v, fs); err != nil {
		return err
	}
	if s.sched != schedConstant {
		s.csched = schedConstant
	}
	eng, err := s.sgdRun(fs, s.batch, s.sched, rand.New(rand.NewPCG(seed, gdStream)))
	if err != nil {
		return err
	}
	s.comp, err = s.sgdRun(fs, s.batch, s.csched, rand.New(rand.NewPCG(seed, gdStream)))
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

// readSchedule reads the schedule, its decay c (0: m t₀/2, or B/n when
// m = 0) and the step decay, and the sampling.
func (s *gdSim) readSchedule(v param.Values, fs optim.FiniteSum) error {
	s.sched = gdSchedule.Get(v)
	s.samp = gdSampling.Get(v)
	s.decay = gdDecay.Get(v)
	if s.decay == 0 {
		s.decay = s.prob.M * s.lr / 2
		if s.decay == 0 {
			s.decay = float64(s.batch) / float64(fs.Len())
		}
	}
	var err error
	s.step, err = optim.NewStepDecay(s.lr, gdDrop.Get(v), gdEvery.Get(v), gdDrops.Get(v))
	return err
}

// sgdRun is an SGD run of batch size b under schedule sch from x0.
func (s *gdSim) sgdRun(fs optim.FiniteSum, b int, sch schedule, rng *rand.Rand) (optim.Stepper, error) {
	cfg := optim.SGDConfig{LR: s.lr, Decay: s.decay, Batch: b, Sampling: s.samp}
	if sch == schedStep {
		r, err := optim.NewStepDecaySGD(fs, s.x0, cfg, s.step, rng)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	cfg.Schedule = sch.Engine
	r, err := optim.NewSGD(fs, s.x0, cfg, rng)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// newRace builds the batches view: SGD at B = 1, 8, 64 (those below n)
// and B = n (full-batch GD), each with its own batches, advanced by
// ⌈n/4⌉ gradient evaluations a step.
func (s *gdSim) newRace(v param.Values, seed uint64) error {
	fs, ok := s.prob.Objective.(optim.FiniteSum)
	if !ok {
		return algo.BadParam("method", methodRace, "used with fn=lsq or fn=logistic (a finite sum)")
	}
	n := fs.Len()
	s.batch = 1
	if err := s.readSchedule(v, fs); err != nil {
		return err
	}
	var runs []optim.Stepper
	for i, b := range append(raceBatches, n) {
		if b > n || (b == n && i < len(raceBatches)) {
			continue
		}
		r, err := s.sgdRun(fs, b, s.sched, rand.New(rand.NewPCG(seed, gdStream+uint64(1+i))))
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	var err error
	if s.race, err = optim.NewBatchRace(runs...); err != nil {
		return err
	}
	s.eng = runs[0]
	s.tick = (n + 3) / 4
	s.rgap = sims.NewTrace(0, len(runs))
	s.rpath = sims.NewTrace(0, 2*len(runs))
	return nil
}

// raceName names a run of the race by its batch size.
func raceName(b, n int) string {
	if b == n {
		return fmt.Sprintf("B=n=%d (GD)", n)
	}
	return fmt.Sprintf("B=%d", b)
}

func (s *gdSim) recordRace() {
	runs := s.race.Runs()
	gaps := make([]float64, len(runs))
	xy := make([]float64, 2*len(runs))
	for i, r := range runs {
		gaps[i] = r.F() - s.prob.FStar
		xy[2*i], xy[2*i+1] = r.X()[0], r.X()[1]
	}
	s.rgap.Add(gaps...)
	s.rpath.Add(xy...)
}

func (s *gdSim) record() {
	if s.race != nil {
		s.recordRace()
		return
	}
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
		s.rates.Add(s.eng.(optim.Stepper).LR(), s.comp.LR())
	}
}

func (s *gdSim) Step() error {
	if s.race != nil {
		err := s.race.Advance(s.tick)
		if err == nil {
			s.ticks++
			s.record()
		}
		return err
	}
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
	if s.race != nil {
		return s.raceFrame()
	}
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
		legend = []string{"", s.sched.String(), s.csched.String()}
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
				{Name: s.sched.String(), Y: s.rates.Column(0), Class: 1},
				{Name: s.csched.String(), Y: s.rates.Column(1), Class: 2},
			}, LogY: true, X0: r0, X1: r1, XLabel: "step k"})
	}
	gn := s.gradNorm()
	metrics := []sims.Metric{
		{Name: "f", Value: s.eng.F()},
		{Name: "grad_norm", Value: gn},
		{Name: "gap", Value: s.eng.F() - s.prob.FStar},
	}
	if s.comp != nil {
		metrics = append(metrics, sims.Metric{Name: "evals", Value: float64(s.eng.(optim.Stepper).Evaluations())})
	}
	return sims.Frame{
		Sim:     "gd",
		Step:    s.eng.Iter(),
		Metrics: metrics,
		Charts:  charts,
		Primary: primary,
		Text:    s.notes(),
	}
}

// sgdGapChart draws both SGD runs' gaps with the predicted noise floor of
// constant steps.
func (s *gdSim) sgdGapChart(x0, x1 float64) sims.LineChart {
	series := []sims.Series{
		{Name: "sgd, " + s.sched.String(), Y: s.gap.Column(0), Class: 1},
		{Name: s.csched.String(), Y: s.cgap.Column(0), Class: 2},
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
		fmt.Sprintf("orange: t_k = %s; green, same batches: t_k = %s", s.formula(s.sched), s.formula(s.csched)),
	}
	switch {
	case !s.hasFl:
		lines = append(lines, "no stationary noise floor at this t₀")
	case s.samp == optim.IID && s.sched == schedStep:
		lines = append(lines, fmt.Sprintf("constant t stalls near E[f−f*] ≈ ½tr(HP) = %.3g (linearised, exact for lsq);", s.floor),
			fmt.Sprintf("each drop of t lowers that floor about %.3g× (it is ∝ t for small t), down to t₀·%.3g^%d's", s.step.Factor, s.step.Factor, s.step.Drops))
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
	if s.race != nil {
		runs := s.race.Runs()
		batches, gaps, updates := make([]int, len(runs)), make([]float64, len(runs)), make([]int, len(runs))
		for i, run := range runs {
			batches[i], gaps[i], updates[i] = run.Batch(), run.F()-s.prob.FStar, run.Iter()
		}
		r["evals"] = s.race.Budget()
		r["batches"], r["gaps"], r["updates"] = batches, gaps, updates
		r["steps"] = s.ticks
	}
	if s.comp != nil {
		r["evals"] = s.eng.(optim.Stepper).Evaluations()
		r["companion_schedule"] = s.csched.String()
		r["companion_gap"] = s.comp.F() - s.prob.FStar
		if s.hasFl {
			r["noise_floor"] = s.floor
		}
	}
	return r
}

// formula is a schedule's t_k.
func (s *gdSim) formula(sch schedule) string {
	if sch == schedStep {
		return fmt.Sprintf("t₀·%.3g^min(⌊k/%d⌋, %d)", s.step.Factor, s.step.Every, s.step.Drops)
	}
	return sch.Engine.Formula()
}

// raceClasses colour the runs of the race: orange, green, turquoise, red
// (the minima are gold stars).
var raceClasses = []int{1, 2, 6, 7}

// raceFrame draws the batches view: each run's f − f* against the
// gradient evaluations spent, and the runs' paths over the contours.
func (s *gdSim) raceFrame() sims.Frame {
	runs := s.race.Runs()
	n := s.prob.Objective.(optim.FiniteSum).Len()
	x0, x1 := s.rgap.Span()
	e := float64(s.tick)
	series := make([]sims.Series, len(runs))
	paths := make([]sims.Path, len(runs))
	legend := make([]string, 8)
	markers := []sims.Marker{{X: s.x0[0], Y: s.x0[1], Glyph: '○', Class: 1}}
	for _, m := range s.prob.Minima {
		markers = append(markers, sims.Marker{X: m[0], Y: m[1], Glyph: '★', Class: 4})
	}
	metrics := []sims.Metric{{Name: "evals", Value: float64(s.race.Budget())}}
	gaps := map[int]float64{}
	for i, r := range runs {
		c, name := raceClasses[i], raceName(r.Batch(), n)
		series[i] = sims.Series{Name: name, Y: s.rgap.Column(i), Class: c}
		paths[i] = sims.Path{X: s.rpath.Column(2 * i), Y: s.rpath.Column(2*i + 1), Class: c}
		markers = append(markers, sims.Marker{X: r.X()[0], Y: r.X()[1], Glyph: '●', Class: c})
		legend[c] = fmt.Sprintf("B=%d", r.Batch())
		gaps[r.Batch()] = r.F() - s.prob.FStar
	}
	for _, b := range raceBatches {
		g, ok := gaps[b]
		if !ok || b == n {
			metrics = append(metrics, sims.Metric{Name: raceMetric(b), Undefined: fmt.Sprintf("no run at B = %d: n = %d", b, n)})
			continue
		}
		metrics = append(metrics, sims.Metric{Name: raceMetric(b), Value: g})
	}
	metrics = append(metrics, sims.Metric{Name: "gap GD", Value: gaps[n]})
	charts := []sims.Chart{
		sims.LineChart{Title: "f − f* at equal cost, by batch size", Series: series, LogY: true,
			X0: x0 * e, X1: x1 * e, XLabel: "gradient evaluations ∇f_i"},
		sims.CanvasChart{
			Title: s.prob.Name + " contours and the runs' paths",
			View:  s.view, Heat: s.heat,
			Paths: paths, Markers: markers, Legend: legend,
			XLabel: "x", YLabel: "y",
		},
	}
	text := []string{
		fmt.Sprintf("equal cost: each step grants every run %d more gradient evaluations ∇f_i; after E of them batch B has made ⌊E/B⌋ updates",
			s.tick),
		fmt.Sprintf("t₀ = %.3g = %.3g/L for all, t_k = %s (k counts each run's updates), %s batches",
			s.lr, s.lr*s.prob.L, s.formula(s.sched), s.samp),
		"small batches lead early (more updates a pass); constant steps stall at a noise floor ∝ t/B; GD, noiseless, passes them later",
	}
	return sims.Frame{
		Sim:     "gd",
		Step:    s.ticks,
		Metrics: metrics,
		Charts:  charts,
		Text:    text,
	}
}

// raceMetric is the name of the gap of the batches run of size b.
func raceMetric(b int) string { return fmt.Sprintf("gap B=%d", b) }
