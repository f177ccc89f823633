package linearsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
)

// logreg's parameters.
var (
	logregPreset = param.Choice("data",
		[]preset{presetOverlap, presetSeparable, presetMoons, presetOr, presetXor, presetSpam}, presetOverlap,
		"overlap: two Gaussian classes that overlap; separable: margin ≥ gamma; moons; the notes' or, xor, spam").BuiltInData()
	logregN      = param.Int("n", 200, "number of points (overlap, separable, moons)").Range(4, dataset.MaxN).BuiltInData()
	logregSD     = param.Float("sd", 2, "s.d. of each class of overlap, whose centres are 6 apart").Range(0, 20).OpenMin().BuiltInData()
	logregGamma  = param.Float("gamma", 0.1, "margin of the separable points").Range(0, 0.49).OpenMin().BuiltInData()
	logregLambda = param.Float("lambda", 0, "ridge weight λ on w (the bias is not penalised)").Range(0, 100)
	logregMethod = param.Choice("method", []method{methodGD, methodSGD, methodNewton}, methodGD,
		"gd: full gradient steps; sgd: mini-batches; newton: damped Newton with line search")
	logregLR = param.Float("lr", 0,
		"step size t (t₀ for sgd); 0 = 1/L for gd, 1/L_max of a single term for sgd (newton takes none)").Range(0, 1000)
	logregTol = param.Float("tol", 1e-8, "gd and newton stop when ‖∇f‖ ≤ tol").Range(0, 1)
)

// Logreg is binary logistic regression (seed 001 §4): the mean log-loss
// plus (λ/2)‖w‖² minimised by gradient descent, SGD or Newton, with the
// probability p(x) shaded around the p = ½ boundary, the loss against its
// optimum, the accuracy and ‖w‖; on separable data it shows ‖w‖ growing
// without bound instead of claiming convergence.
var Logreg = &sims.Spec{
	Name:   "logreg",
	Title:  "Logistic regression by GD, SGD or Newton: p(x) shading, loss, ‖w‖ on separable data",
	Source: "seed 001 §4 (Def 4.1, Def 4.2, eq 4.a) and §8 (Thm 8.5)",
	Data:   "numeric columns; the column named label (else the last) holds 0/1 or −1/+1; p(x) is shaded when there are two features",
	Steps:  2000,
	Speed:  30,
	Params: param.List(logregPreset, logregN, logregSD, logregGamma, logregLambda, logregMethod, logregLR, logregTol,
		sgdBatch, sgdSchedule, sgdDecay),
	New:  newLogreg,
	Size: logregSize,

	Metrics: logregMetrics,
}

// logregSize is what logreg holds: its data (two features for the
// generated sets; the notes' tables are a few rows of at most five), the
// logistic objective's rows, SGD's order of the rows, the Trace of loss,
// accuracy and ‖w‖ (with Theorem 8.5's bound, a fourth column, in a
// Frame), the p(x) shading of a plane and a measured base (the Frame's
// other charts).
func logregSize(c sims.Config) int64 {
	v := c.Values
	n, d := logregN.Get(v), 2
	switch logregPreset.Get(v) {
	case presetOr, presetXor, presetSpam:
		n, d = 6, 5
	}
	n, d = rowsOf(c, n, d)
	b := dataBytes(n, d, true) + linear.LogisticBytes(n, d+1) + traceBytes(3) + 8*sims.TraceCap + 16<<10
	if d == 2 {
		b += shadeBytes
	}
	if logregMethod.Get(v) == methodSGD {
		b += optim.SGDBytes(n, d+1)
	}
	return b
}

type logregSim struct {
	data   *dataset.Labelled
	lg     *linear.Logistic
	eng    stepper
	method method
	lr     float64
	L      float64 // the smoothness constant (gd only)
	lambda float64
	// The reference optimum and what follows from it, found on first need
	// (reference): the sim's set-up makes no pass over the data beyond the
	// engine's own.
	refDone bool
	sep     linear.Separability // with λ = 0 only (λ > 0 always has a minimiser)
	xstar   []float64           // the reference minimiser, nil when none exists
	fstar   float64
	refErr  error // why Newton found no reference where one exists
	r0sq    float64
	two     bool
	scatter
	grad   []float64
	trace  *sims.Trace // loss, accuracy, ‖w‖
	sched  string
	decade []float64 // ‖w‖ at k = 10, 100, 1000, ...
	f, gn  float64   // f and ‖∇f‖ at the current iterate
	acc    float64   // training accuracy at the current iterate
}

