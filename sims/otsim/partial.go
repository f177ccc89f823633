package otsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/partial"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Partial is exact partial optimal transport (Chapel, Alaya & Gasso 2020;
// POT's ot.partial.partial_wasserstein): move only a mass s of two clouds
// with outliers at least cost, by the dummy-point reduction to a balanced
// LP solved by the transportation simplex. One step raises s by one notch
// of a grid from 0 to all the mass and solves again: the plan grows from
// the closest pairs, the outliers move last, and the cost PW(s) is drawn
// as it grows, convex, its slope (the price of the next unit of mass)
// non-decreasing.
var Partial = &sims.Spec{
	Name:  "partial-ot",
	Title: "Partial OT: move only a mass s at least cost; the plan grows from the closest pairs, outliers last",
	Source: "Chapel, Alaya & Gasso 2020 (§3, Prop 1: the dummy-point reduction; POT's ot.partial.partial_wasserstein); " +
		"Caffarelli & McCann 2010; the Kantorovich LP: seed 002 §5.3–5.4 (eqs 5.5–5.6)",
	Steps: 50,
	Speed: 2,
	// One solve a step, grid notches at two a second: 25 s to the full
	// mass at the defaults.
	Params:  param.List(ptPreset, ptN, ptM, ptOut, ptP, ptGrid),
	New:     newPartial,
	Size:    partialSize,
	Metrics: partialMetrics,
}

// ptMaxAtoms bounds each side's points (outliers included): a solve
// prices all (n+1)(m+1) cells a pivot.
const ptMaxAtoms = 150

// classLeft colours the points that keep their mass (grey).
const classLeft = 9

var (
	ptPresets = []preset{preMixtures, preGaussians, preBoxes, preMoonsRing}
	ptPreset  = param.Choice("preset", ptPresets, preGaussians, presetHelp(ptPresets))
	ptN       = param.Int("n", 30, "source points of the preset (before the outliers)").Range(1, ptMaxAtoms-ptMaxOut)
	ptM       = param.Int("m", 30, "target points of the preset (before the outliers)").Range(1, ptMaxAtoms-ptMaxOut)
	ptOut     = param.Int("outliers", 4, "outliers added to each side, far from both clouds (every point has mass 1/(its side's count))").
			Range(0, ptMaxOut)
	ptP    = param.Float("p", 2, "exponent of the ground cost ‖x − y‖^p").Range(ot.MinP, ot.MaxP)
	ptGrid = param.Int("grid", 50, "steps of s from 0 to all the mass (1): one solve a step").Range(2, 200)
)

// ptMaxOut bounds the outliers of each side.
const ptMaxOut = 20

// partialSize is the points and cost, the partial problem (its extended
// cost) and the plan of the last solve (the simplex of a solve is garbage
// once solved), the plan's chart and its lines (an optimal vertex has at
// most n + m + 1 nonzero cells), and the curves.
func partialSize(cfg sims.Config) int64 {
	v := cfg.Values
	n, m := ptN.Get(v)+ptOut.Get(v), ptM.Get(v)+ptOut.Get(v)
	k := int64(ptGrid.Get(v) + 1)
	return ptBase + problemBytes(n, m, 2) + 8*int64(n+1)*int64(m+1) + 8*int64(n)*int64(m) +
		newPlanFrame(n, m).chartBytes(4) + linesBytes(n+m+1) + 6*8*k + 48*int64(n+m)
}

const ptBase = 24 << 10

type ptSim struct {
	x, y    []float64 // the points, row-major 2-D
	a, b    []float64
	c       []float64
	out     int // outliers at the end of each side
	prob    *partial.Problem
	grid    int
	k       int // notches solved: s = k/grid of the most
	sol     partial.Solution
	rows    []float64 // T1, Tᵀ1 of the current plan
	cols    []float64
	s, cost []float64 // the curve so far
	l       layout
	f       planFrame
	pivots  int
	done    bool
}

