package trustsim

import (
	"fmt"
	"github.com/thelab/lab/algo/tensor"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/robust"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/mat"
)

// robust-regression's parameters.
var (
	rrN     = param.Int("n", 60, "rows of the regression (Gaussian features)").Range(10, 5000)
	rrD     = param.Int("d", 8, "features; the true coefficients are 3, −2, 1.5 and then zeros").Range(3, sims.MaxClasses)
	rrNoise = param.Float("noise", 1, "standard deviation of the noise on y").Range(0, 10)
	rrPath  = param.Int("path", 30, "values of λ on the log grid from λ_max down to ratio·λ_max (then λ = 0)").Range(3, 200)
	rrRatio = param.Float("ratio", 0.01, "λ_min/λ_max, the end of the path before λ = 0").Range(1e-4, 0.5)
	rrEta   = param.Float("eta", 1, "η of the Huber loss M^η (the Moreau envelope of |·|)").Range(0.05, 3)
	rrClip  = param.Float("clip", 2, "c of the clipped loss min(½t², c), ψ(η) = c(1 − η)").Range(0.1, 4.5)
	rrTol   = param.Float("tol", 1e-10, "a λ is solved when a sweep moves no coefficient more than tol").Range(1e-14, 1e-3)
)

// RobustReg runs the min-max regression of seed 001 §17 (L1561–L1571) as
// the square-root Lasso along a path of λ, each step one sweep of exact
// coordinate descent, with the worst-case column perturbation checked
// against random feasible ones, and the Huber and clipped losses of
// L1573–L1581 ([A34]–[A35], erratum E28 avoided).
var RobustReg = &sims.Spec{
	Name:   "robust-regression",
	Title:  "Robust regression = square-root Lasso: the λ path to exact zeros; Huber and clipped losses",
	Source: "seed 001 §17 L1561–L1581 ([A34], [A35]; erratum E28)",
	Steps:  400,
	Speed:  10,
	Params: param.List(rrN, rrD, rrNoise, rrPath, rrRatio, rrEta, rrClip, rrTol),
	New:    newRobustReg,
	Size:   robustRegSize,

	Metrics: robustRegMetrics,
}

// robustRegSize is, a row at a time, the Lasso's columns and the worst-
// case perturbation (d values each), the targets, residuals and the
// least squares' workspace (measured: 8(2d + 6) bytes); the path's trace
// of 4 + d columns with the Frame's copies of its path + 1 rows; and the
// curves and gonum's pooled workspaces (measured).
func robustRegSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, d, rows := int64(rrN.Get(v)), rrD.Get(v), rrPath.Get(v)+2
	return 96<<10 + 8*n*(2*int64(d)+6) + 8*sims.TraceCap*int64(4+d) + int64(4+d)*tensor.Alloc(rows)
}

// rrMaxSweeps bounds the sweeps at one λ (the path moves on regardless).
const rrMaxSweeps = 2000

// rrRandomZ is the number of random feasible perturbations drawn at each
// solved λ.
const rrRandomZ = 100

type robustRegSim struct {
	lasso     *robust.SqrtLasso
	lambdas   []float64 // the path, ending with 0
	at        int       // index of the current λ
	atSweeps  int       // sweeps at the current λ
	ols       []float64
	d         int
	path      *sims.Trace // log10 λ, F, worst-case loss, best random loss, then w_1..w_d
	z         [][]float64
	rng       *rand.Rand
	eta, clip float64
	tol       float64
	done      bool
	lastRand  float64
}

func newRobustReg(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	n, d := rrN.Get(v), rrD.Get(v)
	x, y := robust.Sparse(streamRNG(cfg.Seed, dataStream), n, d, rrNoise.Get(v))
	lasso, err := robust.NewSqrtLasso(x, n, d, y, 0)
	if err != nil {
		return nil, err
	}
	s := &robustRegSim{lasso: lasso, d: d, eta: rrEta.Get(v), clip: rrClip.Get(v), tol: rrTol.Get(v),
		rng: streamRNG(cfg.Seed, drawStream), path: sims.NewTrace(0, 4+d)}
	var ols mat.VecDense
	if err := ols.SolveVec(mat.NewDense(n, d, x), mat.NewVecDense(n, y)); err != nil {
		return nil, fmt.Errorf("least squares: %w", err)
	}
	s.ols = ols.RawVector().Data
	lmax, k := lasso.LambdaMax(), rrPath.Get(v)
	for i := range k {
		s.lambdas = append(s.lambdas, lmax*math.Pow(rrRatio.Get(v), float64(i)/float64(k-1)))
	}
	s.lambdas = append(s.lambdas, 0)
	s.z = make([][]float64, d)
	for j := range s.z {
		s.z[j] = make([]float64, n)
	}
	return s, lasso.SetLambda(s.lambdas[0])
}

