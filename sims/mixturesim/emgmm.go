// Package mixturesim turns the engines of algo/mixture into sims: EM for a
// Gaussian mixture, k-means, and ancestral sampling of generative models.
package mixturesim

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// EMGMM is EM for a Gaussian mixture in the plane (seed 002 §2.3, Example
// 2.1): the points coloured by their most responsible component, each
// component's 1σ and 2σ ellipses and mean, and the log-likelihood per
// iteration, which EM never lets fall (eq 2.37). A step is a half-iteration,
// E or M, so that each phase can be watched.
//
// Beyond the basic fit (item B2 of the seed-002 catalogue) it shows:
//
//   - the "staircase" of §2.5 (B3): log p(x|θ) and the bound L(q, θ) after
//     every half-step, and the gap KL(q‖p(z|x,θ)) that each M-step opens and
//     the next E-step closes (eq 2.31), against the rise of log p, which
//     bounds it from above;
//   - restarts from fresh k-means++ centres, their log-likelihood curves
//     overlaid (Fig 2.3), keeping the best (EM finds a local maximum, §2.6);
//   - the εI limit of Exercise 2.2 (B4): with cov = spherical-fixed every
//     component is N(μ_k, εI) with equal weights, a k-means run from the same
//     centres goes along in lockstep, and the pane shows how hard the
//     responsibilities are and how many assignments agree with k-means;
//   - the degeneracy of §2.5 (B5): with reg = 0 a component can collapse onto
//     a point while the log-likelihood climbs towards +∞ (L842–852); the run
//     then ends as diverged, the pane marks the collapsed component and names
//     the remedy, the covariance floor of Remark 2.10.
var EMGMM = &sims.Spec{
	Name:   "em-gmm",
	Title:  "EM for a Gaussian mixture, one E- or M-step at a time",
	Source: "seed 002 §2.3–2.5 (EM for GMMs, eqs 2.12–2.15, ELBO 2.31, monotonicity 2.37, Ex 2.2, Remark 2.10)",
	Data:   dataHelp,
	Steps:  200,
	// One half-step a second: each E- and M-step stays on screen long
	// enough to see what it changed (colours, then ellipses).
	Speed: 1,
	// A short story (EM converges in about ten E- and M-steps: then the next seed's data).
	Replay: sims.ReplayPause,
	Params: param.List(emDemo, emK, mixClusters, emSep, emN, emCov, emEps, emReg, emInit, emRestarts, emTol, mixColumns),
	New:    newEMGMM,
	Size:   emSize,

	Metrics: emgmmMetrics,
}

// demo is a preset of em-gmm's defaults.
type demo string

func (d demo) String() string { return string(d) }

const (
	demoFit         demo = "fit"
	demoCollapse    demo = "collapse"
	demoKMeansLimit demo = "kmeans-limit"
)

// inDemo holds when the demo is d: the condition of a preset's default.
func inDemo(d demo) func(param.Values) bool {
	return func(v param.Values) bool { return emDemo.Get(v) == d }
}

