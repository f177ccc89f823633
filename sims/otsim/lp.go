package otsim

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/lp"
	"github.com/thelab/lab/algo/ot/oned"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/floats"
)

// LP is the Kantorovich problem as a linear programme (seed 002 §5.3–5.4,
// eqs 5.5–5.6, Algorithm 4): the transportation simplex walks the vertices
// of Π(μ, ν) one pivot per step from the north-west corner, its plan as a
// heat map with the marginals beside it, the stepping-stone cycle of the
// last pivot drawn over it, the mass moved as lines from source to target,
// and the cost falling to gonum's lp.Simplex optimum (computed once, with
// the redundant marginal row dropped: the catalogue found that gonum
// refuses the full rank-deficient system).
var LP = &sims.Spec{
	Name:     "ot-lp",
	Title:    "Kantorovich LP: the transportation simplex pivot by pivot, beside gonum's simplex",
	Source:   "seed 002 §5.3–5.4 (eqs 5.5–5.6, Algorithm 4, Remarks 5.2–5.5, Ex 5.3–5.4)",
	Data:     dataNote,
	DataText: []sims.TextColumn{sideColumn},
	Steps:    5000,
	Speed:    1,
	Params:   param.List(lpProblem),
	New:      newLP,
	Size:     lpSize,

	Metrics: lpMetrics,
}

// lpMaxAtoms bounds each side: a pivot prices all n·m cells.
const lpMaxAtoms = 200

// lpRefCells is the most cells on which gonum's dense simplex is run as
// the reference (about 0.1 s at 400; 0.6 s at 900).
const lpRefCells = 400

var (
	lpPresets = []preset{preEx54, preThree, preEx52, preEx51Exists, preEx51None, preGaussHist, preGauss1D,
		preGaussians, preMixtures, preBoxes, preMoonsRing}
	lpProblem = newProblemParams(lpPresets, preMixtures, 15, 20, lpMaxAtoms, false)
)

// lpSize is the problem, the simplex (its plan and basis flags), the
// plan's chart and lines (a vertex has at most n + m − 1 nonzero cells),
// and the trace of the cost with its two curves. gonum's reference on a
// small problem is garbage once solved, and so is the Frame's copy of the
// plan once drawn.
func lpSize(cfg sims.Config) int64 {
	n, m, dim := lpProblem.atoms(cfg)
	return lpBase + problemBytes(n, m, dim) + lp.Footprint(n, m) +
		newPlanFrame(n, m).chartBytes(2) + linesBytes(n+m-1) + sims.TraceBytesAfter(1, 2, sims.TraceCap)
}

// lpBase is what ot-lp holds whatever its size: the sim, the Frame's
// charts and texts.
const lpBase = 24 << 10

type lpSim struct {
	p     *problem
	s     *lp.Simplex
	f     planFrame
	l     layout
	cost  *sims.Trace
	ref   float64 // gonum's optimum, NaN when not computed
	refOK bool
	refEr string // why there is no reference
	// sorted is the 1-D sorted (quantile) cost W_p^p when the problem is
	// 1-D with the ground cost, NaN otherwise (E3's oracle).
	sorted float64
	done   bool
}

func newLP(cfg sims.Config) (sims.Sim, error) {
	p, err := lpProblem.load(cfg, 0x6f742d6c70) // "ot-lp"
	if err != nil {
		return nil, err
	}
	s, err := lp.New(p.Mu, p.Nu, p.C)
	if err != nil {
		return nil, err
	}
	sim := &lpSim{p: p, s: s, f: newPlanFrame(p.N(), p.M()), l: newLayout(p), cost: sims.NewTrace(0, 1),
		ref: math.NaN(), sorted: sortedCost(p)}
	if cells := p.N() * p.M(); cells <= lpRefCells {
		_, c, err := lp.Reference(p.Mu, p.Nu, p.C)
		if err != nil {
			sim.refEr = "gonum: " + err.Error()
		} else {
			sim.ref, sim.refOK = c, true
		}
	} else {
		sim.refEr = fmt.Sprintf("gonum's dense simplex runs up to %d cells; this plan has %d", lpRefCells, cells)
	}
	sim.cost.Add(s.Cost())
	return sim, nil
}