func newPartial(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	pre, _ := ot.PresetByName(string(ptPreset.Get(v)))
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7061_7274)) // "part"
	p, err := pre.New(rng, ptN.Get(v), ptM.Get(v))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("n", ptN), sims.As("m", ptM))
	}
	sortAtoms(p)
	out := ptOut.Get(v)
	x, y := ptOutliers(rng, p.X, p.Y, out)
	n, m := len(x)/2, len(y)/2
	a, b := uniformMass(n), uniformMass(m)
	c := ot.GroundCost(x, y, 2, ptP.Get(v))
	if err := ot.CheckCost(c, n, m); err != nil {
		return nil, fmt.Errorf("the ground cost of the points overflows: %w", err)
	}
	prob, err := partial.New(a, b, c)
	if err != nil {
		return nil, err
	}
	s := &ptSim{x: x, y: y, a: a, b: b, c: c, out: out, prob: prob, grid: ptGrid.Get(v),
		f: newPlanFrame(n, m)}
	s.l.xs, s.l.ys = split(x)
	s.l.xt, s.l.yt = split(y)
	s.l.view = sims.Bounds(append(slices.Clone(s.l.xs), s.l.xt...), append(slices.Clone(s.l.ys), s.l.yt...)).Pad(0.05)
	s.l.xl, s.l.yl = "x", "y"
	if err := s.solve(); err != nil {
		return nil, err
	}
	return s, nil
}

func uniformMass(k int) []float64 {
	w := make([]float64, k)
	for i := range w {
		w[i] = 1 / float64(k)
	}
	return w
}

// ptOutliers appends k outliers to each cloud: the source's in a tight
// group beyond the top left of the joint bounding box, the target's beyond
// its bottom right, so that moving them costs more than any pair of the
// clouds.
func ptOutliers(rng *rand.Rand, x, y []float64, k int) (xo, yo []float64) {
	xs, ys := split(x)
	xt, yt := split(y)
	b := sims.Bounds(append(xs, xt...), append(ys, yt...))
	w, h := b.XMax-b.XMin, b.YMax-b.YMin
	r := 0.5 * math.Max(w, h)
	xo, yo = slices.Clone(x), slices.Clone(y)
	for range k {
		xo = append(xo, b.XMin-0.1*w+0.08*r*rng.NormFloat64(), b.YMax+0.6*r+0.08*r*rng.NormFloat64())
		yo = append(yo, b.XMax+0.1*w+0.08*r*rng.NormFloat64(), b.YMin-0.6*r+0.08*r*rng.NormFloat64())
	}
	return xo, yo
}

// solve finds the plan of mass s = k/grid of the most and adds it to the
// curve.
func (s *ptSim) solve() error {
	mass := s.prob.MaxMass() * float64(s.k) / float64(s.grid)
	sol, err := s.prob.Solve(mass)
	if err != nil {
		return err
	}
	s.sol = sol
	s.rows, s.cols = partial.Marginals(sol.Plan, len(s.a), len(s.b))
	s.s, s.cost = append(s.s, mass), append(s.cost, sol.Cost)
	s.pivots += sol.Pivots
	return nil
}

func (s *ptSim) Step() error {
	if s.k >= s.grid {
		s.done = true
		return algo.ErrConverged
	}
	s.k++
	if err := s.solve(); err != nil {
		return err
	}
	if s.k >= s.grid {
		s.done = true
		return algo.ErrConverged
	}
	return nil
}

// slope is ΔPW/Δs along the grid: the price of the last notch of mass.
func (s *ptSim) slope() []float64 {
	out := make([]float64, 0, len(s.cost))
	for k := 1; k < len(s.cost); k++ {
		out = append(out, (s.cost[k]-s.cost[k-1])/(s.s[k]-s.s[k-1]))
	}
	return out
}

// moved classes the points: their side's colour when some of their mass
// moves, grey when none does.
func moved(w []float64, mass []float64, class int) []int {
	out := make([]int, len(w))
	for i, v := range w {
		out[i] = classLeft
		if v > 1e-12*mass[i] {
			out[i] = class
		}
	}
	return out
}