// em-gmm's parameters.
var (
	emDemo = param.Choice("demo", []demo{demoFit, demoCollapse, demoKMeansLimit}, demoFit,
		"a preset of the defaults below: fit (Ex 2.1, K = 3, N = 400); collapse (reg = 0, N = 30, K = 6: "+
			"a component collapses onto a point, L842–852); kmeans-limit (Σ_k = εI fixed: EM → k-means as ε → 0, Ex 2.2)")
	emK = param.Int("k", 3, "number of mixture components K (at most the number of points)").Range(1, maxK).
		DefaultWhen(inDemo(demoCollapse), 6, "3; 6 for demo=collapse")
	emSep = param.Float("sep", 4,
		"least distance between the true means, in s.d. of the widest cluster: 8 well apart, 4 touching").
		Range(0, mixture.MaxSep).BuiltInData()
	emN = param.Int("n", 400, "number of generated points").Range(20, 20000).
		DefaultWhen(inDemo(demoCollapse), 30, "400 as in Example 2.1; 30 for demo=collapse").BuiltInData()
	emCov = param.Choice("cov", []mixture.CovMode{mixture.CovFull, mixture.CovSphericalFixed}, mixture.CovFull,
		"full: learn π_k, μ_k, Σ_k; spherical-fixed: Σ_k = εI and π_k = 1/K fixed, learn μ_k only (Exercise 2.2)").
		DefaultWhen(inDemo(demoKMeansLimit), mixture.CovSphericalFixed, "full; spherical-fixed for demo=kmeans-limit")
	emEps = param.Float("eps", 0.5,
		"cov=spherical-fixed: ε = eps·s² (s² the data's variance); as eps → 0 the responsibilities harden into k-means").
		Range(mixture.MinEps, mixture.MaxEps)
	emReg = param.Float("reg", mixture.DefaultReg,
		"covariance floor: Σ_k ⪰ reg·s²·I, s² the data's variance (Remark 2.10); 0 lets a component collapse, else at least 1e-9").
		Range(0, 1).
		DefaultWhen(inDemo(demoCollapse), 0, "1e-6; 0 for demo=collapse")
	emInit = param.Choice("init", []mixture.InitMode{mixture.InitKMeans, mixture.InitPlusPlus}, mixture.InitPlusPlus,
		"the start: k-means++ starts at the k-means++ centres, equal weights, round covariances, so that EM's whole "+
			"climb is on screen; kmeans runs k-means from them first, then one M-step from its clusters (scikit-learn's "+
			"default: EM then starts next to its optimum, its staircase a few 1e-5 nats high); cov=spherical-fixed starts at the centres either way")
	emRestarts = param.Int("restarts", 1,
		"EM runs from fresh k-means++ centres, one after another; the best log-likelihood is kept").Range(1, maxRestarts)
	emTol = param.Float("tol", mixture.DefaultTol,
		"stop a run when an iteration raises the mean log-likelihood by less than tol nats").Range(0, 1)
)

const maxRestarts = 20

// monoSlack is the relative fall of the log-likelihood tolerated as rounding
// before the pane reports a breach of (2.37); the engine's tests use the same.
const monoSlack = 1e-9

// hardBins is the number of bins of the histogram of max_k γ_nk.
const hardBins = 20

// emRun is one EM run from one k-means++ start, with what its charts need.
// A finished run keeps its curves frozen (finish), shared by every Frame
// since they no longer change, not as Traces with a Trace's full room;
// one that is neither the best nor on screen is drawn by its
// log-likelihood curve only: its engines (their n×K responsibilities) and
// other curves are dropped (release), its final log-likelihoods kept.
type emRun struct {
	em     *mixture.EM     // nil once released
	km     *mixture.KMeans // cov=spherical-fixed: k-means from the same centres
	kmDone bool            // km has converged
	ll     *sims.Trace     // mean log-likelihood per iteration
	stair  *sims.Trace     // per half-step: log p and L(q, θ), per point
	gap    *sims.Trace     // per M-step: the rise of log p and KL(q‖p(z|x,θ)), per point
	// The three, frozen once the run has finished (the Traces are then nil).
	llF, stairF, gapF frozen
	// The worst fall of the log-likelihood between iterations, relative,
	// and where it happened (0 when none beyond monoSlack).
	worstFall float64
	worstIter int
	// The run's log-likelihood and its mean per point, once it has
	// converged.
	logLik, meanLogLik float64
}

type emSim struct {
	data     *pointData
	cfg      mixture.Config
	seed     uint64
	workers  int // sims.Config.Workers
	restarts int
	view     sims.Rect

	runs  []*emRun
	cur   int  // the run that is stepping
	best  int  // the best finished run, −1 before one finishes
	done  bool // every restart has finished: the best is on screen
	steps int  // successful Steps

	collapsed bool // the current run ended with a collapsed component
}

