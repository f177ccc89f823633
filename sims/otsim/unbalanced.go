package otsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/sinkhorn"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Unbalanced is entropic unbalanced OT (Chizat, Peyré, Schmitzer &
// Vialard 2018; POT's ot.unbalanced.sinkhorn_unbalanced and its
// plot_UOT_1D example): the marginal constraints of Sinkhorn's problem
// relaxed to penalties τ KL(P1 | a) + τ KL(Pᵀ1 | b), so that the two
// sides may have different masses and mass that would have to travel far
// is left where it is. One step is one iteration of the scalings
// u = (a ./ Kv)^κ, v = (b ./ Kᵀu)^κ, κ = τ/(τ + ε), in the log domain. A
// sim of its own rather than a mode of sinkhorn: the lesson is the
// marginals the plan moves (P1 and Pᵀ1 drawn against a and b) beside the
// balanced plan, which must move everything; the balanced sim refuses
// unequal masses, and draws its convergence to fixed marginals.
var Unbalanced = &sims.Spec{
	Name:  "sinkhorn-unbalanced",
	Title: "Unbalanced Sinkhorn: KL-relaxed marginals leave far or surplus mass behind; plan and marginals against the balanced plan",
	Source: "Chizat, Peyré, Schmitzer & Vialard 2018 (§3, Prop 3.8, φ = τ KL; POT's sinkhorn_unbalanced, plot_UOT_1D); " +
		"entropic OT: seed 002 §5.4 (eqs 5.8–5.12)",
	Steps:   2000,
	Speed:   10,
	Params:  param.List(ubPreset, ubN, ubMass, ubEps, ubTau, ubTol),
	New:     newUnbalanced,
	Size:    unbalancedSize,
	Metrics: unbalancedMetrics,
}

// ubProblem names a pair of histograms of sinkhorn-unbalanced.
type ubProblem string

func (p ubProblem) String() string { return string(p) }

const (
	ubOutlier   ubProblem = "outlier"
	ubGaussHist ubProblem = "gauss-hist"
)

// ubOutlierAt is where the outlier bump of the outlier preset starts: the
// bins from there on are the outlier's.
const ubOutlierAt = 0.8

// ubMaxN bounds the bins: the balanced plan beside the unbalanced one is
// solved to convergence when the sim is built, which at 1000 bins took
// 5 s of CPU (a pane's build waits for it).
const ubMaxN = 400

var (
	ubPreset = param.Choice("preset", []ubProblem{ubOutlier, ubGaussHist}, ubOutlier,
		"outlier: μ a bump at 0.3, ν the same bump at 0.45 (mass 0.8) and an outlier at 0.95 (mass 0.2); "+
			"gauss-hist: POT's plot_UOT_1D, bumps at 0.2 and 0.6 with ν's mass multiplied by mass (5 there)")
	ubN    = param.Int("n", 100, "bins on [0, 1] shared by both sides; the cost is |x − y|² (at most 1)").Range(2, ubMaxN)
	ubMass = param.Float("mass", 1, "the total mass of ν (μ has mass 1)").Range(0.01, 100).
		DefaultWhen(func(v param.Values) bool { return ubPreset.Get(v) == ubGaussHist }, 5, "5 for gauss-hist (POT's b *= 5), else 1")
	ubEps = param.Float("eps", 0.002, "ε, the weight of KL(P | a⊗b): small, a sharp plan; large, a blurred one").Range(0, 10).OpenMin()
	ubTau = param.Float("tau", 0.1,
		"τ, the weight of KL(P1 | a) + KL(Pᵀ1 | b): small lets the plan drop mass cheaply; τ → ∞ is balanced Sinkhorn "+
			"(between two unit masses at cost c the plan moves e^(−c/(2τ + ε)): mass that would travel d with d² ≫ 2τ stays)").Range(0, 1e6).OpenMin()
	ubTol = param.Float("tol", 1e-9, "stop when no potential moves by more than tol in an iteration (0: run on)").Range(0, 1)
)

// ubBalancedIters bounds the balanced Sinkhorn run made once for the
// comparison.
const ubBalancedIters = 20000