func logregData(cfg sims.Config) (*dataset.Labelled, error) {
	if cfg.Data != nil {
		l, err := cfg.Data.Labelled(true)
		if err != nil {
			return nil, err
		}
		if l.Classes != 2 {
			return nil, fmt.Errorf("--data %s: logistic regression needs two classes, found %d (softmax takes more)", cfg.Data.Name, l.Classes)
		}
		return l, nil
	}
	v := cfg.Values
	rng := dataRNG(cfg.Seed)
	switch logregPreset.Get(v) {
	case presetSeparable:
		l, _, err := dataset.Separable(rng, logregN.Get(v), logregGamma.Get(v))
		return l, err
	case presetMoons:
		return dataset.Moons(rng, logregN.Get(v), 0.15)
	case presetOr:
		return dataset.Or(), nil
	case presetXor:
		return dataset.Xor(), nil
	case presetSpam:
		return dataset.Spam(), nil
	}
	return dataset.Blobs(rng, logregN.Get(v), 2, logregSD.Get(v))
}

func newLogreg(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	l, x, err := loadDesign(cfg, logregData, true)
	if err != nil {
		return nil, err
	}
	y, err := l.PlusMinus()
	if err != nil {
		return nil, err
	}
	s := &logregSim{data: l, method: logregMethod.Get(v), lambda: logregLambda.Get(v),
		trace: sims.NewTrace(0, 3), grad: make([]float64, x.P()), two: l.D() == 2}
	if s.lg, err = linear.NewLogistic(x, y, s.lambda); err != nil {
		return nil, err
	}
	theta0 := make([]float64, x.P())
	switch s.method {
	case methodNewton:
		s.eng, err = optim.NewNewton(s.lg, theta0, optim.NewtonConfig{Tol: logregTol.Get(v)})
	case methodSGD:
		s.eng, s.lr, s.sched, err = newSGD(s.lg, x, theta0, logregLR.Get(v), v, cfg.Seed)
	default:
		if _, s.L, err = s.lg.Curvature(); err != nil {
			return nil, err
		}
		s.eng, s.lr, err = newGD(s.lg, theta0, logregLR.Get(v), logregTol.Get(v), s.L)
	}
	if err != nil {
		return nil, err
	}
	if s.two {
		s.scatter = newScatter(l)
	}
	s.record()
	return s, nil
}

// newSGD builds the SGD engine of logreg and softmax: t₀ = lr or 1/L_max,
// L_max = c·max_i ‖x̃_i‖² + λ the smoothness of a single term, and decay
// c = decay or B/n, with the shared SGD parameters of v. It returns the
// engine, t₀ and a description.
func newSGD(f optim.FiniteSum, x *linear.Design, theta0 []float64, lr float64, v param.Values, seed uint64) (stepper, float64, string, error) {
	batch := sgdBatch.Get(v)
	if batch > x.N() {
		return nil, 0, "", algo.BadParam("batch", batch, fmt.Sprintf("in 1..%d (the number of rows)", x.N()))
	}
	t0 := lr
	if t0 == 0 {
		maxSq := 0.0
		for i := 0; i < x.N(); i++ {
			maxSq = math.Max(maxSq, floats.Dot(x.Row(i), x.Row(i)))
		}
		lam := 0.0
		if lg, ok := f.(*linear.Logistic); ok {
			lam, maxSq = lg.Lambda(), maxSq/4
		} else if sm, ok := f.(*linear.Softmax); ok {
			lam, maxSq = sm.Lambda(), maxSq/2
		}
		t0 = 1 / (maxSq + lam)
	}
	c := sgdDecay.Get(v)
	if c == 0 {
		c = float64(batch) / float64(x.N())
	}
	sched := sgdSchedule.Get(v)
	eng, err := optim.NewSGD(f, theta0, optim.SGDConfig{LR: t0, Schedule: sched, Decay: c, Batch: batch},
		rand.New(rand.NewPCG(seed, orderStream)))
	desc := fmt.Sprintf("SGD, B = %d, t_k = %s with t₀ = %.3g, c = %.3g", batch, sched.Formula(), t0, c)
	return eng, t0, desc, err
}