// emSize is what em-gmm holds: its points, the engines of the current run
// and, with restarts, of the best (each with its k-means twin when
// cov=spherical-fixed), the assignment a Frame colours the points by, the
// current run's Traces (log-likelihood, staircase, gap: five columns) with
// their copies in a Frame, the best run's frozen curves (five, of its
// half-steps) and each finished run's log-likelihood, the Frame's ellipses
// (a few hundred points a component), and a measured base (the histogram,
// the notes).
func emSize(c sims.Config) int64 {
	v := c.Values
	n, d := pointsOf(c, emN.Get(v))
	k, restarts := emK.Get(v), int64(emRestarts.Get(v))
	engine := mixture.EMBytes(n, d, k)
	if emCov.Get(v) == mixture.CovSphericalFixed {
		engine += mixture.KMeansBytes(n, d)
	}
	iters := emIters(n, k)
	rows := min(2*iters, sims.TraceCap) // a run's half-steps
	b := engine + 8*5*(sims.TraceCap+rows)
	if restarts > 1 {
		b += engine + 8*5*rows
	}
	return b + pointsBytes(n, d) + algo.HeapBytes(8*int64(n)) + restarts*(8*iters+256) + int64(k)*5<<9 + 8<<10
}

// emIters is the iterations of an EM run on n points with k components
// that a Frame's copies of its Traces and a finished run's curves are
// charged for (a Trace's own room, sims.TraceCap rows, is charged in
// full). They are not bounded: runs take a few dozen iterations at n =
// 400, K = 3, 500 to 1,000 at n = 20,000, K = 10, and as many with K = 10
// on 400 points of 3 clusters, where 20 restarts hold 590 KiB against 545
// estimated (their curves, 150 KiB; the test's 4 steps of 20 restarts at
// K = 3 bound the estimate of their curves).
func emIters(n, k int) int64 {
	return int64(min(50+n/20+30*k, sims.TraceCap))
}

func newEMGMM(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	data, err := loadPoints(cfg, emN.Get(v), emSep.Get(v))
	if err != nil {
		return nil, err
	}
	s := &emSim{
		data: data, seed: cfg.Seed, workers: cfg.Workers, restarts: emRestarts.Get(v), best: -1,
		cfg: mixture.Config{K: emK.Get(v), Reg: emReg.Get(v), Tol: emTol.Get(v), Cov: emCov.Get(v), Eps: emEps.Get(v),
			Init: emInit.Get(v)},
	}
	if err := s.startRun(0); err != nil {
		return nil, err
	}
	s.view = sims.Bounds(data.x, data.y).Pad(0.05)
	return s, nil
}

// startRun builds run r from its own k-means++ start.
func (s *emSim) startRun(r int) error {
	em, err := mixture.New(s.data.points, s.cfg, initRNG(s.seed, r))
	if err != nil {
		return err
	}
	em.SetWorkers(s.workers)
	run := &emRun{em: em, ll: sims.NewTrace(0, 1), stair: sims.NewTrace(1, 2), gap: sims.NewTrace(1, 2)}
	run.ll.Add(em.MeanLogLik())
	if s.cfg.Cov == mixture.CovSphericalFixed {
		// The same rng state gives the same centres (mixture.plusPlus).
		if run.km, err = mixture.NewKMeans(s.data.points, s.cfg.K, initRNG(s.seed, r)); err != nil {
			return err
		}
		run.km.SetWorkers(s.workers)
	}
	s.runs = append(s.runs, run)
	s.cur = r
	return nil
}

// Step takes one half-step of the current run. When a run converges and
// restarts remain, the step starts the next run instead; after the last,
// the best run is put on screen and ErrConverged returned.
func (s *emSim) Step() error {
	if s.done {
		return algo.ErrConverged
	}
	run := s.runs[s.cur]
	err := run.em.Step()
	switch {
	case errors.Is(err, algo.ErrConverged):
		run.logLik, run.meanLogLik = run.em.LogLik(), run.em.MeanLogLik()
		run.finish()
		if s.best < 0 || run.logLik > s.runs[s.best].logLik {
			s.best = s.cur
		}
		if s.cur+1 < s.restarts {
			if err := s.startRun(s.cur + 1); err != nil {
				return err
			}
			s.release()
			s.steps++
			return nil
		}
		s.done = true
		s.release()
		return err
	case err != nil:
		if _, ok := run.em.Collapsed(); ok {
			s.collapsed = true
		}
		return err
	}
	s.steps++
	s.record(run)
	return nil
}

// frozen is the columns and span of a finished run's Trace.
type frozen struct {
	x0, x1 float64
	cols   [][]float64
}