// unbalancedSize is the cost, the engine (its Cᵀ and vectors), the plan
// buffer and the two plans' pictures, the trace of the gap, and while it
// is built the balanced engine and its plan (garbage once drawn).
func unbalancedSize(cfg sims.Config) int64 {
	n := ubN.Get(cfg.Values)
	f := newPlanFrame(n, n)
	return ubBase + 8*int64(n)*int64(n)*2 + sinkhorn.UnbalancedFootprint(n, n) + sinkhorn.Footprint(n, n, sinkhorn.Log) +
		2*f.chartBytes(4) + 8*8*int64(n) + sims.TraceBytesAfter(1, 1, sims.TraceCap)
}

const ubBase = 24 << 10

type ubSim struct {
	pre     ubProblem
	x       []float64 // the bins
	a, b    []float64
	c       []float64
	u       *sinkhorn.Unbalanced
	f       planFrame
	trace   *sims.Trace // the duality gap
	plan    []float64
	heat    *sims.Grid
	heatAt  int
	rows    []float64 // P1 and Pᵀ1 as of heatAt
	cols    []float64
	bal     sims.CanvasChart // the balanced plan, drawn once
	balCost float64
	balOut  float64 // the balanced plan's mass into the outlier's bins
	done    bool
}

func newUnbalanced(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	n, pre := ubN.Get(v), ubPreset.Get(v)
	x, a, b, err := ubHistograms(pre, n, ubMass.Get(v))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("n", ubN))
	}
	c := ot.GroundCost(x, x, 1, 2)
	eps, tau := ubEps.Get(v), ubTau.Get(v)
	u, err := sinkhorn.NewUnbalanced(a, b, c, sinkhorn.UnbalancedConfig{Eps: eps, Tau: tau, Tol: ubTol.Get(v)})
	if err != nil {
		return nil, err
	}
	s := &ubSim{pre: pre, x: x, a: a, b: b, c: c, u: u, f: newPlanFrame(n, n), trace: sims.NewTrace(0, 1),
		plan: make([]float64, n*n), heatAt: -1}
	if err := s.balanced(eps); err != nil {
		return nil, err
	}
	s.record()
	return s, nil
}

// ubHistograms are the preset's bins x_k = k/(n − 1) and masses: μ of
// mass 1, ν of mass mass.
func ubHistograms(pre ubProblem, n int, mass float64) (x, a, b []float64, err error) {
	if pre == ubGaussHist {
		// POT's plot_UOT_1D: ot.datasets.make_1D_gauss on n bins, b *= 5
		p, err := ot.GaussHistograms(rand.New(rand.NewPCG(1, 1)), n, n)
		if err != nil {
			return nil, nil, nil, err
		}
		b = make([]float64, n)
		for j, v := range p.Nu {
			b[j] = mass * v
		}
		return p.X, p.Mu, b, nil
	}
	if n < 2 {
		return nil, nil, nil, algo.BadParam("n", n, "at least 2 bins")
	}
	x, a, b = make([]float64, n), make([]float64, n), make([]float64, n)
	bump := func(w []float64, m, s, mass float64) {
		sum := 0.0
		tmp := make([]float64, n)
		for k := range tmp {
			tmp[k] = math.Exp(-(x[k] - m) * (x[k] - m) / (2 * s * s))
			sum += tmp[k]
		}
		for k := range w {
			w[k] += mass * tmp[k] / sum
		}
	}
	for k := range x {
		x[k] = float64(k) / float64(n-1)
	}
	bump(a, 0.3, 0.06, 1)
	bump(b, 0.45, 0.06, 0.8*mass)
	bump(b, 0.95, 0.02, 0.2*mass)
	return x, a, b, nil
}

