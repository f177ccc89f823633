package otsim

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot/lp"
	"github.com/thelab/lab/algo/ot/sinkhorn"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Sinkhorn is entropic OT (seed 002 §5.4, eqs 5.8–5.12, L2263–2311):
// Sinkhorn's iterations, one u- and v-update per step, in the log domain
// (log-sum-exps, no underflow at any ε) or the plain one of (5.12), whose
// kernel exp(−C/ε) underflows for small ε and whose iterations then stall
// (the catalogue's λ = 1000 row): the marginal error ‖π1 − μ‖₁ on a log
// scale (a straight line: linear convergence), the plan sharpening as ε
// falls and blurring as it grows, ⟨C, π⟩ between the LP optimum and the
// independent coupling μνᵀ. ε is the weight of the entropy; the notes' λ
// multiplies the cost, and ε = 1/λ.
var Sinkhorn = &sims.Spec{
	Name:     "sinkhorn",
	Title:    "Sinkhorn: entropic OT, log or plain domain; marginal error, plan, cost against the LP",
	Source:   "seed 002 §5.4 (eqs 5.8–5.12, L2263–2311; ε = 1/λ, the catalogue's erratum for L2302)",
	Data:     dataNote,
	DataText: []sims.TextColumn{sideColumn},
	Steps:    2000,
	Speed:    1,
	Params:   param.List(skProblem, skEps, skDomain, skTol),
	New:      newSinkhorn,
	Size:     sinkhornSize,

	Metrics: sinkhornMetrics,
}

// skMaxAtoms bounds each side: a log-domain iteration on 1000 × 1000
// takes about 10 ms, and the sim keeps three n×m matrices (24 MB there).
const skMaxAtoms = 1000

// skLPCells is the most cells on which the exact LP is solved for the
// reference line (the transportation simplex: 11 ms at 100 × 100).
const skLPCells = 10000

// skPlanEvery: on a plan of more than skPlanCells cells a running pane
// recomputes the picture of the plan (n·m exponentials) only every
// skPlanEvery iterations; Settle brings it up to date.
const (
	skPlanCells = 250000
	skPlanEvery = 16
)

var (
	skPresets = []preset{preGaussHist, preThree, preEx54, preGauss1D, preGaussians, preMixtures, preBoxes, preMoonsRing}
	skProblem = newProblemParams(skPresets, preGaussHist, 100, 100, skMaxAtoms, false)
	skEps     = param.Float("eps", 0.01,
		"ε, the weight of the entropy in ⟨C,π⟩ − εH(π); the notes' λ = 1/ε multiplies the cost (K = exp(−λC)). "+
			"Small ε: a sharp plan near the LP's, slow convergence; large ε: a blurred plan, π → μνᵀ").
		Range(0, 1e9).OpenMin().
		DefaultFunc(func(v param.Values) float64 { return skDefaultEps[skProblem.Preset.Get(v)] },
			"0.1 for three and ex5.4, 0.01 for gauss-hist, 0.05 for moons-ring, 0.5 for the other clouds")
	skDomain = param.Choice("domain", []sinkhorn.Domain{sinkhorn.Log, sinkhorn.Plain}, sinkhorn.Log,
		"log: the potentials by log-sum-exps, stable at any ε; plain: (5.12) with K = exp(−C/ε), which underflows "+
			"below ε = max|C|/708 and then stalls")
	skTol = param.Float("tol", 1e-9, "stop when ‖π1 − μ‖₁ ≤ tol (0: run on)").Range(0, 1)
)

var skDefaultEps = map[preset]float64{
	preGaussHist: 0.01, preThree: 0.1, preEx54: 0.1, preGauss1D: 0.5, preGaussians: 0.5,
	preMixtures: 0.5, preBoxes: 0.5, preMoonsRing: 0.05,
}

// sinkhornSize is the problem, the engine (its own n×m matrix), the plan
// the pictures are drawn from with its row sums and its chart, in the plane
// the coupling's lines, and the trace of the error and the cost with its
// four curves (the LP and μνᵀ lines are as long). The exact LP of a small
// problem is garbage once solved.
func sinkhornSize(cfg sims.Config) int64 {
	n, m, dim := skProblem.atoms(cfg)
	size := skBase + problemBytes(n, m, dim) + sinkhorn.Footprint(n, m, skDomain.Get(cfg.Values)) +
		8*int64(n)*int64(m+1) + newPlanFrame(n, m).chartBytes(3) + sims.TraceBytesAfter(2, 4, sims.TraceCap)
	if dim == 2 {
		size += linesBytes(n * m)
	}
	return size
}