// freeze copies t's columns and span.
func freeze(t *sims.Trace, cols int) frozen {
	f := frozen{cols: make([][]float64, cols)}
	f.x0, f.x1 = t.Span()
	for c := range f.cols {
		f.cols[c] = t.Column(c)
	}
	return f
}

// curves is a run's Trace as a Frame draws it: copied from the Trace while
// the run goes on, its frozen copy once it has finished.
func curves(t *sims.Trace, f frozen, cols int) frozen {
	if t != nil {
		return freeze(t, cols)
	}
	return f
}

// finish freezes the finished run's Traces.
func (r *emRun) finish() {
	r.llF, r.stairF, r.gapF = freeze(r.ll, 1), freeze(r.stair, 2), freeze(r.gap, 2)
	r.ll, r.stair, r.gap = nil, nil, nil
}

// release drops the engines of the finished runs that are neither the
// best nor the current one: 20 restarts at n = 20,000, K = 10 held 20
// engines of 6.6 MB each.
func (s *emSim) release() {
	for i, r := range s.runs {
		if i != s.best && i != s.cur {
			r.em, r.km, r.stairF, r.gapF = nil, nil, frozen{}, frozen{}
		}
	}
}

// record adds the last half-step to the run's traces and keeps the k-means
// run in lockstep: its assignment with EM's E-step, its update with the M-step.
func (s *emSim) record(run *emRun) {
	e := run.em
	n := float64(e.N())
	elbo, _ := e.ELBO()
	run.stair.Add(e.MeanLogLik(), elbo/n)
	last, _ := e.Last()
	if last == mixture.MStep {
		tr := e.Trace()
		t := len(tr) - 1
		run.ll.Add(tr[t])
		run.gap.Add(tr[t]-tr[t-1], e.MeanLogLik()-elbo/n)
		if fall := (tr[t-1] - tr[t]) / math.Abs(tr[t-1]); fall > monoSlack && fall > run.worstFall {
			run.worstFall, run.worstIter = fall, t
		}
	}
	if run.km != nil && !run.kmDone {
		if err := run.km.Step(); err != nil {
			run.kmDone = true // converged: its assignments no longer change
		}
	}
}

// shown is the run on screen: the current one, or the best once all are done.
func (s *emSim) shown() *emRun {
	if s.done {
		return s.runs[s.best]
	}
	return s.runs[s.cur]
}

