// Package laplacesim turns the engines of algo/laplace into sims.
package laplacesim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/laplace"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Laplace is the Laplace approximation (seed 002 §3.3, L1168–1219;
// catalogue C7): Newton's method climbs to the mode of a log-density, one
// iteration per step, and at every iterate the pane draws the Gaussian of
// the second-order Taylor expansion there, which at the mode is the
// Laplace approximation q = N(ẑ, H⁻¹), against the grid-normalised target,
// with the two KL divergences between them. Models: the notes' χ²(10) of
// Fig 3.9 (q = N(8, 16) while p has mean 10 and variance 20), the 1-D
// Bayesian logistic regression of Example 3.4, and a 2-D one (intercept and
// slope) on seeded data or a CSV file.
var Laplace = &sims.Spec{
	Name:   "laplace",
	Title:  "Laplace approximation: Newton to the mode, the Gaussian there, KL to the target",
	Source: "seed 002 §3.3 (Laplace approximation, Fig 3.9, Example 3.4, eqs 3.4–3.5)",
	Data:   "model=logistic2d: the first feature column and a 0/1 label (column \"label\", else the last); posterior over (intercept, slope)",
	Steps:  30,
	Speed:  1,
	// A short story (Newton reaches the mode in a handful of steps: then again).
	Replay: sims.ReplayPause,
	Params: param.List(lapModel, lapK, lapTau, lapN, lapZ0),
	New:    newLaplace,
	Size:   laplaceSize,

	Metrics: laplaceMetrics,
}

// model is the log-density the laplace sim approximates.
type model string

func (m model) String() string { return string(m) }

const (
	modelChi2       model = "chi2"
	modelLogistic   model = "logistic"
	modelLogistic2D model = "logistic2d"
)

// laplace's parameters.
var (
	lapModel = param.Choice("model", []model{modelChi2, modelLogistic, modelLogistic2D}, modelChi2,
		"chi2: the notes' χ²(k) (Fig 3.9); logistic: Example 3.4's 1-D posterior; logistic2d: intercept and slope on data")
	lapK = param.Float("k", 10,
		"degrees of freedom of χ²(k) (model=chi2 only); q = N(k − 2, 2(k − 2))").Range(2, 100).OpenMin()
	lapTau = param.Float("tau", 2, "prior standard deviation τ of the weights (logistic models)").Range(0, 100).OpenMin()
	lapN   = param.Int("n", 30,
		"seeded data points, x ~ N(0, 1.5²), y ~ Bernoulli(σ(0.5 + 1.5x)) (model=logistic2d without --data; "+
			"at most 1000: the exact posterior is normalised on a 240×240 grid at n terms a cell, 2 s at 1000)").Range(2, 1000).BuiltInData()
	lapZ0 = param.Vector("z0", []float64{0, 0}, "Newton's starting point (1-D models use the first value)").Range(-100, 500).
		DefaultWhen(func(v param.Values) bool { return lapModel.Get(v) == modelChi2 }, []float64{1, 0}, "1 for chi2, else 0,0")
)

// Sizes of the laplace pane.
const (
	curvePts = 241   // points of the 1-D density curves
	grid1D   = 20000 // cells of the 1-D integration grid
	grid2D   = 240   // cells per axis of the 2-D grid
	tableLen = 5     // Newton iterations listed in the text
	tol      = 1e-10 // stop when |∇ log p| ≤ tol
)

type iterate struct {
	z          []float64
	logp, grad float64
	hess       []float64
	t          float64
	newton     bool
	kl         laplace.Divergences
	klOK       bool // the Taylor Gaussian exists (−∇² log p > 0)
}

type laplaceSim struct {
	model   laplace.Model
	nw      *laplace.Newton
	grid    *laplace.Grid
	d       int
	final   []float64   // the mode, from a run done at construction (for the layout)
	finalC  [][]float64 // the Laplace covariance there
	pMean   []float64   // the target's moments on the grid
	pCov    [][]float64
	lo, hi  []float64 // drawing window
	pCurve  []float64 // 1-D: p at curvePts points
	heat    *sims.Grid
	margW   []float64 // 2-D: p's marginal of the slope at the grid's cells
	history []iterate
	chi     *laplace.ChiSquare
	data    string // where the logistic data came from
}

