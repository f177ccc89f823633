package otsim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/assign"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// Assignment is the Monge problem between discrete measures (seed 002
// §5.2, eqs 5.1–5.4, Remark 5.1, Examples 5.1–5.2): every map
// T : {x_i} → {y_j} enumerated one candidate per step with its push-forward
// T#μ against ν, its feasibility and its cost; the notes' Exercise 5.1 (a
// map exists / none can) and Exercise 5.2 (two optimal maps). For N = M
// atoms of mass 1/N (the assignment problem) the Hungarian algorithm,
// stepped one column of the alternating tree at a time, with its dual
// bound rising to the cost.
var Assignment = &sims.Spec{
	Name:     "assignment",
	Title:    "Monge maps enumerated one per step (Ex 5.1, 5.2); the Hungarian algorithm for N = M",
	Source:   "seed 002 §5.2 (eqs 5.1–5.4, Remark 5.1, Example 5.2, Exercises 5.1–5.2)",
	Data:     dataNote,
	DataText: []sims.TextColumn{sideColumn},
	Steps:    5000,
	Speed:    1,
	Params:   param.List(asProblem, asMethod),
	New:      newAssignment,
	Size:     assignmentSize,

	Metrics: assignmentMetrics,
}

// method is how the assignment sim searches.
type method string

func (m method) String() string { return string(m) }

const (
	methodEnumerate method = "enumerate"
	methodHungarian method = "hungarian"
)

// asMaxAtoms bounds n: the Hungarian algorithm's steps number up to
// n(n+1)/2, and the picture draws n lines.
const asMaxAtoms = 300

var (
	asPresets = []preset{preEx51Exists, preEx51None, preEx52, preThree, preGaussians, preMixtures, preBoxes, preMoonsRing, preGauss1D}
	asProblem = newProblemParams(asPresets, preEx51Exists, 4, 4, asMaxAtoms, true)
	asMethod  = param.Choice("method", []method{methodEnumerate, methodHungarian}, methodEnumerate,
		"enumerate: all M^N maps, one per step (N ≤ 8, M^N ≤ 2^20); hungarian: the assignment problem, "+
			"N = M atoms of mass 1/N, one column of the alternating tree per step").
		DefaultFunc(func(v param.Values) method {
			if q, _ := ot.PresetByName(string(asProblem.Preset.Get(v))); q.Fixed || asProblem.N.Get(v) <= 6 {
				return methodEnumerate
			}
			return methodHungarian
		}, "enumerate for the worked examples and n ≤ 6, hungarian otherwise")
)

// assignmentSize is the problem and its picture's lines, and then for
// the Hungarian algorithm the trace of the cost and the bound (n(n+1)/2
// steps at most) with its two curves, for the enumeration the trace of
// every candidate's cost (one a step, M^N steps) with its two curves and
// the feasible candidates kept (twice: the Frame has a copy). A feasible
// map is onto ν's atoms: when N = M, a permutation. The Frame's plan is
// garbage once drawn.
func assignmentSize(cfg sims.Config) int64 {
	n, m, dim := asProblem.atoms(cfg)
	size := asBase + problemBytes(n, m, dim) + linesBytes(n*m)
	if asMethod.Get(cfg.Values) == methodHungarian {
		return size + 48*int64(n) + sims.TraceBytesAfter(2, 2, n*(n+1)/2)
	}
	total, perms := 1, 1
	for k := range n {
		total, perms = min(total*m, sims.TraceCap), min(perms*(k+1), maxFeasibleDrawn)
	}
	feasible := min(total, maxFeasibleDrawn)
	if n == m {
		feasible = min(feasible, perms)
	}
	return size + sims.TraceBytesAfter(1, 2, total) + 32*int64(feasible)
}

// asBase is what assignment holds whatever its size: the sim, the Frame's
// charts and texts.
const asBase = 24 << 10

func newAssignment(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	p, err := asProblem.load(cfg, 0x6173_7367) // "assg"
	if err != nil {
		return nil, err
	}
	if asMethod.Get(v) == methodHungarian {
		return newHungarianSim(p, v)
	}
	g, err := assign.NewMonge(p.Mu, p.Nu, p.C)
	if err != nil && cfg.Data != nil {
		return nil, mongeDataErr(err, cfg.Data, p)
	}
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("mu", asProblem.N), sims.As("nu", asProblem.N))
	}
	return &mongeSim{p: p, g: g, l: newLayout(p), cost: sims.NewTrace(1, 1), lo: math.Inf(1), hi: math.Inf(-1)}, nil
}