func (s *robustRegSim) Step() error {
	if s.done {
		return sims.ErrConverged
	}
	change := s.lasso.Step()
	s.atSweeps++
	if change > s.tol && s.atSweeps < rrMaxSweeps {
		return nil
	}
	s.record()
	if s.at++; s.at == len(s.lambdas) {
		s.done = true
		return sims.ErrConverged
	}
	s.atSweeps = 0
	return s.lasso.SetLambda(s.lambdas[s.at])
}

// record adds the solved λ to the path: the objective, the loss of the
// worst-case perturbation and the largest of rrRandomZ random feasible
// ones, and the coefficients. λ = 0 is drawn at the path's left end.
func (s *robustRegSim) record() {
	w := s.lasso.W()
	worst := s.lasso.Perturbed(s.lasso.WorstCase(w), w)
	s.lastRand = 0
	for range rrRandomZ {
		s.lasso.RandomFeasible(s.z, s.rng)
		s.lastRand = math.Max(s.lastRand, s.lasso.Perturbed(s.z, w))
	}
	row := []float64{s.logLambda(s.at), s.lasso.Objective(), worst, s.lastRand}
	s.path.Add(append(row, w...)...)
}

// logLambda is where λ_i is drawn: log10 λ, with λ = 0 half a grid step
// left of the smallest positive λ.
func (s *robustRegSim) logLambda(i int) float64 {
	if s.lambdas[i] > 0 {
		return math.Log10(s.lambdas[i])
	}
	k := len(s.lambdas) - 1
	return math.Log10(s.lambdas[k-1]) - 0.5*(math.Log10(s.lambdas[0])-math.Log10(s.lambdas[k-1]))/float64(k-1)
}

func (s *robustRegSim) Frame() sims.Frame {
	w := s.lasso.W()
	worst := s.lasso.Perturbed(s.lasso.WorstCase(w), w)
	metrics := []sims.Metric{
		{Name: "lambda", Value: s.lasso.Lambda()},
		{Name: "objective", Value: s.lasso.Objective()},
		{Name: "worst_case", Value: worst},
		{Name: "random_max", Value: s.lastRand},
		{Name: "nonzeros", Value: float64(s.lasso.Nonzeros())},
		{Name: "sweeps", Value: float64(s.lasso.Sweeps())},
	}
	if s.done {
		metrics = append(metrics, sims.Metric{Name: "ols_gap", Value: s.olsGap()})
	}
	return sims.Frame{
		Sim: RobustReg.Name, Step: s.lasso.Sweeps(), Metrics: metrics,
		Charts: []sims.Chart{s.coefChart(), s.lossChart(), s.huberChart()},
		Text:   s.notes(worst),
	}
}

// olsGap is max_j |w_j − w_OLS,j| (at λ = 0 the √-Lasso is least squares).
func (s *robustRegSim) olsGap() float64 {
	g := 0.0
	for j, w := range s.lasso.W() {
		g = math.Max(g, math.Abs(w-s.ols[j]))
	}
	return g
}

// xView is the path's horizontal extent, log10 λ.
func (s *robustRegSim) xView() (float64, float64) {
	return s.logLambda(len(s.lambdas) - 1), math.Log10(s.lambdas[0])
}

// coefChart draws each w_j against log10 λ, the current λ dotted, OLS at
// the left as crosses.
func (s *robustRegSim) coefChart() sims.CanvasChart {
	x0, x1 := s.xView()
	lx := s.path.Column(0)
	lo, hi := 0.0, 0.0
	for _, w := range s.ols {
		lo, hi = math.Min(lo, w), math.Max(hi, w)
	}
	view := sims.Rect{XMin: x0, XMax: x1, YMin: lo, YMax: hi}.Pad(0.05)
	c := sims.CanvasChart{Title: "coefficients w_j against log₁₀ λ (× OLS)", View: view, XLabel: "log₁₀ λ", YLabel: "w"}
	for j := range s.d {
		c.Paths = append(c.Paths, sims.Path{X: lx, Y: s.path.Column(4 + j), Class: j})
		c.Legend = append(c.Legend, fmt.Sprintf("w%d", j+1))
		c.Markers = append(c.Markers, sims.Marker{X: x0, Y: s.ols[j], Glyph: '×', Class: j})
	}
	if !s.done {
		c.Paths = append(c.Paths, vline(s.logLambda(s.at), view.YMin, view.YMax, 9))
	}
	return c
}