// reference finds, once, the minimiser that the loss chart measures f
// against, and whether one exists. With λ > 0 one always does (f is
// strongly convex in w and the bias is pinned by the data, catalogue [A6]);
// with λ = 0 it exists unless the data are linearly separable. It is Newton
// to working precision: for method=newton, the continuation of the run's
// own trajectory from its current iterate, which gives bit for bit what a
// fresh start would (a Newton step depends on its iterate only), so the run
// is its own reference at the cost of its last steps; for the other
// methods, a fresh start at θ = 0. With λ = 0, a reference that separates
// the data certifies that they are separable, one that reaches ∇f = 0
// without separating them that they are not; only when Newton ends neither
// way does the max-margin search (200+ passes over the data) decide.
func (s *logregSim) reference() {
	if s.refDone {
		return
	}
	s.refDone = true
	start := make([]float64, s.lg.Design().P())
	if nw, ok := s.eng.(*optim.Newton); ok {
		copy(start, nw.X())
	}
	xstar, fstar, err := logisticOptimum(s.lg, start)
	if s.lambda > 0 {
		if s.refErr = err; err == nil {
			s.setReference(xstar, fstar)
		}
		return
	}
	switch {
	case err == nil && s.lg.Separates(xstar):
		s.sep = linear.Separable
	case err == nil:
		s.sep = linear.NotSeparable
		s.setReference(xstar, fstar)
	default:
		if s.sep = linear.MaxMargin(s.lg.Design(), s.lg.Y()).Sep; s.sep == linear.NotSeparable {
			s.refErr = err // not separable, yet Newton failed
		}
	}
}

func (s *logregSim) setReference(xstar []float64, fstar float64) {
	s.xstar, s.fstar = xstar, fstar
	s.r0sq = floats.Distance(make([]float64, len(xstar)), xstar, 2)
	s.r0sq *= s.r0sq
}

// logisticOptimum runs Newton from start to working precision (‖∇f‖ ≤
// 1e-12, or until neither f nor ‖∇f‖ falls).
func logisticOptimum(lg *linear.Logistic, start []float64) ([]float64, float64, error) {
	nw, err := optim.NewNewton(lg, start, optim.NewtonConfig{Tol: 1e-12})
	if err != nil {
		return nil, 0, err
	}
	for k := 0; k < 200; k++ {
		if err = nw.Step(); err != nil {
			break
		}
	}
	if err == nil {
		err = fmt.Errorf("reference optimum: no convergence in 200 Newton steps (‖∇f‖ = %.3g)", nw.GradNorm())
	} else if errors.Is(err, algo.ErrConverged) {
		err = nil
	} else {
		err = fmt.Errorf("reference optimum: %w", err)
	}
	return append([]float64(nil), nw.X()...), nw.F(), err
}

func (s *logregSim) record() {
	th := s.eng.X()
	wn := norm2(th[:s.data.D()])
	// f, ∇f and the accuracy share one evaluation of the scores X̃θ (the
	// objective caches it), so the Frame makes no pass over the data.
	s.f = s.eng.F()
	s.gn = gradNorm(s.eng, s.lg, s.grad)
	s.acc = s.lg.Accuracy(th)
	s.trace.Add(s.f, s.acc, wn)
	if k := s.eng.Iter(); k >= 10 && k == int(math.Pow(10, float64(len(s.decade)+1))) {
		s.decade = append(s.decade, wn)
	}
}

func (s *logregSim) Step() error {
	err := s.eng.Step()
	if err == nil {
		s.record()
	}
	return err
}

func (s *logregSim) Frame() sims.Frame {
	s.reference()
	th := s.eng.X()
	d := s.data.D()
	x0, x1 := s.trace.Span()
	loss := sims.LineChart{Title: "loss f", X0: x0, X1: x1, XLabel: "step"}
	if s.xstar != nil {
		loss.Title, loss.LogY = "f − f*", true
		fstar := s.fstar
		gap := s.trace.Column(0)
		for i := range gap {
			gap[i] -= fstar
		}
		loss.Series = []sims.Series{{Name: "f − f*", Y: gap}}
		if s.method == methodGD && s.lr <= 1/s.L {
			t, r0 := s.lr, s.r0sq
			loss.Series = append(loss.Series, sims.Series{Name: "Thm 8.5", Class: 1, Bound: true,
				Y: s.trace.Map(func(k int) float64 {
					b, _ := optim.ConvexBound(s.L, t, r0, max(k, 1))
					return b
				})})
		}
	} else {
		loss.Series = []sims.Series{{Name: "f (inf f = 0)", Y: s.trace.Column(0)}}
		loss.LogY = true
	}
	charts := []sims.Chart{}
	if s.two {
		charts = append(charts, s.probChart(th))
	}
	charts = append(charts, loss,
		sims.LineChart{Title: "training accuracy", Fraction: true, Series: []sims.Series{{Name: "accuracy", Y: s.trace.Column(1), Class: 2}},
			X0: x0, X1: x1, XLabel: "step"},
		sims.LineChart{Title: "‖w‖", Series: []sims.Series{{Name: "‖w‖", Y: s.trace.Column(2), Class: 4}},
			X0: x0, X1: x1, XLabel: "step"},
	)
	return sims.Frame{
		Sim:  Logreg.Name,
		Step: s.eng.Iter(),
		Metrics: []sims.Metric{
			{Name: "loss", Value: s.f},
			{Name: "accuracy", Value: s.acc},
			{Name: "grad_norm", Value: s.gn},
			{Name: "w_norm", Value: norm2(th[:d])},
		},
		Charts: charts,
		Text:   s.notes(th),
	}
}