// balanced runs balanced Sinkhorn (log domain) on the normalised masses
// at the same ε, for the comparison: its plan moves every atom.
func (s *ubSim) balanced(eps float64) error {
	sa, sb := 0.0, 0.0
	for i := range s.a {
		sa, sb = sa+s.a[i], sb+s.b[i]
	}
	a, b := ot.Normalised(s.a, sa), ot.Normalised(s.b, sb)
	bs, err := sinkhorn.New(a, b, s.c, sinkhorn.Config{Eps: eps, Domain: sinkhorn.Log, Tol: 1e-9})
	if err != nil {
		return err
	}
	for range ubBalancedIters {
		if err = bs.Step(); err != nil {
			break
		}
	}
	if err != nil && !errors.Is(err, algo.ErrConverged) {
		return fmt.Errorf("the balanced comparison: %w", err)
	}
	plan := bs.Plan(nil)
	n := len(s.a)
	cols := make([]float64, n)
	for i := range n {
		for j, p := range plan[i*n : (i+1)*n] {
			cols[j] += p
		}
	}
	s.balCost = bs.Cost()
	s.balOut = s.outlierMass(cols)
	heat := s.f.heat(plan)
	heat.Lo, heat.Hi = 0, maxOf(heat.Z)
	s.bal = s.planChart(fmt.Sprintf("balanced plan (τ = ∞), masses scaled to 1, ε = %.3g", eps), heat, a, b, bs.RowSums(), b)
	return nil
}

// outlierMass is the mass of a column marginal in the outlier's bins
// (NaN for a preset without one).
func (s *ubSim) outlierMass(cols []float64) float64 {
	if s.pre != ubOutlier {
		return math.NaN()
	}
	m := 0.0
	for j, v := range cols {
		if s.x[j] >= ubOutlierAt {
			m += v
		}
	}
	return m
}

// planChart draws a plan with a and b solid beside and below it, and the
// plan's own marginals P1 and Pᵀ1 dotted over them.
func (s *ubSim) planChart(title string, heat *sims.Grid, a, b, rows, cols []float64) sims.CanvasChart {
	scale := maxOf(a, b, rows, cols)
	paths := []sims.Path{
		s.f.rows(a, scale, classSource, false), s.f.cols(b, scale, classTarget, false),
		s.f.rows(rows, scale, classPlan, true), s.f.cols(cols, scale, classPlan, true),
	}
	return sims.CanvasChart{Title: title, View: s.f.view(), Heat: heat, Paths: paths,
		Legend: []string{"a (μ)", "b (ν)", "P1, Pᵀ1"}, XLabel: "target bin j", YLabel: "source bin i",
		XIndex: &sims.Index{First: 0, Last: s.f.m - 1, At: 0.5, Step: 1},
		YIndex: &sims.Index{First: 0, Last: s.f.n - 1, At: float64(s.f.n) - 0.5, Step: -1}}
}

func (s *ubSim) record() { s.trace.Add(math.Max(s.u.Gap(), 0)) }

func (s *ubSim) Step() error {
	err := s.u.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		s.record()
		s.done = err != nil
	}
	return err
}

// Settle brings the plan's picture up to date.
func (s *ubSim) Settle() { s.refresh() }

func (s *ubSim) refresh() {
	if s.heatAt == s.u.Iter() {
		return
	}
	s.plan = s.u.Plan(s.plan)
	s.heat = s.f.heat(s.plan)
	s.heat.Lo, s.heat.Hi = 0, maxOf(s.heat.Z)
	s.rows = append(s.rows[:0:0], s.u.RowSums()...)
	s.cols = append(s.cols[:0:0], s.u.ColSums()...)
	s.heatAt = s.u.Iter()
}