func (s *ptSim) Frame() sims.Frame {
	mass := s.sol.Mass
	n, m := len(s.a), len(s.b)
	plan := s.sol.Plan
	legend := make([]string, classLeft+1)
	legend[classSource], legend[classTarget], legend[classPlan], legend[classLeft] = "μ moved", "ν moved", "T_ij", "kept"
	points := sims.CanvasChart{Title: fmt.Sprintf("plan of mass s = %.3g; grey: mass kept", mass),
		View: s.l.view, Paths: s.l.lines(plan, m), XLabel: s.l.xl, YLabel: s.l.yl, Legend: legend,
		Points: []sims.PointSet{
			{Name: "μ", X: s.l.xs, Y: s.l.ys, Classes: moved(s.rows, s.a, classSource)},
			{Name: "ν", X: s.l.xt, Y: s.l.yt, Classes: moved(s.cols, s.b, classTarget)},
		}}
	heat := s.f.heat(plan)
	heat.Lo, heat.Hi = 0, maxOf(heat.Z)
	planC := planChart(fmt.Sprintf("plan T, %d×%d, outliers last", n, m), s.f, heat, s.a, s.b, s.rows)
	planC.Legend[2] = "T1"
	top := s.prob.MaxMass()
	curve := sims.LineChart{Title: "PW(s), convex in s", XLabel: "s", X0: 0, X1: mass,
		Series: []sims.Series{{Name: "PW(s)", Y: slices.Clone(s.cost), Class: classSource}}}
	price := sims.LineChart{Title: "price ΔPW/Δs, rising", XLabel: "s",
		X0: top / float64(s.grid), X1: math.Max(mass, top/float64(s.grid)),
		Series: []sims.Series{{Name: "ΔPW/Δs", Y: s.slope(), Class: classTarget}}}
	ta, tb := s.prob.Totals()
	metrics := []sims.Metric{
		{Name: "m", Value: mass},
		{Name: "cost", Value: s.sol.Cost},
		{Name: "left μ", Value: math.Max(ta-mass, 0)},
		{Name: "left ν", Value: math.Max(tb-mass, 0)},
		sims.MetricOr("price", s.lastSlope(), "no mass moved yet"),
		{Name: "pivots", Value: float64(s.pivots)},
	}
	return sims.Frame{Sim: Partial.Name, Step: s.k, Metrics: metrics, Charts: []sims.Chart{points, curve, planC, price},
		Text: s.notes()}
}

func (s *ptSim) lastSlope() float64 {
	if len(s.cost) < 2 {
		return math.NaN()
	}
	k := len(s.cost) - 1
	return (s.cost[k] - s.cost[k-1]) / (s.s[k] - s.s[k-1])
}

// outMoved is the mass the source outliers send and the target outliers
// receive.
func (s *ptSim) outMoved() (src, dst float64) {
	n, m := len(s.a), len(s.b)
	for i := n - s.out; i < n; i++ {
		src += s.rows[i]
	}
	for j := m - s.out; j < m; j++ {
		dst += s.cols[j]
	}
	return src, dst
}

func (s *ptSim) notes() []string {
	var lines []string
	if s.done {
		lines = append(lines, "all the mass moves: PW(1) is the balanced OT cost, outliers and all")
	}
	lines = append(lines, fmt.Sprintf("s = %.3g of 1 moves at cost %.4g; μ keeps %.3g, ν keeps %.3g",
		s.sol.Mass, s.sol.Cost, 1-s.sol.Mass, 1-s.sol.Mass))
	if s.out > 0 {
		src, dst := s.outMoved()
		lines = append(lines, fmt.Sprintf("the %d outliers a side send %.3g and receive %.3g: they move last", s.out, src, dst))
	}
	lines = append(lines,
		"T1 ≤ a, Tᵀ1 ≤ b, ΣT = s: a dummy point on each side takes the rest at cost 0 (dummy–dummy A), a balanced LP",
		"PW is convex in s: the cheapest mass moves first, each notch costs at least the one before")
	return lines
}

func (s *ptSim) Result() map[string]any {
	src, dst := s.outMoved()
	return map[string]any{
		"mass":              s.sol.Mass,
		"cost":              s.sol.Cost,
		"masses":            slices.Clone(s.s),
		"costs":             slices.Clone(s.cost),
		"pivots":            s.pivots,
		"dummy_flow":        s.sol.Dummy,
		"outliers_send":     src,
		"outliers_received": dst,
		"complete":          s.done,
	}
}