// laplaceSize is what laplace holds: the 1-D models a few curves on fixed
// grids; logistic2d its data (a --data table's rows, else n points: about
// 48 bytes each, with the features and the model's per-point arrays) and
// the posterior's and the approximation's grids (measured).
func laplaceSize(c sims.Config) int64 {
	if lapModel.Get(c.Values) != modelLogistic2D {
		return 208 << 10
	}
	n := lapN.Get(c.Values)
	if c.Data != nil {
		n = len(c.Data.Rows)
	}
	return 48*int64(n) + 560<<10
}

func newLaplace(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &laplaceSim{}
	switch lapModel.Get(v) {
	case modelChi2:
		if cfg.Data != nil {
			return nil, errors.New("--data is used by model=logistic2d only")
		}
		c, err := laplace.NewChiSquare(lapK.Get(v))
		if err != nil {
			return nil, err
		}
		s.model, s.chi = c, &c
	case modelLogistic:
		if cfg.Data != nil {
			return nil, errors.New("--data is used by model=logistic2d only")
		}
		m, err := laplace.Example34(lapTau.Get(v))
		if err != nil {
			return nil, err
		}
		s.model, s.data = m, "the notes' data x = (−2, −1, −0.5, 0.5, 1, 2, 3, −3), y = (0, 0, 1, 0, 1, 1, 1, 0)"
	default:
		xs, ys, name, err := logisticData(cfg)
		if err != nil {
			return nil, err
		}
		phi := make([][]float64, len(xs))
		for i, x := range xs {
			phi[i] = []float64{1, x}
		}
		m, err := laplace.NewLogistic(modelLogistic2D.String(), phi, ys, lapTau.Get(v))
		if err != nil {
			return nil, err
		}
		s.model, s.data = m, name
	}
	s.d = s.model.Dim()
	z0 := lapZ0.Get(v)[:s.d]
	nw, err := laplace.NewNewton(s.model, z0, tol)
	if err != nil {
		return nil, err
	}
	s.nw = nw
	if err := s.layout(z0); err != nil {
		return nil, err
	}
	s.record()
	return s, nil
}

