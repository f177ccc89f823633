package adsim

import (
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/algo/ad"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// hessFn is a test function of the hessian sim.
type hessFn string

const (
	hessRosenbrock hessFn = "rosenbrock" // Σ (1 − x_i)² + 100(x_{i+1} − x_i²)²
	hessChain      hessFn = "chain"      // K sines after a product of the inputs
)

func (f hessFn) String() string { return string(f) }

// Bounds of the hessian sim: the table shows n ≤ hessMaxN; a chain of
// hessMaxK operations keeps a run well under a millisecond.
const (
	hessMaxN = 6
	hessMaxK = 2000
)

// hessian's parameters.
var (
	hessFunc = param.Choice("fn", []hessFn{hessRosenbrock, hessChain}, hessRosenbrock,
		"rosenbrock: Σ (1−x_i)² + 100(x_{i+1}−x_i²)², at (1, …, 1) H = [[802, −400], [−400, 200]] for n = 2; "+
			"chain: s₀ = x₁x₂…x_n, then K sines (a tape of about K records)")
	hessN = param.Int("n", 5, "number of variables").Range(2, hessMaxN).
		DefaultWhen(func(v param.Values) bool { return hessFunc.Get(v) == hessChain }, 2,
			"5 (FoF's n² = 25 runs against the others' 5: 25 s in a pane); 2 for the chain")
	hessK  = param.Int("k", 20, "chain: the number K of sines").Range(1, hessMaxK)
	hessAt = param.Float("at", 1, "the point x = (at, …, at)").Range(-3, 3).
		DefaultWhen(func(v param.Values) bool { return hessFunc.Get(v) == hessChain }, 0.8, "1; 0.8 for the chain")
)

// Hessian runs the four second-order strategies side by side (seed 000
// §1.7, catalogue §1.8): forward on forward (one entry H_ij per hyper-dual
// run, n² runs), forward on reverse, reverse on forward and reverse on
// reverse (one column per run, n runs), counting runs, passes and the
// tape, all checked against each other and gonum's diff/fd.Hessian.
var Hessian = &sims.Spec{
	Name:   "hessian",
	Title:  "Hessian four ways: FoF (n² runs), FoR, RoF, RoR (n runs): passes, tape, agreement",
	Source: "seed 000 §1.7 (eqs 1.21–1.41, Tables 1.1–1.3)",
	Steps:  40,
	Speed:  1,
	Params: param.List(hessFunc, hessN, hessK, hessAt),
	New:    newHessian,
	Size:   hessianSize,

	Metrics: hessianMetrics,
}

// hessianSize is the four strategies' graphs and assemblies (the twin of
// the finite differences is garbage once they are known), and the Frame's
// table of the four Hessians, n² cells each, beside the trace of the work.
// The extended Rosenbrock function parses to 14 nodes a term; the chain is
// n inputs, n − 1 products and K sines.
func hessianSize(cfg sims.Config) int64 {
	n := hessN.Get(cfg.Values)
	nodes := 14 * (n - 1)
	if hessFunc.Get(cfg.Values) == hessChain {
		nodes = 2*n - 1 + hessK.Get(cfg.Values)
	}
	strategies := int64(len(ad.Strategies))
	return hessBase + strategies*(ad.GraphFootprint(nodes)+ad.HessianFootprint(nodes, n)+200*int64(n)*int64(n))
}

// hessBase is what hessian holds whatever its size: the sim, its trace and
// the Frame's charts and texts.
const hessBase = 96 << 10

type hessianSim struct {
	fn    hessFn
	n     int
	g     []*ad.Graph // one graph per strategy: each sweeps its own
	h     []*ad.Hessian
	fd    *mat.SymDense
	steps int
	ops   int
	work  *sims.Trace // node sweeps so far (passes × nodes) per strategy
}

// rosenbrockSource is the extended Rosenbrock function of n variables.
func rosenbrockSource(n int) string {
	var terms []string
	for i := 1; i < n; i++ {
		terms = append(terms, fmt.Sprintf("(1 - x%d)^2 + 100*(x%d - x%d^2)^2", i, i+1, i))
	}
	return strings.Join(terms, " + ")
}

// chainGraph is s₀ = x₁x₂…x_n followed by K sines (built node by node: the
// parser's nesting limit is below K).
func chainGraph(n, K int, at float64) (*ad.Graph, error) {
	g := ad.NewGraph()
	s := g.Input("x1", at)
	for i := 2; i <= n; i++ {
		s = g.Mul(s, g.Input(fmt.Sprintf("x%d", i), at))
	}
	for range K {
		s = g.Unary(ad.Sin, s)
	}
	return g, g.SetOutputs(s)
}

func (s *hessianSim) build(v param.Values) (*ad.Graph, error) {
	at := hessAt.Get(v)
	if s.fn == hessChain {
		return chainGraph(s.n, hessK.Get(v), at)
	}
	vars := make([]ad.Var, s.n)
	for i := range vars {
		vars[i] = ad.Var{Name: fmt.Sprintf("x%d", i+1), Value: at}
	}
	return ad.Parse(rosenbrockSource(s.n), vars)
}

func newHessian(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &hessianSim{fn: hessFunc.Get(v), n: hessN.Get(v), work: sims.NewTrace(0, len(ad.Strategies))}
	for _, st := range ad.Strategies {
		g, err := s.build(v)
		if err != nil {
			return nil, err
		}
		h, err := ad.NewHessian(g, st, 0)
		if err != nil {
			return nil, err
		}
		s.g, s.h = append(s.g, g), append(s.h, h)
	}
	s.ops = s.g[0].Ops()
	twin, err := s.build(v)
	if err != nil {
		return nil, err
	}
	e := &evaluator{g: twin}
	s.fd = mat.NewSymDense(s.n, nil)
	fd.Hessian(s.fd, e.scalar, twin.InputValues(make([]float64, s.n)), &fd.Settings{Formula: fd.Central, Step: 1e-4})
	if e.err != nil {
		return nil, e.err
	}
	s.record()
	return s, nil
}

// record adds each strategy's work so far: passes × nodes, the time of
// Tables 1.1 and 1.3 in node visits.
func (s *hessianSim) record() {
	row := make([]float64, len(s.h))
	for k, h := range s.h {
		row[k] = float64(h.Passes() * s.g[k].Len())
	}
	s.work.Add(row...)
}

// Step takes one run of every strategy that is not finished: after n
// steps three are done and FoF goes on to n².
func (s *hessianSim) Step() error {
	done := true
	for _, h := range s.h {
		if h.Done() {
			continue
		}
		done = false
		if err := h.Step(); err != nil {
			return fmt.Errorf("%v: %w", h.Strategy(), err)
		}
	}
	if done {
		return sims.ErrConverged
	}
	s.steps++
	s.record()
	return nil
}

// disagreement is the largest |H_ij − H'_ij| between strategy k and FoR
// over the entries both have, relative to max |H|.
func (s *hessianSim) disagreement(k int) float64 {
	ref, h := s.h[ad.FoR], s.h[k]
	d, scale := 0.0, 0.0
	for i := range s.n {
		for j := range s.n {
			if ref.Filled(i, j) && h.Filled(i, j) {
				d = math.Max(d, math.Abs(h.At(i, j)-ref.At(i, j)))
				scale = math.Max(scale, math.Abs(ref.At(i, j)))
			}
		}
	}
	return d / math.Max(scale, 1e-300)
}

func (s *hessianSim) Frame() sims.Frame {
	H := sims.TableChart{Title: "H four ways", Corner: "H_ij", Matrix: true}
	for j := range s.n {
		H.Columns = append(H.Columns, fmt.Sprintf("j=%d", j+1))
	}
	for k, h := range s.h {
		last := h.Runs() - 1
		for i := range s.n {
			row := sims.TableRow{Label: fmt.Sprintf("%v i=%d", h.Strategy(), i+1)}
			for j := range s.n {
				cell := sims.Cell{Text: "·", Tone: sims.ToneDim}
				if h.Filled(i, j) {
					cell = numCell(h.At(i, j)).Styled(sims.ToneInk, k)
					if s.justFilled(h, i, j, last) {
						cell.Tone = sims.ToneFocus
					}
				}
				row.Cells = append(row.Cells, cell)
			}
			H.Rows = append(H.Rows, row)
		}
	}
	board := sims.TableChart{Title: "cost (Tables 1.1, 1.3)", Corner: "",
		Columns: []string{"runs", "passes", "tape", "Δ FoR", "Δ fd"}}
	for k, h := range s.h {
		board.Rows = append(board.Rows, sims.TableRow{Label: h.Strategy().String(), Cells: []sims.Cell{
			sims.Num(float64(h.Runs()), fmt.Sprintf("%d/%d", h.Runs(), h.Len())).Styled(sims.ToneInk, k),
			sims.Num(float64(h.Passes()), fmt.Sprint(h.Passes())),
			sims.Num(float64(h.PeakTape()), fmt.Sprint(h.PeakTape())),
			sciCell(s.disagreement(k), 1),
			sciCell(s.fdErrOf(k), 1),
		}})
	}
	var series []sims.Series
	for k, h := range s.h {
		series = append(series, sims.Series{Name: h.Strategy().String(), Y: s.work.Column(k), Class: k})
	}
	x0, x1 := s.work.Span()
	work := sims.LineChart{Title: "work: passes × nodes", Series: series, X0: x0, X1: x1, XLabel: "step"}
	return sims.Frame{
		Sim:  Hessian.Name,
		Step: s.steps,
		Metrics: []sims.Metric{
			{Name: "runs_fof", Value: float64(s.h[ad.FoF].Runs())},
			{Name: "runs_ror", Value: float64(s.h[ad.RoR].Runs())},
			{Name: "diff", Value: s.agreeAll(), Scale: 1}, // relative: rounding reads ≈ 0
			{Name: "fd_err", Value: s.fdErrOf(int(ad.FoR))},
			{Name: "ops", Value: float64(s.ops)},
		},
		Charts: []sims.Chart{H, board, work},
		Text:   s.notes(),
	}
}

// fdErrOf is the largest |H_ij − H_fd,ij| over strategy k's entries so
// far, relative to max |H_fd|.
func (s *hessianSim) fdErrOf(k int) float64 {
	h := s.h[k]
	d, scale := 0.0, 0.0
	for i := range s.n {
		for j := range s.n {
			if h.Filled(i, j) {
				d = math.Max(d, math.Abs(h.At(i, j)-s.fd.At(i, j)))
			}
			scale = math.Max(scale, math.Abs(s.fd.At(i, j)))
		}
	}
	return d / math.Max(scale, 1e-300)
}

// justFilled reports whether H_ij came from run last of h.
func (s *hessianSim) justFilled(h *ad.Hessian, i, j, last int) bool {
	if last < 0 {
		return false
	}
	if h.Strategy() == ad.FoF {
		return i*s.n+j == last
	}
	return j == last
}

func (s *hessianSim) notes() []string {
	var lines []string
	if s.fn == hessRosenbrock {
		lines = append(lines, fmt.Sprintf("f = Rosenbrock in %d variables; K = %d operations", s.n, s.ops))
	} else {
		lines = append(lines, fmt.Sprintf("f = sin∘…∘sin(x₁⋯x_%d); K = %d operations", s.n, s.ops))
	}
	lines = append(lines,
		"FoF: a hyper-dual run per entry wᵀHv, n² runs, no tape (eq 1.21)",
		"FoR, RoF: a column Hv per run, tape K (1.24, 1.27); RoR: 2K (1.41)")
	if s.h[ad.FoF].Done() {
		agree := "exactly"
		if d := s.agreeAll(); d > 0 {
			agree = "to " + sci(d, 1)
		}
		lines = append(lines, fmt.Sprintf("all four agree %s; central differences to %s", agree, sci(s.fdErrOf(int(ad.FoR)), 1)))
	}
	return lines
}

// agreeAll is the largest relative disagreement of a strategy with FoR
// (the diff metric: 0 when all four agree exactly).
func (s *hessianSim) agreeAll() float64 {
	worst := 0.0
	for k := range s.h {
		worst = math.Max(worst, s.disagreement(k))
	}
	return worst
}

func (s *hessianSim) Result() map[string]any {
	res := map[string]any{"diff": s.agreeAll(), "fd_err": s.fdErrOf(int(ad.FoR)), "ops": s.ops}
	for _, h := range s.h {
		H := make([]float64, 0, s.n*s.n)
		for i := range s.n {
			for j := range s.n {
				H = append(H, h.At(i, j))
			}
		}
		res[h.Strategy().String()] = map[string]any{
			"runs": h.Runs(), "passes": h.Passes(), "peak_tape": h.PeakTape(), "hessian": H}
	}
	return res
}