// lossChart draws the √-Lasso objective, the loss of the worst-case
// perturbation (equal: dotted over it) and the largest of the random
// feasible ones (below) along the path.
func (s *robustRegSim) lossChart() sims.CanvasChart {
	x0, x1 := s.xView()
	lx := s.path.Column(0)
	obj := s.path.Column(1)
	hi := 0.0 // the highest of the three curves
	for _, col := range [][]float64{obj, s.path.Column(2), s.path.Column(3)} {
		for _, v := range col {
			hi = math.Max(hi, v)
		}
	}
	if hi == 0 {
		hi = s.lasso.Objective()
	}
	// Padded, and the latest λ's three values marked: the first λ of the
	// path is one point, which a line does not draw, at the view's edge.
	view := sims.Rect{XMin: x0, XMax: x1, YMin: 0, YMax: hi * 1.05}.Pad(0.04)
	var marks []sims.Marker
	if n := len(lx); n > 0 {
		// A glyph each, told apart without colour.
		for k, col := range [][]float64{obj, s.path.Column(2), s.path.Column(3)} {
			marks = append(marks, sims.Marker{X: lx[n-1], Y: col[n-1], Glyph: []rune("●▲■")[k], Class: k})
		}
	}
	return sims.CanvasChart{Title: "robust loss along the path", View: view, XLabel: "log₁₀ λ",
		Legend: []string{"‖r‖+λ‖w‖₁", "worst Z", "best random Z"},
		Paths: []sims.Path{
			{X: lx, Y: obj, Class: 0},
			{X: lx, Y: s.path.Column(2), Class: 1, Dotted: true},
			{X: lx, Y: s.path.Column(3), Class: 2},
		},
		Markers: marks}
}

// huberChart draws |t|-type losses over t: η|t| (dotted), the envelope
// M^η, ½t² (dotted) and the clipped min(½t², c), with the joins at ±η.
func (s *robustRegSim) huberChart() sims.CanvasChart {
	const t0, t1, n = -3, 3, 121
	eta, c := s.eta, s.clip
	view := sims.Rect{XMin: t0, XMax: t1, YMin: 0, YMax: 3.2}
	return sims.CanvasChart{Title: fmt.Sprintf("Huber = Moreau envelope, η = %g", eta), View: view, XLabel: "t",
		Legend: []string{"η|t|", "M^η(t)", "½t²", "min(½t², c)"},
		Paths: []sims.Path{
			curve(t0, t1, n, func(t float64) float64 { return eta * math.Abs(t) }, 0, true),
			curve(t0, t1, n, func(t float64) float64 { return robust.Huber(t, eta) }, 1, false),
			curve(t0, t1, n, func(t float64) float64 { return t * t / 2 }, 2, true),
			curve(t0, t1, n, func(t float64) float64 { return robust.Clipped(t*t/2, c) }, 3, false),
		},
		Markers: []sims.Marker{
			{X: -eta, Y: robust.Huber(eta, eta), Glyph: '●', Class: 1},
			{X: eta, Y: robust.Huber(eta, eta), Glyph: '●', Class: 1},
		}}
}

func (s *robustRegSim) notes(worst float64) []string {
	lam := s.lasso.Lambda()
	lines := []string{
		fmt.Sprintf("λ = %.4g (%d of %d): max_{‖z_j‖≤λ} ‖(X+Z)w − y‖ = ‖r‖ + λ‖w‖₁ = %.6g",
			lam, min(s.at+1, len(s.lambdas)), len(s.lambdas), s.lasso.Objective()),
		fmt.Sprintf("  at z_j = λ sgn(w_j) r/‖r‖: %.6g; %d random feasible Z at the last solved λ: ≤ %.6g",
			worst, rrRandomZ, s.lastRand),
		fmt.Sprintf("Huber M^η(2) = %.4g at η = %g: η|t| − ½η² for |t| ≥ η (not the notes' ½t²: E28)",
			robust.Huber(2, s.eta), s.eta),
	}
	if s.done {
		lines = append(lines, fmt.Sprintf("λ = 0: least squares, max |w − w_OLS| = %.2g", s.olsGap()))
	}
	return lines
}

func (s *robustRegSim) Result() map[string]any {
	return map[string]any{
		"lambda": s.lasso.Lambda(), "w": append([]float64(nil), s.lasso.W()...), "objective": s.lasso.Objective(),
		"worst_case": s.lasso.Perturbed(s.lasso.WorstCase(s.lasso.W()), s.lasso.W()), "random_max": s.lastRand, "nonzeros": s.lasso.Nonzeros(),
		"sweeps": s.lasso.Sweeps(), "ols": s.ols, "done": s.done,
	}
}