func (s *emSim) Frame() sims.Frame {
	run := s.shown()
	e := run.em
	k := e.K()
	comps := e.Components()
	collapsed, isCollapsed := -1, false
	if s.collapsed {
		collapsed, isCollapsed = e.Collapsed()
	}
	paths := make([]sims.Path, 0, 2*k)
	markers := make([]sims.Marker, 0, 2*k+len(s.data.truth))
	legend := make([]string, k)
	means := make([][2]float64, k) // where the pane draws them
	for j, c := range comps {
		mx, my := s.data.at(c.Mean)
		means[j] = [2]float64{mx, my}
		sxx, sxy, syy := s.data.cov(c.Cov)
		paths = append(paths, sims.Ellipse(mx, my, sxx, sxy, syy, 1, j))
		two := sims.Ellipse(mx, my, sxx, sxy, syy, 2, j)
		two.Dotted = true
		paths = append(paths, two)
		legend[j] = compLegend(j, c.Weight, k)
		if j == collapsed && isCollapsed {
			legend[j] = fmt.Sprintf("%d: collapsed", j+1)
		}
	}
	for _, c := range s.data.truth {
		markers = append(markers, sims.Marker{X: c.Mean[0], Y: c.Mean[1], Glyph: '×', Class: -1})
	}
	if run.km != nil {
		for _, c := range run.km.Centers() {
			x, y := s.data.at(c)
			markers = append(markers, sims.Marker{X: x, Y: y, Glyph: '○', Class: -1})
		}
	}
	for j, m := range means {
		g := '✚'
		if j == collapsed && isCollapsed {
			g = '✖'
		}
		markers = append(markers, sims.Marker{X: m[0], Y: m[1], Glyph: g, Class: j})
	}

	ll := e.MeanLogLik()
	metrics := []sims.Metric{{Name: "loglik", Value: ll}}
	elbo, hasQ := e.ELBO()
	assign := e.Assign(nil)
	var hard, agree float64
	if hasQ && run.km != nil {
		// The εI limit's own measures first: they are its point.
		hard, agree = s.hardness(run, assign)
		metrics = append(metrics, sims.Metric{Name: "hard", Value: hard}, sims.Metric{Name: "agree", Value: agree})
	}
	n := float64(e.N())
	roundScale := meanScale(n, ll)
	if tr := e.Trace(); len(tr) > 1 {
		metrics = append(metrics, sims.Metric{Name: "delta", Value: tr[len(tr)-1] - tr[len(tr)-2], Scale: roundScale})
	}
	if hasQ {
		metrics = append(metrics, sims.Metric{Name: "elbo", Value: elbo / n}, sims.Metric{Name: "kl", Value: ll - elbo/n, Scale: roundScale})
	}
	metrics = append(metrics, sims.Metric{Name: "iter", Value: float64(e.Iter())})
	if s.restarts > 1 {
		metrics = append(metrics, sims.Metric{Name: "run", Value: float64(s.cur + 1)})
	}

	title := fmt.Sprintf("%d points, K = %d (1σ, 2σ ellipses)", e.N(), k)
	if s.data.plane != nil {
		title = fmt.Sprintf("%d points in %d-D, K = %d (1σ, 2σ marginals)", e.N(), e.Dim(), k)
	}
	switch {
	case isCollapsed:
		title = fmt.Sprintf("✖ Σ_%d collapsed: det → 0", collapsed+1)
	case run.km != nil:
		title = fmt.Sprintf("N(μ_k, εI), ε = %.3g; ○ k-means", e.Eps())
	}
	charts := []sims.Chart{
		sims.CanvasChart{
			Title: title,
			View:  s.view,
			Points: []sims.PointSet{{
				Name: "data", X: s.data.x, Y: s.data.y, Classes: assign,
			}},
			Paths:   paths,
			Markers: markers,
			Legend:  legend,
			XLabel:  s.data.xLabel, YLabel: s.data.yLabel,
		},
		s.staircase(run),
	}
	if run.km != nil && hasQ && k > 1 {
		charts = append(charts, s.hardHist(run))
	}
	if s.restarts > 1 {
		charts = append(charts, s.runsChart())
	}
	charts = append(charts, s.gapChart(run))
	return sims.Frame{
		Sim:     EMGMM.Name,
		Step:    s.steps,
		Metrics: metrics,
		Charts:  charts,
		Text:    s.notes(run, ll, elbo, hasQ, hard, agree, collapsed, isCollapsed),
	}
}

// compLegend names a component and its weight, briefly when there are many.
func compLegend(j int, w float64, k int) string {
	if k > 5 {
		return fmt.Sprintf("%d:%.2f", j+1, w)
	}
	return fmt.Sprintf("%d: π=%.2f", j+1, w)
}

// staircase draws log p and L(q, θ) per half-step: equal after an E-step
// (2.34), L below log p after an M-step (2.36–2.37).
func (s *emSim) staircase(run *emRun) sims.Chart {
	c := curves(run.stair, run.stairF, 2)
	return sims.LineChart{
		Title: "staircase: log p and L(q,θ)",
		Series: []sims.Series{
			{Name: "log p(x|θ)", Y: c.cols[0], Class: 0},
			{Name: "L(q,θ)", Y: c.cols[1], Class: 1},
		},
		X0: c.x0, X1: c.x1,
		XLabel: "half-step", YLabel: "nats/point",
	}
}

// gapChart draws, after each M-step, the gap KL(q‖p(z|x,θ_new)) that the
// M-step opened, under the rise of log p it bounds: log p_new − log p_old =
// (L(q,θ_new) − log p_old) + KL ≥ KL.
func (s *emSim) gapChart(run *emRun) sims.Chart {
	c := curves(run.gap, run.gapF, 2)
	return sims.LineChart{
		Title: "gap after each M-step",
		Series: []sims.Series{
			{Name: "Δ log p", Y: c.cols[0], Class: 0, Bound: true},
			{Name: "KL(q‖p(z|x,θ))", Y: c.cols[1], Class: 2},
		},
		LogY: true,
		X0:   c.x0, X1: c.x1,
		XLabel: "iteration", YLabel: "nats/point",
	}
}