// skBase is what sinkhorn holds whatever its size: the sim, the Frame's
// charts and texts.
const skBase = 24 << 10

type skSim struct {
	p      *problem
	s      *sinkhorn.Sinkhorn
	f      planFrame
	l      layout
	trace  *sims.Trace // marginal error, cost
	lp     float64     // the LP optimum, NaN when not solved
	lpNote string
	indep  float64 // ⟨C, μνᵀ⟩
	warn   error   // CheckPlainEps in the plain domain
	plan   []float64
	heat   *sims.Grid // the plan's picture as of iteration heatIter
	rows   []float64  // π1 as of heatIter
	heatAt int
	stall  error // the UnderflowError that ended a plain run
	done   bool
}

func newSinkhorn(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	p, err := skProblem.load(cfg, 0x7369_6e6b) // "sink"
	if err != nil {
		return nil, err
	}
	if p.data && (p.N() > skMaxAtoms || p.M() > skMaxAtoms) {
		return nil, fmt.Errorf("--data: %d source and %d target atoms; sinkhorn takes at most %d a side", p.N(), p.M(), skMaxAtoms)
	}
	dom := skDomain.Get(v)
	s, err := sinkhorn.New(p.Mu, p.Nu, p.C, sinkhorn.Config{Eps: skEps.Get(v), Domain: dom, Tol: skTol.Get(v)})
	if err != nil {
		return nil, err
	}
	sim := &skSim{p: p, s: s, f: newPlanFrame(p.N(), p.M()), l: newLayout(p), trace: sims.NewTrace(1, 2),
		lp: math.NaN(), plan: make([]float64, p.N()*p.M()), heatAt: -1}
	if dom == sinkhorn.Plain {
		sim.warn = sinkhorn.CheckPlainEps(skEps.Get(v), p.C)
	}
	for i, a := range s.Mu() {
		for j, b := range s.Nu() {
			sim.indep += a * b * p.C[i*p.M()+j]
		}
	}
	sim.solveLP()
	return sim, nil
}

// solveLP runs the transportation simplex to the optimum for the
// reference line, on problems of up to skLPCells cells.
func (s *skSim) solveLP() {
	cells := s.p.N() * s.p.M()
	if cells > skLPCells {
		s.lpNote = fmt.Sprintf("no LP line: the exact LP is solved up to %d cells (this plan has %d)", skLPCells, cells)
		return
	}
	x, err := lp.New(s.p.Mu, s.p.Nu, s.p.C)
	for err == nil {
		err = x.Step()
	}
	if !errors.Is(err, algo.ErrConverged) {
		s.lpNote = "no LP line: " + err.Error()
		return
	}
	s.lp = x.Cost()
}

func (s *skSim) record() { s.trace.Add(s.s.MarginalError(), s.s.Cost()) }

func (s *skSim) Step() error {
	err := s.s.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		s.record()
		s.done = err != nil
		return err
	}
	if uerr := (*sinkhorn.UnderflowError)(nil); errors.As(err, &uerr) {
		s.stall = err
	}
	return err
}

// Settle brings the picture of a large plan up to date.
func (s *skSim) Settle() { s.refresh() }

// refresh recomputes the plan's picture and row sums.
func (s *skSim) refresh() {
	if s.heatAt == s.s.Iter() {
		return
	}
	s.plan = s.s.Plan(s.plan)
	s.heat = s.f.heat(s.plan)
	// The colour scale from 0 to at least a uniform coupling's mass in a
	// cell: a plan the plain domain underflowed (all ~1e-82) draws blank
	// rather than as a full map keyed "5.6e-82".
	s.heat.Lo, s.heat.Hi = 0, math.Max(maxOf(s.heat.Z), 1/float64(len(s.heat.Z)))
	s.rows = append([]float64(nil), s.s.RowSums()...)
	s.heatAt = s.s.Iter()
}