// mongeDataErr says why the enumeration refuses the problem read from
// --data t: what the user set is the file, whose atoms replace the
// parameter n, so the message names the file and its atoms (not n's
// default), and the method that solves the problem when there is one.
func mongeDataErr(err error, t *sims.Table, p *problem) error {
	var pe *algo.ParamError
	if !errors.As(err, &pe) {
		return fmt.Errorf("--data %s: %w", t.Name, err)
	}
	msg := fmt.Sprintf("--data %s: its %d rows make %d source and %d target atoms, and method = enumerate takes %s",
		t.Name, len(t.Rows), p.N(), p.M(), pe.Allowed)
	if isAssignment(p) {
		msg += "; --set method=hungarian solves this one (N = M atoms of mass 1/N)"
	}
	return errors.New(msg)
}

// isAssignment reports whether p is an assignment problem, which the
// Hungarian algorithm solves: N = M atoms, each of mass 1/N.
func isAssignment(p *problem) bool {
	n := p.N()
	if n != p.M() {
		return false
	}
	for _, w := range append(slices.Clone(p.Mu), p.Nu...) {
		if math.Abs(w*float64(n)-1) >= 1e-9 {
			return false
		}
	}
	return true
}

// maxFeasibleDrawn is the most feasible maps the cost picture keeps.
const maxFeasibleDrawn = 4096

// mongeSim enumerates Monge maps.
type mongeSim struct {
	p      *problem
	g      *assign.Monge
	l      layout
	cost   *sims.Trace // every candidate's cost
	fx, fy []float64   // the feasible candidates (index, cost), at most maxFeasibleDrawn
	bx, by []float64   // the best cost as it fell: a staircase
	lo, hi float64     // the range of the costs
	done   bool
}

func (s *mongeSim) Step() error {
	g := s.g
	prev := g.Best()
	err := g.Step()
	if g.Count() > 0 && (err == nil || errors.Is(err, algo.ErrConverged)) {
		s.cost.Add(g.Cost())
		s.lo, s.hi = math.Min(s.lo, g.Cost()), math.Max(s.hi, g.Cost())
		k := float64(g.Count())
		if g.Feasible() && len(s.fx) < maxFeasibleDrawn {
			s.fx, s.fy = append(s.fx, k), append(s.fy, g.Cost())
		}
		if g.Best() != prev {
			if len(s.bx) > 0 {
				s.bx, s.by = append(s.bx, k), append(s.by, prev)
			}
			s.bx, s.by = append(s.bx, k), append(s.by, g.Best())
		}
	}
	s.done = errors.Is(err, algo.ErrConverged)
	return err
}

// costChart draws every candidate's cost against its index, the feasible
// ones in their own colour, and the best feasible cost as it falls.
func (s *mongeSim) costChart() sims.CanvasChart {
	g := s.g
	n := s.cost.Len()
	c := sims.CanvasChart{Title: "cost of each map", XLabel: "candidate", YLabel: "cost",
		Legend: []string{"", "", "ok", "best", "", "", "", "", "", "✗"}}
	if n == 0 {
		return c
	}
	x0, _ := s.cost.Span()
	all := s.cost.Column(0)
	xs := s.cost.Map(func(k int) float64 { return float64(k) })
	c.Points = []sims.PointSet{{Name: "every map", X: xs, Y: all, Class: classRef},
		{Name: "feasible", X: slices.Clone(s.fx), Y: slices.Clone(s.fy), Class: classPlan}}
	if len(s.bx) > 0 {
		bx, by := append(slices.Clone(s.bx), float64(g.Count())), append(slices.Clone(s.by), g.Best())
		c.Paths = []sims.Path{{X: bx, Y: by, Class: classMark}}
	}
	c.View = sims.Rect{XMin: x0 - 0.5, XMax: float64(g.Total()) + 0.5, YMin: s.lo, YMax: s.hi}.Pad(0.05)
	return c
}

// mapPlan is the plan of a map: mass μ_i from x_i to y_T(i).
func mapPlan(t []int, mu []float64, m int) []float64 {
	plan := make([]float64, len(t)*m)
	for i, j := range t {
		plan[i*m+j] = mu[i]
	}
	return plan
}