// runsChart overlays the log-likelihood curves of the restarts (Fig 2.3).
func (s *emSim) runsChart() sims.Chart {
	series := make([]sims.Series, len(s.runs))
	longest := 0
	for r, run := range s.runs {
		name := "log p"
		if s.restarts > 1 {
			name = fmt.Sprintf("run %d", r+1)
			if r == s.best {
				name += " (best)"
			}
		}
		y := curves(run.ll, run.llF, 1).cols[0]
		longest = max(longest, len(y))
		series[r] = sims.Series{Name: name, Y: y, Class: r}
	}
	title := "mean log-likelihood"
	if s.restarts > 1 {
		title = fmt.Sprintf("log-likelihood, %d of %d runs", len(s.runs), s.restarts)
	}
	return sims.LineChart{
		Title: title, Series: series,
		X0: 0, X1: float64(max(longest-1, 0)),
		XLabel: "iteration", YLabel: "nats/point",
	}
}

// hardness returns the mean of max_k γ_nk and the fraction of points whose
// most responsible component is their k-means cluster.
func (s *emSim) hardness(run *emRun, assign []int) (hard, agree float64) {
	q, _ := run.em.Resp()
	k := run.em.K()
	km := run.km.Assign(nil)
	for i, a := range assign {
		hard += q[i*k+a]
		if km[i] == a {
			agree++
		}
	}
	n := float64(len(assign))
	return hard / n, agree / n
}

// centreGap is the largest distance between an EM mean and the k-means centre
// of the same index, in units of the data's scale s.
func (s *emSim) centreGap(run *emRun) float64 {
	d := 0.0
	for j, c := range run.km.Centers() {
		m, d2 := run.em.Component(j).Mean, 0.0
		for a, v := range c {
			d2 += (m[a] - v) * (m[a] - v)
		}
		d = max(d, math.Sqrt(d2))
	}
	return d / math.Sqrt(run.em.Scale())
}

// hardHist is the histogram of max_k γ_nk over the points, on [1/K, 1].
func (s *emSim) hardHist(run *emRun) sims.Chart {
	q, _ := run.em.Resp()
	k := run.em.K()
	lo := 1 / float64(k)
	counts := make([]float64, hardBins)
	for i := 0; i < run.em.N(); i++ {
		m := 0.0
		for _, g := range q[i*k : i*k+k] {
			m = max(m, g)
		}
		b := min(int((m-lo)/(1-lo)*hardBins), hardBins-1)
		counts[max(b, 0)]++
	}
	width := (1 - lo) / hardBins
	for b := range counts {
		counts[b] /= float64(run.em.N()) * width
	}
	return sims.HistChart{Title: "max_k γ_nk: soft → hard", Lo: lo, Hi: 1, Density: counts, XLabel: "responsibility of the nearest mean", Label: "points"}
}