func (s *skSim) Frame() sims.Frame {
	if s.heat == nil || s.p.N()*s.p.M() <= skPlanCells || s.s.Iter()-s.heatAt >= skPlanEvery {
		s.refresh()
	}
	x0, x1 := s.trace.Span()
	errs := s.trace.Column(0)
	cost := []sims.Series{{Name: "⟨C,π⟩", Y: s.trace.Column(1), Class: classSource}}
	if !math.IsNaN(s.lp) {
		cost = append(cost, sims.Series{Name: "LP", Y: s.trace.Map(func(int) float64 { return s.lp }), Class: classRef, Bound: true})
	}
	cost = append(cost, sims.Series{Name: "μνᵀ", Y: s.trace.Map(func(int) float64 { return s.indep }), Class: classTarget, Bound: true})
	heat := planChart(fmt.Sprintf("plan π, ε = %.3g", s.s.Eps()), s.f, s.heat, s.p.Mu, s.p.Nu, s.rows)
	charts := []sims.Chart{
		sims.LineChart{Title: "‖π1 − μ‖₁", LogY: true, X0: x0, X1: x1, XLabel: "iteration",
			Series: []sims.Series{{Name: "marginal error", Y: errs, Class: classBad}}},
		heat,
		sims.LineChart{Title: "cost ⟨C,π⟩", Series: onTop(cost...), X0: x0, X1: x1, XLabel: "iteration"},
	}
	if s.p.Dim == 2 {
		charts = append(charts, couplingChart("heaviest pairs of π", s.l, s.plan, s.p.M()))
	}
	metrics := []sims.Metric{
		{Name: "iter", Value: float64(s.s.Iter())},
		{Name: "err", Value: s.s.MarginalError()},
		// a plan's cost and entropy at the scale of the independent
		// coupling's cost (an underflowed plain-domain plan costs
		// 6.7e-81: ≈ 0)
		{Name: "cost", Value: s.s.Cost(), Scale: s.indep},
	}
	if !math.IsNaN(s.lp) {
		metrics = append(metrics, sims.Metric{Name: "lp", Value: s.lp})
	}
	metrics = append(metrics, sims.Metric{Name: "entropy", Value: s.s.Entropy(), Scale: 1})
	// The plan is the picture (charts[1]); the curves say how it converges.
	return sims.Frame{Sim: Sinkhorn.Name, Step: s.s.Iter(), Metrics: metrics, Charts: charts, Primary: 1, Text: s.notes(errs)}
}

func (s *skSim) notes(errs []float64) []string {
	eps := s.s.Eps()
	var lines []string
	if s.warn != nil {
		lines = append(lines, fmt.Sprintf("⚠ ε < %.3g = max|C|/708: the plain K underflows; use domain=log", s.s.Threshold()))
	}
	lines = append(lines, fmt.Sprintf("ε = %.3g: the notes' λ = 1/ε = %.4g (K = exp(−λC))", eps, 1/eps))
	if s.s.Domain() == sinkhorn.Plain {
		lines = append(lines, fmt.Sprintf("plain (5.12): %d of %d entries of K = exp(−C/ε) underflow", s.s.Underflowed(), s.p.N()*s.p.M()))
	} else {
		lines = append(lines, "log domain: potentials by log-sum-exps, stable at any ε")
	}
	if r, ok := rate(errs); ok && r < 0.9999 {
		lines = append(lines, fmt.Sprintf("linear convergence: the error ×%.3g per iteration", r))
	}
	switch {
	case s.stall != nil:
		lines = append(lines, "stalled: an underflowed K cannot reach μ; domain=log converges")
	case !math.IsNaN(s.lp):
		lines = append(lines, fmt.Sprintf("⟨C,π⟩ − LP = %.3g → 0 as ε → 0, once ‖π1 − μ‖₁ is small", s.s.Cost()-s.lp))
	default:
		lines = append(lines, s.lpNote)
	}
	lines = append(lines, fmt.Sprintf("μνᵀ (ε → ∞, Ex 5.3) costs %.4g", s.indep))
	return lines
}

// rate is the geometric mean factor of the last ten iterations' marginal
// errors, when they are positive and above rounding.
func rate(errs []float64) (float64, bool) {
	k := len(errs) - 1
	if k < 10 || errs[k] < 1e-13 || errs[k-10] <= 0 {
		return 0, false
	}
	return math.Pow(errs[k]/errs[k-10], 0.1), true
}

func (s *skSim) Result() map[string]any {
	r := map[string]any{
		"iterations":      s.s.Iter(),
		"marginal_error":  s.s.MarginalError(),
		"cost":            s.s.Cost(),
		"entropy":         s.s.Entropy(),
		"objective":       s.s.Objective(),
		"eps":             s.s.Eps(),
		"lambda":          1 / s.s.Eps(),
		"domain":          s.s.Domain().String(),
		"independent":     s.indep,
		"converged":       s.done,
		"plain_threshold": s.s.Threshold(),
	}
	if !math.IsNaN(s.lp) {
		r["lp_cost"] = s.lp
	}
	if s.stall != nil {
		r["stalled"] = s.stall.Error()
	}
	if n, m := s.p.N(), s.p.M(); n*m <= lpRefCells {
		r["plan"] = matrix(s.s.Plan(nil), n, m)
	}
	return r
}