func (s *ubSim) Frame() sims.Frame {
	if s.heat == nil || s.f.n*s.f.m <= skPlanCells || s.u.Iter()-s.heatAt >= skPlanEvery {
		s.refresh()
	}
	plan := s.planChart(fmt.Sprintf("plan P, τ = %.3g, ε = %.3g", s.u.Tau(), s.u.Eps()), s.heat, s.a, s.b, s.rows, s.cols)
	x0, x1 := s.trace.Span()
	gap := sims.LineChart{Title: "duality gap: objective − dual", LogY: true, X0: x0, X1: x1, XLabel: "iteration",
		Series: []sims.Series{{Name: "gap", Y: s.gapSeries(), Class: classBad}}}
	// the marginals against a and b are the lesson; the plans show where
	// the mass goes
	charts := []sims.Chart{s.profiles(), plan, s.bal, gap}
	moved := s.u.Mass()
	metrics := []sims.Metric{
		{Name: "iter", Value: float64(s.u.Iter())},
		{Name: "moved", Value: moved},
		{Name: "cost", Value: s.u.Cost()},
		{Name: "objective", Value: s.u.Objective()},
		{Name: "dual", Value: s.u.Dual()},
		sims.MetricOr("to outlier", s.outlierMass(s.cols), "gauss-hist has no outlier"),
	}
	return sims.Frame{Sim: Unbalanced.Name, Step: s.u.Iter(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

// gapSeries is the trace of the gap at the noise floor of the objective's
// scale (a converged gap is rounding error).
func (s *ubSim) gapSeries() []float64 {
	g := s.trace.Column(0)
	scale := math.Abs(s.u.Objective()) + s.u.Mass()
	for k, v := range g {
		g[k] = sims.NoiseFloor(v, scale)
	}
	return g
}

// profiles draws a and b over the bins (dotted) with what the plan moves
// (solid): P1 leaves μ and Pᵀ1 reaches ν (POT's plot_UOT_1D).
func (s *ubSim) profiles() sims.CanvasChart {
	top := 1.1 * maxOf(s.a, s.b, s.rows, s.cols)
	line := func(w []float64, class int, dotted bool) sims.Path {
		return sims.Path{X: s.x, Y: append([]float64(nil), w...), Class: class, Dotted: dotted}
	}
	return sims.CanvasChart{Title: "masses a, b and the plan's marginals P1, Pᵀ1", XLabel: "x", YLabel: "mass",
		View: sims.Rect{XMin: 0, XMax: 1, YMin: 0, YMax: top},
		// a and b are the references the plan's marginals are pulled
		// towards, drawn dotted under them
		Paths: []sims.Path{line(s.a, classSource, true), line(s.b, classTarget, true),
			line(s.rows, classPlan, false), line(s.cols, classMark, false)},
		Legend: []string{"a", "b", "P1", "Pᵀ1"}}
}

func (s *ubSim) notes() []string {
	ta, tb := 0.0, 0.0
	for i := range s.a {
		ta, tb = ta+s.a[i], tb+s.b[i]
	}
	moved := s.u.Mass()
	var lines []string
	if s.done {
		lines = append(lines, fmt.Sprintf("converged after %d iterations: the potentials moved by at most %.2g", s.u.Iter(), s.u.Change()))
	}
	lines = append(lines, fmt.Sprintf("the plan moves %.4g of μ's %.4g and ν's %.4g: the rest is left behind at a KL price (τ = %.3g)", moved, ta, tb, s.u.Tau()))
	if s.pre == ubOutlier {
		out := s.outlierMass(s.cols)
		lines = append(lines, fmt.Sprintf("the outlier at 0.95 receives %.3g of its %.3g; the balanced plan must send it %.3g", out, 0.2*tb, s.balOut))
	} else {
		lines = append(lines, "POT's plot_UOT_1D: ν has five times μ's mass; the balanced plan scales both to 1")
	}
	lines = append(lines,
		fmt.Sprintf("u = (a/Kv)^κ, v = (b/Kᵀu)^κ with κ = τ/(τ + ε) = %.4g; κ → 1 (τ → ∞) is balanced Sinkhorn", s.u.Kappa()),
		fmt.Sprintf("each half-step maximises the dual: it rises to the objective, gap %s", sims.Residual("%.3g", s.u.Gap(), math.Abs(s.u.Objective())+moved)),
		fmt.Sprintf("⟨C,P⟩ = %.4g against the balanced plan's %.4g", s.u.Cost(), s.balCost))
	return lines
}

func (s *ubSim) Result() map[string]any {
	r := map[string]any{
		"iterations":          s.u.Iter(),
		"moved":               s.u.Mass(),
		"cost":                s.u.Cost(),
		"objective":           s.u.Objective(),
		"dual":                s.u.Dual(),
		"gap":                 s.u.Gap(),
		"eps":                 s.u.Eps(),
		"tau":                 s.u.Tau(),
		"kappa":               s.u.Kappa(),
		"converged":           s.done,
		"balanced_cost":       s.balCost,
		"to_outlier":          s.outlierMass(s.u.ColSums()),
		"balanced_to_outlier": s.balOut,
	}
	if s.pre != ubOutlier {
		r["undefined"] = map[string]string{"to_outlier": "gauss-hist has no outlier", "balanced_to_outlier": "gauss-hist has no outlier"}
	}
	return r
}