// logisticData is the 2-D model's data: --data's first feature and its
// 0/1 labels, or n seeded points.
func logisticData(cfg sims.Config) (xs, ys []float64, name string, err error) {
	if cfg.Data != nil {
		l, err := cfg.Data.Labelled(true)
		if err != nil {
			return nil, nil, "", err
		}
		if l.Classes != 2 {
			return nil, nil, "", fmt.Errorf("--data %s: logistic regression needs two classes, found %d", cfg.Data.Name, l.Classes)
		}
		if err := cfg.Data.AtMost(int(lapN.Param().Max),
			"the exact posterior can be normalised over (a 240×240 grid at one term a row a cell)"); err != nil {
			return nil, nil, "", err
		}
		for i, row := range l.X {
			xs, ys = append(xs, row[0]), append(ys, l.Y[i])
		}
		return xs, ys, fmt.Sprintf("%s (%d rows; feature %s)", cfg.Data.Name, len(xs), l.Features[0]), nil
	}
	n := lapN.Get(cfg.Values)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6c61706c)) // "lapl"
	for range n {
		x := 1.5 * rng.NormFloat64()
		y := 0.0
		if rng.Float64() < 1/(1+math.Exp(-(0.5+1.5*x))) {
			y = 1
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	return xs, ys, fmt.Sprintf("%d seeded points, x ~ N(0, 1.5²), y ~ Bernoulli(σ(0.5 + 1.5x))", n), nil
}

// layout finds the mode once (a separate Newton run) so that the axes and
// the integration grid hold the target, the final Gaussian and the start
// from the first frame on, and normalises the target on that grid.
func (s *laplaceSim) layout(z0 []float64) error {
	probe, _ := laplace.NewNewton(s.model, z0, tol)
	for range 200 {
		if err := probe.Step(); errors.Is(err, algo.ErrConverged) {
			break
		} else if err != nil {
			return err
		}
	}
	s.final = probe.Z()
	cov, ok := probe.Laplace()
	if !ok {
		return fmt.Errorf("laplace: −∇² log p is not positive definite at the mode %v", s.final)
	}
	s.finalC = cov
	lo, hi := s.model.Bounds()
	for i := range s.d {
		sd := math.Sqrt(cov[i][i])
		lo[i] = math.Min(lo[i], s.final[i]-9*sd)
		hi[i] = math.Max(hi[i], s.final[i]+9*sd)
	}
	n := grid1D
	if s.d == 2 {
		n = grid2D
	}
	s.grid = laplace.NewGrid(s.model, lo, hi, n)
	s.pMean, s.pCov = s.grid.Moments()
	s.lo, s.hi = make([]float64, s.d), make([]float64, s.d)
	for i := range s.d {
		sq, sp := math.Sqrt(cov[i][i]), math.Sqrt(s.pCov[i][i])
		s.lo[i] = math.Max(lo[i], math.Min(s.final[i]-4*sq, s.pMean[i]-4*sp))
		s.hi[i] = math.Min(hi[i], math.Max(s.final[i]+4*sq, s.pMean[i]+5*sp))
		s.lo[i] = math.Min(s.lo[i], z0[i])
		s.hi[i] = math.Max(s.hi[i], z0[i])
	}
	if s.d == 1 {
		s.pCurve = make([]float64, curvePts)
		z := make([]float64, 1)
		for j := range s.pCurve {
			z[0] = s.x(j)
			s.pCurve[j] = math.Exp(s.model.LogP(z) - s.grid.LogZ)
		}
		return nil
	}
	view := sims.Rect{XMin: s.lo[0], XMax: s.hi[0], YMin: s.lo[1], YMax: s.hi[1]}
	z := make([]float64, 2)
	s.heat = sims.SampleGrid(view, 120, 60, func(x, y float64) float64 {
		z[0], z[1] = x, y
		return math.Exp(s.model.LogP(z) - s.grid.LogZ)
	})
	s.heat.Levels = 8
	s.margW = s.grid.Marginal(1)
	return nil
}

// x is the j-th point of the 1-D drawing window.
func (s *laplaceSim) x(j int) float64 {
	return s.lo[0] + (s.hi[0]-s.lo[0])*float64(j)/(curvePts-1)
}

// record appends the current iterate, with the divergences between the
// target and the Taylor Gaussian there.
func (s *laplaceSim) record() {
	it := iterate{z: s.nw.Z(), logp: s.nw.LogP(), grad: s.nw.GradNorm(),
		hess: append([]float64(nil), s.nw.Hess()...), t: s.nw.StepLength(), newton: s.nw.WasNewton()}
	if mean, cov, ok := s.nw.Taylor(); ok {
		it.kl, it.klOK = s.grid.KL(mean, cov), true
	}
	s.history = append(s.history, it)
}

// Step takes one Newton iteration.
func (s *laplaceSim) Step() error {
	if err := s.nw.Step(); err != nil {
		return err
	}
	s.record()
	return nil
}

func (s *laplaceSim) current() iterate { return s.history[len(s.history)-1] }

// taylor is the Gaussian at the current iterate (ok false where it has
// none).
func (s *laplaceSim) taylor() (mean []float64, cov [][]float64, ok bool) { return s.nw.Taylor() }

func (s *laplaceSim) Frame() sims.Frame {
	it := s.current()
	metrics := []sims.Metric{{Name: "iter", Value: float64(s.nw.Iter())}}
	names := []string{"z"}
	if s.d == 2 {
		names = []string{"b", "w"}
	}
	for i, n := range names {
		metrics = append(metrics, sims.Metric{Name: n, Value: it.z[i]})
	}
	// The gradient's scale is its largest norm along the path: at the
	// mode Newton leaves rounding error, which reads ≈ 0.
	gscale := 0.0
	for _, h := range s.history {
		gscale = math.Max(gscale, h.grad)
	}
	metrics = append(metrics, sims.Metric{Name: "grad_norm", Value: it.grad, Scale: gscale})
	kl := 0.0
	if it.klOK {
		kl = it.kl.PQ
	}
	metrics = append(metrics, sims.Metric{Name: "kl_pq", Value: kl})

	var charts []sims.Chart
	if s.d == 1 {
		charts = append(charts, s.densityChart())
	} else {
		charts = append(charts, s.canvas(), s.marginalChart())
	}
	charts = append(charts, s.gradChart(), s.klChart())
	return sims.Frame{Sim: "laplace", Step: s.nw.Iter(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

// densityChart draws p (grid-normalised) and the Gaussian at the iterate
// over the window.
func (s *laplaceSim) densityChart() sims.LineChart {
	ch := sims.LineChart{Title: "p vs q_k, the Gaussian at z_k", X0: s.lo[0], X1: s.hi[0], XLabel: "z"}
	ch.Series = append(ch.Series, sims.Series{Name: "target p", Y: s.pCurve, Class: 0})
	if mean, cov, ok := s.taylor(); ok {
		q := make([]float64, curvePts)
		for j := range q {
			q[j] = math.Exp(laplace.GaussLogPDF([]float64{s.x(j)}, mean, cov))
		}
		name := "q_k"
		if s.converged() {
			name = "Laplace q = N(ẑ, H⁻¹)"
		}
		ch.Series = append(ch.Series, sims.Series{Name: name, Y: q, Class: 1})
	}
	return ch
}

// converged reports whether the iterate is at the mode.
func (s *laplaceSim) converged() bool { return s.nw.GradNorm() <= tol }

// canvas draws the 2-D posterior (shade and level lines), the Gaussian's
// 1σ and 2σ ellipses, and Newton's path.
func (s *laplaceSim) canvas() sims.CanvasChart {
	var paths []sims.Path
	if mean, cov, ok := s.taylor(); ok {
		for _, r := range []float64{1, 2} {
			paths = append(paths, sims.Ellipse(mean[0], mean[1], cov[0][0], cov[0][1], cov[1][1], r, 1))
		}
	}
	pth := sims.Path{Class: 2}
	for _, it := range s.history {
		pth.X, pth.Y = append(pth.X, it.z[0]), append(pth.Y, it.z[1])
	}
	paths = append(paths, pth)
	z := s.current().z
	return sims.CanvasChart{
		Title:    "p(b, w | y) vs q_k",
		View:     sims.Rect{XMin: s.lo[0], XMax: s.hi[0], YMin: s.lo[1], YMax: s.hi[1]},
		Heat:     s.heat,
		Contours: s.heat,
		Paths:    paths,
		Markers:  []sims.Marker{{X: z[0], Y: z[1], Glyph: '●', Class: 2}},
		Legend:   []string{"p", "q: 1σ, 2σ", "Newton"},
		XLabel:   "b (intercept)", YLabel: "w (slope)",
	}
}

// marginalChart is the slope's marginal: p's (from the grid) against q's
// N(m_w, Σ_ww).
func (s *laplaceSim) marginalChart() sims.LineChart {
	g := s.grid
	// The grid's cells along w, restricted to the window.
	var ys, qs []float64
	x0, x1 := math.NaN(), 0.0
	mean, cov, ok := s.taylor()
	for k, p := range s.margW {
		w := g.Lo[1] + (float64(k)+0.5)*g.Cell[1]
		if w < s.lo[1] || w > s.hi[1] {
			continue
		}
		if math.IsNaN(x0) {
			x0 = w
		}
		x1 = w
		ys = append(ys, p)
		if ok {
			u := w - mean[1]
			qs = append(qs, math.Exp(-u*u/(2*cov[1][1]))/math.Sqrt(2*math.Pi*cov[1][1]))
		}
	}
	ch := sims.LineChart{Title: "marginal of the slope w", X0: x0, X1: x1, XLabel: "w",
		Series: []sims.Series{{Name: "p(w | y)", Y: ys, Class: 0}}}
	if ok {
		ch.Series = append(ch.Series, sims.Series{Name: "q(w)", Y: qs, Class: 1})
	}
	return ch
}

// gradChart is |∇ log p| per iteration on a log scale: quadratic
// convergence doubles the digits each step, down to the noise floor of
// the gradients' scale (gradScale), where the line goes flat.
func (s *laplaceSim) gradChart() sims.LineChart {
	y := make([]float64, len(s.history))
	scale := s.gradScale()
	for k, it := range s.history {
		y[k] = sims.NoiseFloor(it.grad, scale)
	}
	return sims.LineChart{Title: "|∇ log p(z_k)|", LogY: true,
		Series: []sims.Series{{Name: "|∇ log p|", Y: y, Class: 0}},
		X0:     0, X1: float64(len(y) - 1), XLabel: "iteration k"}
}

// gradScale is the largest |∇ log p| of the iterations: the scale of the
// gradient's rounding error at the end.
func (s *laplaceSim) gradScale() float64 {
	m := 0.0
	for _, it := range s.history {
		m = math.Max(m, it.grad)
	}
	return m
}

// klChart is KL(p‖q_k) and KL(q_k‖p) (where finite) per iteration.
func (s *laplaceSim) klChart() sims.LineChart {
	var pq, qp []float64
	finiteQP := true
	for _, it := range s.history {
		if !it.klOK {
			pq, qp = append(pq, math.NaN()), append(qp, math.NaN())
			continue
		}
		pq = append(pq, it.kl.PQ)
		v := it.kl.QP
		if math.IsInf(v, 1) || it.kl.QBeyond > 1e-6 {
			finiteQP = false
		}
		qp = append(qp, v)
	}
	ch := sims.LineChart{Title: "KL(p‖q_k) and KL(q_k‖p)", LogY: true,
		Series: []sims.Series{{Name: "KL(p‖q_k)", Y: pq, Class: 0}},
		X0:     0, X1: float64(len(pq) - 1), XLabel: "iteration k"}
	if finiteQP {
		ch.Series = append(ch.Series, sims.Series{Name: "KL(q_k‖p)", Y: qp, Class: 1})
	}
	return ch
}

func fmtKL(d laplace.Divergences) (pq, qp string) {
	pq = strconv.FormatFloat(d.PQ, 'f', 4, 64)
	switch {
	case math.IsInf(d.QP, 1):
		qp = fmt.Sprintf("∞ (q puts %.2f%% of its mass where p = 0)", 100*d.QZero)
	case d.QBeyond > 1e-6:
		qp = "— (q reaches beyond the grid)"
	default:
		qp = strconv.FormatFloat(d.QP, 'f', 4, 64)
	}
	return pq, qp
}

func (s *laplaceSim) notes() []string {
	var lines []string
	switch {
	case s.chi != nil:
		k := s.chi.K()
		lines = append(lines, fmt.Sprintf("target χ²(%g): log p = (k/2 − 1) log z − z/2; mode k − 2 = %g, H = 1/(2(k − 2)): Laplace q = N(%g, %g).",
			k, k-2, k-2, 2*(k-2)),
			fmt.Sprintf("p itself has mean %g and variance %g and is skewed right: q sits left and misses the tail.", s.chi.Mean(), s.chi.Var()))
	case s.d == 1:
		lines = append(lines, "Example 3.4: log p(w|y) = −w²/(2τ²) + Σ(y_n w x_n − log(1 + e^{w x_n})); Newton with (3.4) and (3.5);", "data: "+s.data+".")
	default:
		lines = append(lines, "logistic posterior over θ = (b, w): θ ~ N(0, τ²I), p(y = 1 | x) = σ(b + wx);", "data: "+s.data+".")
	}
	lines = append(lines, "Newton: z ← z − t(∇²log p)⁻¹∇log p (t halved while the step lowers log p or leaves the support);",
		"q_k: the Gaussian of the Taylor expansion at z_k, centred where the full step lands; at the mode, Laplace's q.")
	it := s.current()
	if it.klOK {
		pq, qp := fmtKL(it.kl)
		which := "q_k"
		if s.converged() {
			which = "q"
		}
		lines = append(lines, fmt.Sprintf("KL(p‖%s) = %s, KL(%s‖p) = %s", which, pq, which, qp))
	}
	if s.converged() {
		cov, _ := s.nw.Laplace()
		if s.d == 1 {
			lines = append(lines, fmt.Sprintf("converged: q = N(%.6g, %.6g); the grid-normalised p has mean %.4g, variance %.4g.",
				it.z[0], cov[0][0], s.pMean[0], s.pCov[0][0]))
		} else {
			lines = append(lines, fmt.Sprintf("converged: mode (%.4g, %.4g), posterior mean (%.4g, %.4g): the skew moves the mean off the mode.",
				it.z[0], it.z[1], s.pMean[0], s.pMean[1]))
		}
	}
	// The table of the last iterations; the Hessian as (h₁₁, h₁₂, h₂₂).
	// Its columns are as wide as their widest cell (a 1-D z_k is one
	// number, a 2-D one a pair), numbers right-aligned.
	rows := [][]string{{"k", "z_k", "log p", "|∇log p|", "∇²log p", "t"}}
	from, scale := max(0, len(s.history)-tableLen), s.gradScale()
	for k := from; k < len(s.history); k++ {
		it := s.history[k]
		t := "—"
		if k > 0 {
			t = strconv.FormatFloat(it.t, 'g', 3, 64)
			if !it.newton {
				t += " (gradient step)"
			}
		}
		h := it.hess
		if s.d == 2 {
			h = []float64{h[0], h[1], h[3]}
		}
		rows = append(rows, []string{strconv.Itoa(k), fmtVec(it.z, 6), strconv.FormatFloat(it.logp, 'g', 5, 64),
			sims.Residual("%.3g", it.grad, scale), fmtVec(h, 4), t})
	}
	return append(lines, alignColumns(rows, []bool{true, false, true, true, false, false})...)
}

// alignColumns writes rows as lines of columns two spaces apart, each as
// wide as its widest cell: right-aligned where right[j], else left (the
// last column unpadded).
func alignColumns(rows [][]string, right []bool) []string {
	width := make([]int, len(right))
	for _, r := range rows {
		for j, c := range r {
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		var b strings.Builder
		for j, c := range r {
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(c))
			if j > 0 {
				b.WriteString("  ")
			}
			switch {
			case right[j]:
				b.WriteString(pad + c)
			case j < len(r)-1:
				b.WriteString(c + pad)
			default:
				b.WriteString(c)
			}
		}
		out[i] = b.String()
	}
	return out
}

// fmtVec prints a short vector with sig significant digits.
func fmtVec(x []float64, sig int) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strconv.FormatFloat(v, 'g', sig, 64)
	}
	if len(x) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Result reports the iterate, the gradient norm, the Laplace covariance
// −(∇² log p)⁻¹ at it (null where not positive definite), the target's
// mean and covariance on the grid, and the divergences (null when
// infinite or not computable).
func (s *laplaceSim) Result() map[string]any {
	it := s.current()
	res := map[string]any{
		"iterations": s.nw.Iter(),
		"mode":       it.z,
		"grad_norm":  it.grad,
		"converged":  s.converged(),
		"cov":        nil,
		"p_mean":     s.pMean,
		"p_cov":      s.pCov,
		"kl_pq":      nil,
		"kl_qp":      nil,
	}
	if cov, ok := s.nw.Laplace(); ok {
		res["cov"] = cov
	}
	if it.klOK {
		res["kl_pq"] = it.kl.PQ
		if !math.IsInf(it.kl.QP, 0) && it.kl.QBeyond <= 1e-6 {
			res["kl_qp"] = it.kl.QP
		}
		res["q_mass_where_p_is_zero"] = it.kl.QZero
	}
	return res
}