// probChart shades p(x) = σ(⟨x, w⟩ + b) from blue (0) through white (½) to
// red (1), with the boundary p = ½ as a level line.
func (s *logregSim) probChart(th []float64) sims.CanvasChart {
	pt := make([]float64, 2)
	heat := sims.SampleGrid(s.view, gridX, gridY, func(x, y float64) float64 {
		pt[0], pt[1] = x, y
		return s.lg.Prob(th, pt)
	})
	// Six bands: a graded shading in colour, level lines of p at sixths in
	// monochrome (where shades would drown the class glyphs).
	heat.Scale, heat.Lo, heat.Hi, heat.Levels = sims.Diverging, 0, 1, 6
	boundary := &sims.Grid{NX: heat.NX, NY: heat.NY, Z: heat.Z, Lo: 0, Hi: 1, Levels: 2}
	return sims.CanvasChart{
		Title:    "p(y=+1|x), line p = ½",
		View:     s.view,
		Heat:     heat,
		Contours: boundary,
		Points:   s.points(),
		Legend:   classLegend(2),
		XLabel:   s.xl, YLabel: s.yl,
	}
}

func (s *logregSim) notes(th []float64) []string {
	var lines []string
	switch s.method {
	case methodNewton:
		st, mu := s.eng.(*optim.Newton).LastStep()
		lines = append(lines, fmt.Sprintf("Newton: θ ← θ − s(∇²f + μI)⁻¹∇f (Cholesky solve); last s = %.3g, μ = %.3g", st, mu))
	case methodSGD:
		lines = append(lines, s.sched)
	default:
		lines = append(lines, fmt.Sprintf("GD, t = %.3g = %.3g/L, L = ¼λ_max(X̃ᵀX̃/n) + λ = %.4g", s.lr, s.lr*s.L, s.L))
	}
	if s.refErr != nil {
		lines = append(lines, "no f* to compare with: "+s.refErr.Error())
	}
	if s.xstar != nil {
		lines = append(lines, fmt.Sprintf("f* = %.6g (Newton) at (w*, b*) = %s", s.fstar, fmtVec(s.xstar)))
		if s.method == methodGD && s.lr <= 1/s.L {
			lines = append(lines, "Thm 8.5 (convex, t ≤ 1/L): f − f* ≤ ‖θ₀ − θ*‖²/(2tk)")
		}
	}
	switch {
	case s.lambda == 0 && s.sep == linear.Separable:
		lines = append(lines, "separable data, λ = 0: no minimiser; f → 0 only as ‖w‖ → ∞:",
			"the iterates diverge slowly, they never converge (catalogue A6)")
		if len(s.decade) >= 2 {
			var b strings.Builder
			fmt.Fprintf(&b, "‖w‖ at k = 10^1..10^%d:", len(s.decade))
			for _, w := range s.decade {
				fmt.Fprintf(&b, " %.3g", w)
			}
			k := len(s.decade) - 1
			fmt.Fprintf(&b, " (+%.3g per decade: ~ log k)", s.decade[k]-s.decade[k-1])
			lines = append(lines, b.String())
		}
	case s.lambda == 0 && s.lg.Separates(th):
		lines = append(lines, "the current w separates the data: no finite minimiser (λ = 0)")
	}
	lines = append(lines, "p(x) = σ(⟨x,w⟩ + b) (Def 4.2); predict +1 iff p > ½")
	return lines
}

func (s *logregSim) Result() map[string]any {
	s.reference()
	th := s.eng.X()
	d := s.data.D()
	r := map[string]any{
		"w": append([]float64(nil), th[:d]...), "b": th[d],
		"loss": s.eng.F(), "log_loss": s.lg.LogLoss(th), "accuracy": s.lg.Accuracy(th),
		"steps": s.eng.Iter(),
	}
	if s.lambda == 0 {
		r["separable"] = s.sep.String()
	}
	if s.xstar != nil {
		r["f_star"] = s.fstar
	}
	return r
}