func (s *mongeSim) Frame() sims.Frame {
	g := s.g
	m := s.p.M()
	var charts []sims.Chart
	title := "no candidate yet"
	lines := couplingChart(title, s.l, nil, m)
	switch opt := g.Optimal(); {
	case s.done && len(opt) > 0:
		lines = couplingChart(fmt.Sprintf("an optimal map, of %d", g.Total()), s.l, mapPlan(opt[0], s.p.Mu, m), m)
	case g.Count() > 0:
		lines = couplingChart(fmt.Sprintf("map %d of %d", g.Count(), g.Total()), s.l, mapPlan(g.Map(), s.p.Mu, m), m)
	}
	for k := range lines.Paths {
		lines.Paths[k].Dotted = false
		if !g.Feasible() && !(s.done && g.FeasibleSeen() > 0) {
			lines.Paths[k].Class = classBad
		}
	}
	lines.Markers = atomLabels(s.l)
	lines.Legend = []string{"μ", "ν", "T ok", "", "", "", "", "T ✗"}
	charts = append(charts, lines)
	bars := make([]sims.Bar, 0, 2*m)
	push := g.Push()
	for j := range m {
		bars = append(bars, sims.Bar{Label: fmt.Sprintf("ν_%d", j+1), Value: s.p.Nu[j], Class: classTarget})
		c := classPlan
		if math.Abs(push[j]-s.p.Nu[j]) > assign.FeasTol {
			c = classBad
		}
		bars = append(bars, sims.Bar{Label: fmt.Sprintf("T#μ_%d", j+1), Value: push[j], Class: c})
	}
	charts = append(charts, sims.BarChart{Title: "ν against T#μ", Bars: bars, Max: maxOf(s.p.Nu, push)})
	charts = append(charts, s.costChart())
	metrics := []sims.Metric{
		{Name: "candidate", Value: float64(g.Count())},
		{Name: "feasible", Value: float64(g.FeasibleSeen())},
	}
	if g.Count() > 0 && g.Feasible() {
		metrics = append(metrics, sims.Metric{Name: "cost", Value: g.Cost()})
	}
	if !math.IsInf(g.Best(), 1) {
		metrics = append(metrics, sims.Metric{Name: "best", Value: g.Best()}, sims.Metric{Name: "optimal", Value: float64(len(g.Optimal()))})
	}
	return sims.Frame{Sim: Assignment.Name, Step: g.Count(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

// atomLabels numbers the atoms 1 … 9 on the picture, when there are few.
func atomLabels(l layout) []sims.Marker {
	if len(l.xs) > 9 || len(l.xt) > 9 {
		return nil
	}
	var out []sims.Marker
	for i := range l.xs {
		out = append(out, sims.Marker{X: l.xs[i], Y: l.ys[i], Glyph: rune('1' + i), Class: classSource})
	}
	for j := range l.xt {
		out = append(out, sims.Marker{X: l.xt[j], Y: l.yt[j], Glyph: rune('1' + j), Class: classTarget})
	}
	return out
}

// mapString writes a map as T = (y3, y1, y2).
func mapString(t []int) string {
	parts := make([]string, len(t))
	for i, j := range t {
		parts[i] = fmt.Sprintf("y%d", j+1)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (s *mongeSim) notes() []string {
	g := s.g
	lines := []string{"feasible: T#μ = ν, ν_j = Σ_{T(x_i)=y_j} μ_i (5.2); a map splits no mass"}
	if g.Count() > 0 {
		verdict := "feasible"
		if !g.Feasible() {
			verdict = "infeasible: T#μ ≠ ν"
		} else {
			verdict += fmt.Sprintf(", cost Σμ_i C(x_i,T(x_i)) = %.4g", g.Cost())
		}
		lines = append(lines, fmt.Sprintf("T = %s: %s", mapString(g.Map()), verdict))
	}
	if s.done {
		switch opt := g.Optimal(); {
		case g.FeasibleSeen() == 0:
			lines = append(lines, fmt.Sprintf("none of the %d maps is feasible: no Monge map exists (Ex 5.1 ii, Remark 5.1)", g.Total()))
		case len(opt) == 1:
			lines = append(lines, fmt.Sprintf("%d feasible; the optimal map is %s, cost %.4g", g.FeasibleSeen(), mapString(opt[0]), g.Best()))
		default:
			ms := make([]string, len(opt))
			for k, t := range opt {
				ms[k] = mapString(t)
			}
			lines = append(lines, fmt.Sprintf("%d optimal maps of cost %.4g: %s — not unique (Ex 5.2)", len(opt), g.Best(), strings.Join(ms, ", ")))
		}
	}
	lines = append(lines, "cost Σμ_i C(x_i,T(x_i)) (5.4); (5.3)'s unweighted sum fits equal masses only")
	return lines
}

func (s *mongeSim) Result() map[string]any {
	g := s.g
	r := map[string]any{
		"candidates": g.Count(),
		"total":      g.Total(),
		"feasible":   g.FeasibleSeen(),
		"finished":   s.done,
	}
	if !math.IsInf(g.Best(), 1) {
		r["best_cost"] = g.Best()
		r["optimal_maps"] = g.Optimal()
	}
	return r
}

// hungarianSim runs the Hungarian algorithm.
type hungarianSim struct {
	p     *problem
	h     *assign.Hungarian
	l     layout
	trace *sims.Trace // cost of the partial matching, dual bound
	match []int
	done  bool
}

func newHungarianSim(p *problem, v param.Values) (sims.Sim, error) {
	n, m := p.N(), p.M()
	if !isAssignment(p) {
		return nil, &algo.ParamError{Name: asMethod.Name(), Value: v.Text(asMethod.Name()),
			Allowed: fmt.Sprintf("enumerate for this problem: the Hungarian algorithm solves the assignment problem, "+
				"N = M atoms of mass 1/N, and this one has N = %d, M = %d with masses μ = %s", n, m, shortVec(p.Mu))}
	}
	h, err := assign.NewHungarian(p.C)
	if err != nil {
		return nil, err
	}
	s := &hungarianSim{p: p, h: h, l: newLayout(p), trace: sims.NewTrace(1, 2)}
	return s, nil
}

// shortVec writes the first few entries of w.
func shortVec(w []float64) string {
	parts := make([]string, 0, 5)
	for i, x := range w {
		if i == 4 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%.3g", x))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (s *hungarianSim) Step() error {
	err := s.h.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		s.trace.Add(s.h.Cost(), s.h.LowerBound())
	}
	s.done = errors.Is(err, algo.ErrConverged)
	return err
}

func (s *hungarianSim) Frame() sims.Frame {
	h := s.h
	n := h.Size()
	s.match = h.Matching(s.match)
	plan := make([]float64, n*n)
	for i, j := range s.match {
		if j >= 0 {
			plan[i*n+j] = 1 / float64(n)
		}
	}
	pic := couplingChart(fmt.Sprintf("matching: %d of %d", h.Matched(), n), s.l, plan, n)
	for k := range pic.Paths {
		pic.Paths[k].Dotted = false
	}
	// The row being inserted and the columns of its alternating tree.
	var mk []sims.Marker
	if r := h.Row(); r >= 0 {
		mk = append(mk, sims.Marker{X: s.l.xs[r], Y: s.l.ys[r], Glyph: '◆', Class: classMark})
		for j := range n {
			if h.InTree(j) {
				mk = append(mk, sims.Marker{X: s.l.xt[j], Y: s.l.yt[j], Glyph: '○', Class: classMark})
			}
		}
	}
	if h.Last() == assign.Augment && !s.done {
		// The pairs the augmentation made: the columns of its path with
		// their new rows.
		for _, j := range h.Path() {
			for i, jj := range s.match {
				if jj == j {
					pic.Paths = append(pic.Paths, sims.Path{X: []float64{s.l.xs[i], s.l.xt[j]}, Y: []float64{s.l.ys[i], s.l.yt[j]}, Class: classMark})
				}
			}
		}
	}
	pic.Markers = mk
	pic.Legend = []string{"μ", "ν", "matched", "tree, path"}
	x0, x1 := s.trace.Span()
	charts := []sims.Chart{
		pic,
		sims.LineChart{Title: "dual bound and matched cost", X0: x0, X1: x1, XLabel: "step",
			Series: onTop(
				sims.Series{Name: "cost so far", Y: s.trace.Column(0), Class: classPlan},
				sims.Series{Name: "dual", Y: s.trace.Column(1), Class: classRef, Bound: true},
			)},
	}
	metrics := []sims.Metric{
		{Name: "matched", Value: float64(h.Matched())},
		{Name: "scans", Value: float64(h.Scans())},
		{Name: "cost", Value: h.Cost()},
		{Name: "dual", Value: h.LowerBound()},
	}
	return sims.Frame{Sim: Assignment.Name, Step: h.Scans(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

func (s *hungarianSim) notes() []string {
	h := s.h
	lines := []string{"assignment problem (Example 5.2): a permutation σ, min (1/N)Σ C_iσ(i)"}
	switch {
	case s.done:
		lines = append(lines, fmt.Sprintf("optimal: the dual (Σu + Σv)/N = %.6g equals the cost (strong duality)", h.LowerBound()))
	case h.Last() == assign.Augment:
		lines = append(lines, fmt.Sprintf("augment: the path to a free column flipped, %d rows matched", h.Matched()))
	case h.Last() == assign.Scan:
		lines = append(lines, fmt.Sprintf("scan ◆ row %d: column %d joins its tree ○, potentials move by δ = %.3g", h.Row(), h.Reached(), h.Delta()))
	default:
		lines = append(lines, "start: u_i = min_j C_ij, v = 0; rows are inserted one at a time")
	}
	lines = append(lines, "u_i + v_j ≤ C_ij always: the dual (Σu + Σv)/N is a lower bound on the optimum")
	return lines
}

func (s *hungarianSim) Result() map[string]any {
	return map[string]any{
		"matching":    s.h.Matching(nil),
		"cost":        s.h.Cost(),
		"lower_bound": s.h.LowerBound(),
		"scans":       s.h.Scans(),
		"finished":    s.done,
	}
}