// sortedCost is ∫|F_μ⁻ − F_ν⁻|^p, the cost of the monotone coupling, for
// a 1-D problem with the ground cost; NaN otherwise.
func sortedCost(p *problem) float64 {
	if p.Dim != 1 || p.Problem.C != nil {
		return math.NaN()
	}
	a, err1 := oned.Discrete(p.X, p.Mu)
	b, err2 := oned.Discrete(p.Y, p.Nu)
	if err1 != nil || err2 != nil {
		return math.NaN()
	}
	c, err := oned.Cost(a, b, p.pow)
	if err != nil {
		return math.NaN()
	}
	return c
}

func (s *lpSim) Step() error {
	err := s.s.Step()
	if s.s.Pivots() > 0 && (err == nil || errors.Is(err, algo.ErrConverged)) {
		s.cost.Add(s.s.Cost())
	}
	if errors.Is(err, algo.ErrConverged) {
		s.done = true
	}
	return err
}

func (s *lpSim) Frame() sims.Frame {
	m := s.p.M()
	plan := append([]float64(nil), s.s.Plan()...)
	nz := s.s.Nonzeros()
	heat := planChart(fmt.Sprintf("plan P, %d nonzero", nz), s.f, s.f.heat(plan), s.p.Mu, s.p.Nu, nil)
	heat.Paths = append(heat.Paths, s.cycle()...)
	heat.Markers = s.marks()
	heat.Legend = append(heat.Legend, "", "cycle")
	x0, x1 := s.cost.Span()
	series := []sims.Series{{Name: "⟨C,P⟩", Y: s.cost.Column(0), Class: classSource}}
	if s.refOK {
		series = append(series, sims.Series{Name: "gonum optimum", Y: s.cost.Map(func(int) float64 { return s.ref }), Class: classRef, Bound: true})
	}
	charts := []sims.Chart{
		heat,
		couplingChart("mass x_i → y_j", s.l, plan, m),
		sims.LineChart{Title: "⟨C,P⟩ per pivot", Series: onTop(series...), X0: x0, X1: x1, XLabel: "pivot"},
	}
	metrics := []sims.Metric{
		{Name: "cost", Value: s.s.Cost()},
		{Name: "pivots", Value: float64(s.s.Pivots())},
		{Name: "nonzeros", Value: float64(nz)},
	}
	if s.refOK {
		metrics = append(metrics, sims.Metric{Name: "gonum", Value: s.ref})
	}
	if !math.IsNaN(s.sorted) {
		metrics = append(metrics, sims.Metric{Name: "sorted", Value: s.sorted})
	}
	return sims.Frame{Sim: LP.Name, Step: s.s.Pivots(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

// cycle is the stepping-stone cycle of the last pivot through the cells'
// centres, closed.
func (s *lpSim) cycle() []sims.Path {
	c := s.s.Last().Cycle
	if len(c) == 0 {
		return nil
	}
	p := sims.Path{Class: classMark}
	for _, k := range append(c, c[0]) {
		x, y := s.f.cell(k.I, k.J)
		p.X, p.Y = append(p.X, x), append(p.Y, y)
	}
	return []sims.Path{p}
}

// marks are the cell that entered at the last pivot (⊕), the one that
// left (⊖) and the one that enters next (◇).
func (s *lpSim) marks() []sims.Marker {
	var out []sims.Marker
	if last := s.s.Last(); last.Cycle != nil {
		x, y := s.f.cell(last.Enter.I, last.Enter.J)
		out = append(out, sims.Marker{X: x, Y: y, Glyph: '⊕', Class: classMark})
		x, y = s.f.cell(last.Leave.I, last.Leave.J)
		out = append(out, sims.Marker{X: x, Y: y, Glyph: '⊖', Class: classBad})
	}
	if c, _, ok := s.s.Next(); ok {
		x, y := s.f.cell(c.I, c.J)
		out = append(out, sims.Marker{X: x, Y: y, Glyph: '◇', Class: classMark})
	}
	return out
}

func (s *lpSim) notes() []string {
	var lines []string
	last := s.s.Last()
	switch {
	case last.Cycle == nil:
		lines = append(lines, fmt.Sprintf("north-west corner: a vertex of Π(μ,ν), a basis tree of n+m−1 = %d cells",
			s.p.N()+s.p.M()-1))
	case last.Degenerate || last.Theta <= 1e-14:
		lines = append(lines, fmt.Sprintf("degenerate: ⊕ (%d,%d) in, ⊖ (%d,%d) out, θ = 0; the basis moved, P did not",
			last.Enter.I, last.Enter.J, last.Leave.I, last.Leave.J))
	default:
		lines = append(lines, fmt.Sprintf("⊕ (%d,%d) in, θ = %.3g round a cycle of %d, ⊖ (%d,%d) out: cost %+.3g",
			last.Enter.I, last.Enter.J, last.Theta, len(last.Cycle), last.Leave.I, last.Leave.J, last.Theta*last.Reduced))
	}
	if s.done {
		u, v := s.s.Potentials()
		dual := 0.0
		for i, x := range u {
			dual += s.s.Mu()[i] * x
		}
		for j, x := range v {
			dual += s.s.Nu()[j] * x
		}
		lines = append(lines, fmt.Sprintf("optimal: every C_ij − u_i − v_j ≥ 0, and Σμu + Σνv = %.6g = ⟨C,P⟩", dual))
	} else if c, r, ok := s.s.Next(); ok {
		lines = append(lines, fmt.Sprintf("next ◇ (%d,%d): the least reduced cost r = C − u − v = %.3g < 0", c.I, c.J, r))
	}
	if s.refOK {
		lines = append(lines, fmt.Sprintf("gonum lp.Simplex, one redundant marginal row dropped: %.6g", s.ref))
	} else if s.refEr != "" {
		lines = append(lines, s.refEr)
	}
	if !math.IsNaN(s.sorted) {
		lines = append(lines, fmt.Sprintf("1-D: the sorted coupling's cost ∫|F_μ⁻ − F_ν⁻|^p = %.6g (E3)", s.sorted))
	}
	if e := ex54(s.p.Mu, s.p.Nu, s.p.C); e != "" {
		lines = append(lines, e)
	}
	rows, cols := ot.MarginalError(s.s.Plan(), s.s.Mu(), s.s.Nu())
	// The defects are at rounding level of the masses moved, ‖μ‖₁ = ‖ν‖₁.
	mass := floats.Norm(s.s.Mu(), 1)
	lines = append(lines, fmt.Sprintf("marginals: ‖P1 − μ‖₁ %s, ‖Pᵀ1 − ν‖₁ %s", sims.IsResidual("%.1e", rows, mass), sims.IsResidual("%.1e", cols, mass)))
	return lines
}

// ex54 is the closed form of Exercise 5.4 for a 2×2 problem: the plans
// P(p) = [[p, μ1 − p], [ν1 − p, μ2 − ν1 + p]] for p between
// max(0, ν1 − μ2) and min(μ1, ν1), and the optimum at the lower end when
// Δ = c11 − c12 − c21 + c22 > 0, the upper when Δ < 0; "" unless 2×2.
func ex54(mu, nu, c []float64) string {
	if len(mu) != 2 || len(nu) != 2 {
		return ""
	}
	lo, hi := math.Max(0, nu[0]-mu[1]), math.Min(mu[0], nu[0])
	d := c[0] - c[1] - c[2] + c[3]
	p := lo
	switch {
	case d < 0:
		p = hi
	case d == 0:
		return fmt.Sprintf("Ex 5.4: Δ = 0: every p in [%.3g, %.3g] is optimal", lo, hi)
	}
	cost := c[0]*p + c[1]*(mu[0]-p) + c[2]*(nu[0]-p) + c[3]*(mu[1]-nu[0]+p)
	return fmt.Sprintf("Ex 5.4: p ∈ [%.3g, %.3g], Δ = %.3g ⇒ p* = %.3g, cost %.6g", lo, hi, d, p, cost)
}

func (s *lpSim) Result() map[string]any {
	rows, cols := ot.MarginalError(s.s.Plan(), s.s.Mu(), s.s.Nu())
	r := map[string]any{
		"cost":             s.s.Cost(),
		"pivots":           s.s.Pivots(),
		"degenerate":       s.s.Degenerate(),
		"nonzeros":         s.s.Nonzeros(),
		"optimal":          s.done,
		"row_marginal_err": rows,
		"col_marginal_err": cols,
	}
	if s.refOK {
		r["gonum_cost"] = s.ref
	}
	if !math.IsNaN(s.sorted) {
		r["sorted_cost"] = s.sorted
	}
	if n, m := s.p.N(), s.p.M(); n*m <= lpRefCells {
		r["plan"] = matrix(s.s.Plan(), n, m)
	}
	return r
}

// matrix copies an n×m row-major matrix into rows.
func matrix(a []float64, n, m int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = append([]float64(nil), a[i*m:(i+1)*m]...)
	}
	return out
}