// notes says which half-step was last, how the monotonicity check stands,
// the bound and its gap, and what the mode on screen shows.
func (s *emSim) notes(run *emRun, ll, elbo float64, hasQ bool, hard, agree float64, collapsed int, isCollapsed bool) []string {
	e := run.em
	var lines []string
	if isCollapsed {
		nk := e.Counts(nil)[collapsed]
		on := fmt.Sprintf("%.0f points (a line)", nk)
		if math.Round(nk) <= 1 {
			on = "one point"
		}
		lines = append(lines,
			fmt.Sprintf("⚠ component %d sits on %s: det Σ → 0, so N(x_n; μ, Σ) → ∞ and log p → +∞;", collapsed+1, on),
			"  EM climbed into it monotonically. Remedy: set reg > 0 (p, reg=1e-3): Σ_k ⪰ reg·s²·I (Remark 2.10)")
	}
	var phase string
	switch last, ok := e.Last(); {
	case !ok:
		phase = "start: k-means++ means, equal weights, round covariances; next: E-step"
	case last == mixture.EStep:
		phase = "E-step: responsibilities γ(z_nk) updated (eq 2.12), KL closed to 0; next: M-step"
	case e.Cov() == mixture.CovSphericalFixed:
		phase = "M-step: μ_k = γ-weighted means (eq 2.13), Σ_k = εI and π_k = 1/K fixed; next: E-step"
	default:
		phase = "M-step: π, μ, Σ updated (eqs 2.13–2.15), L rose, KL reopened; next: E-step"
	}
	if s.restarts > 1 {
		if s.done {
			phase = fmt.Sprintf("best of %d runs: run %d, log p = %.6g per point", s.restarts, s.best+1, e.MeanLogLik())
		} else {
			phase = fmt.Sprintf("run %d/%d · ", s.cur+1, s.restarts) + phase
		}
	}
	lines = append(lines, phase)
	switch {
	case run.worstFall > 0:
		lines = append(lines, fmt.Sprintf("⚠ the log-likelihood fell by %.2g (relative) at iteration %d: (2.37) is violated",
			run.worstFall, run.worstIter))
	case e.Iter() == 0:
		lines = append(lines, "monotonicity (2.37): the log-likelihood must never fall; watch the curve")
	default:
		lines = append(lines, "monotonicity (2.37) holds: the log-likelihood never fell in "+sims.Count(e.Iter(), "iteration"))
	}
	if hasQ {
		n := float64(e.N())
		lines = append(lines, fmt.Sprintf("per point: log p = %.6g = L(q,θ) %.6g + KL(q‖p) %s (eq 2.31)",
			ll, elbo/n, sims.Residual("%.2g", ll-elbo/n, meanScale(n, ll))))
	}
	if run.km != nil && hasQ {
		lines = append(lines, fmt.Sprintf("Ex 2.2: mean max γ = %.4f, %.1f%% of argmax γ agree with k-means (○, same start), means %.2g·s apart; eps → 0: 1, 100%%, 0",
			hard, 100*agree, s.centreGap(run)))
	}
	if j, ok := e.AtFloor(); ok && !isCollapsed {
		lines = append(lines, fmt.Sprintf("Σ_%d is held at the floor reg·s²·I: with reg = 0 it would collapse (Remark 2.10)", j+1))
	}
	if s.data.truth != nil {
		lines = append(lines, "× marks the true means of the generated data")
	}
	if s.data.note != "" {
		lines = append(lines, s.data.note)
	}
	return lines
}

func (s *emSim) Result() map[string]any {
	run := s.shown()
	e := run.em
	k := e.K()
	weights := make([]float64, k)
	means := make([][]float64, k)
	covs := make([][][]float64, k)
	for j, c := range e.Components() {
		weights[j], means[j], covs[j] = c.Weight, c.Mean, c.Cov
	}
	r := map[string]any{
		"weights":      weights,
		"means":        means,
		"covariances":  covs,
		"loglik_trace": append([]float64(nil), e.Trace()...),
		"loglik":       e.MeanLogLik(),
		"iterations":   e.Iter(),
		"half_steps":   e.HalfSteps(),
		"cov":          e.Cov().String(),
	}
	if s.restarts > 1 {
		finals := make([]float64, len(s.runs))
		for i, rr := range s.runs {
			finals[i] = rr.meanLogLik
			if i == s.cur && !s.done {
				finals[i] = rr.em.MeanLogLik() // still running
			}
		}
		r["restarts"] = s.restarts
		r["run"] = s.cur + 1
		r["best_run"] = s.best + 1
		r["run_logliks"] = finals
	}
	if j, ok := e.Collapsed(); ok && s.collapsed {
		r["collapsed_component"] = j + 1
	}
	if run.km != nil {
		if _, ok := e.ELBO(); ok {
			hard, agree := s.hardness(run, e.Assign(nil))
			r["mean_max_responsibility"] = hard
			r["kmeans_agreement"] = agree
		}
	}
	return r
}

// meanScale is the scale of rounding (sims.Metric.Scale) of a difference
// of two means over n points, the log-likelihood's rise or the gap KL
// between it and L(q,θ): each mean is summed in turn, so its rounding
// error reaches n·ε·|mean| (at n = 400 a gap of 3e-13 after an E-step, 0
// in exact arithmetic, is rounding, and reads ≈ 0).
func meanScale(n, mean float64) float64 { return n * math.Abs(mean) }
