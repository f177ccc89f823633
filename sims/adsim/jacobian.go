package adsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo/ad"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// jacMax is the largest n and m the pane's table shows.
const jacMax = 8

// jacobian's parameters.
var (
	jacN    = param.Int("n", 5, "inputs n of f: Rⁿ → Rᵐ").Range(1, jacMax)
	jacM    = param.Int("m", 4, "outputs m of f: Rⁿ → Rᵐ").Range(1, jacMax)
	jacMode = param.Choice("mode", []ad.Mode{ad.ForwardMode, ad.ReverseMode}, ad.ForwardMode,
		"forward: one JVP J·e_k per column, n passes; reverse: one VJP e_jᵀJ per row, m passes")
)

// Jacobian assembles the m×n Jacobian of f_i(x) = x_{i mod n}·tanh(w_i·x)
// one pass per step (seed 000 §1.5): a JVP with a one-hot seed fills a
// column (eq 1.13), a VJP a row (eq 1.14), so the whole matrix takes
// exactly n forward or m reverse passes (L183); it is checked against
// central finite differences (gonum diff/fd).
var Jacobian = &sims.Spec{
	Name:   "jacobian",
	Title:  "Jacobian by JVPs (a column per pass) or VJPs (a row per pass), against finite differences",
	Source: "seed 000 §1.5 (eqs 1.13–1.14, L183–189)",
	Steps:  20,
	Speed:  1,
	// n passes of a few seconds: the pane then shows the next seed's
	// function, whose Jacobian fills the same way.
	Replay: sims.ReplayPause,
	Params: param.List(jacN, jacM, jacMode),
	New:    newJacobian,
	Size:   jacobianSize,

	Metrics: jacobianMetrics,
}

// jacobianSize is the function's graph (m outputs of n terms each) and the
// Jacobian's assembly, the finite differences and the Frame's table and
// picture of it: about 900 bytes an entry of J.
func jacobianSize(cfg sims.Config) int64 {
	return jacBase + 900*int64(jacN.Get(cfg.Values))*int64(jacM.Get(cfg.Values))
}

// jacBase is what jacobian holds whatever its size: the sim and the
// Frame's charts and texts.
const jacBase = 12 << 10

type jacobianSim struct {
	g    *ad.Graph
	jac  *ad.Jacobian
	mode ad.Mode
	n, m int
	fd   *mat.Dense // central differences
	src  string
}

// jacobianFunction writes f_i(x) = x_{(i mod n)+1}·tanh(w_i·x), i = 1..m,
// with weights and a point drawn from rng (one decimal, two decimals).
func jacobianFunction(n, m int, rng *rand.Rand) (string, []ad.Var) {
	var outs []string
	for i := range m {
		var sum strings.Builder
		for j := range n {
			w := math.Round(20*rng.Float64()-10)/10 + 0 // no −0
			switch {
			case j == 0:
				fmt.Fprintf(&sum, "%g*x%d", w, j+1)
			case w < 0:
				fmt.Fprintf(&sum, " - %g*x%d", -w, j+1)
			default:
				fmt.Fprintf(&sum, " + %g*x%d", w, j+1)
			}
		}
		outs = append(outs, fmt.Sprintf("x%d*tanh(%s)", i%n+1, sum.String()))
	}
	vars := make([]ad.Var, n)
	for j := range vars {
		vars[j] = ad.Var{Name: fmt.Sprintf("x%d", j+1), Value: math.Round(200*rng.Float64()-100) / 100}
	}
	return strings.Join(outs, ", "), vars
}

func newJacobian(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &jacobianSim{n: jacN.Get(v), m: jacM.Get(v), mode: jacMode.Get(v)}
	src, vars := jacobianFunction(s.n, s.m, rand.New(rand.NewPCG(cfg.Seed, 0x6a6163))) // "jac"
	s.src = src
	var err error
	if s.g, err = ad.Parse(src, vars); err != nil {
		return nil, err
	}
	if s.jac, err = ad.NewJacobian(s.g, s.mode); err != nil {
		return nil, err
	}
	// Central differences on a twin graph, so the assembly's is untouched.
	twin, err := ad.Parse(src, vars)
	if err != nil {
		return nil, err
	}
	e := &evaluator{g: twin}
	s.fd = mat.NewDense(s.m, s.n, nil)
	fd.Jacobian(s.fd, e.at, twin.InputValues(make([]float64, s.n)), &fd.JacobianSettings{Formula: fd.Central})
	if e.err != nil {
		return nil, e.err
	}
	return s, nil
}

func (s *jacobianSim) Step() error { return s.jac.Step() }

// fdErr is the largest |J_ij − J_fd,ij| over the entries filled so far.
func (s *jacobianSim) fdErr() float64 {
	e := 0.0
	for i := range s.m {
		for j := range s.n {
			if s.jac.Filled(i, j) {
				e = math.Max(e, math.Abs(s.jac.J.At(i, j)-s.fd.At(i, j)))
			}
		}
	}
	return e
}

func (s *jacobianSim) Frame() sims.Frame {
	k := s.jac.Passes()
	t := sims.TableChart{Title: "J = ∂f/∂x", Corner: "f\\x", Matrix: true}
	for j := range s.n {
		t.Columns = append(t.Columns, fmt.Sprintf("x%d", j+1))
	}
	for i := range s.m {
		row := sims.TableRow{Label: fmt.Sprintf("f%d", i+1)}
		for j := range s.n {
			cell := sims.Cell{Text: "·", Tone: sims.ToneDim}
			if s.jac.Filled(i, j) {
				cell = numCell(s.jac.J.At(i, j)).Styled(sims.ToneInk, classDone)
				if last := k - 1; s.mode == ad.ForwardMode && j == last || s.mode == ad.ReverseMode && i == last {
					cell.Tone, cell.Class = sims.ToneFocus, classNow
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	// The same matrix as a picture: its entries on a diverging scale, the
	// cells not yet computed blank (NaN) and in shadow.
	z, shade := make([]float64, s.m*s.n), make([]float64, s.m*s.n)
	lim := 0.0
	for i := range s.m {
		for j := range s.n {
			lim = math.Max(lim, math.Abs(s.fd.At(i, j)))
			c := (s.m-1-i)*s.n + j // grid rows run upwards
			z[c] = math.NaN()
			if s.jac.Filled(i, j) {
				z[c], shade[c] = s.jac.J.At(i, j), 1
			}
		}
	}
	lim = math.Max(lim, 1e-300)
	xs, fs := make([]string, s.n), make([]string, s.m)
	for j := range xs {
		xs[j] = fmt.Sprintf("x%d", j+1)
	}
	for i := range fs {
		fs[i] = fmt.Sprintf("f%d", i+1)
	}
	heat := sims.CanvasChart{Title: fmt.Sprintf("J filling by %s", map[ad.Mode]string{ad.ForwardMode: "columns", ad.ReverseMode: "rows"}[s.mode]),
		View:   sims.Rect{XMin: 0.5, XMax: float64(s.n) + 0.5, YMin: 0.5, YMax: float64(s.m) + 0.5},
		Heat:   &sims.Grid{NX: s.n, NY: s.m, Z: z, Shade: shade, Scale: sims.Diverging, Lo: -lim, Hi: lim},
		XLabel: "column", YLabel: "row",
		// Entry (i, j) of J, from 1 as in the table, is centred at (j, m+1−i).
		XIndex: &sims.Index{First: 1, Last: s.n, At: 0, Step: 1, Labels: xs},
		YIndex: &sims.Index{First: 1, Last: s.m, At: float64(s.m + 1), Step: -1, Labels: fs}}
	return sims.Frame{
		Sim:  Jacobian.Name,
		Step: k,
		Metrics: []sims.Metric{
			{Name: "passes", Value: float64(k)},
			{Name: "of", Value: float64(s.jac.Len())},
			{Name: "fd_err", Value: s.fdErr()},
			{Name: "ops", Value: float64(s.g.Ops())},
		},
		Charts: []sims.Chart{heat, t},
		Text:   s.notes(k),
	}
}

func (s *jacobianSim) notes(k int) []string {
	var lines []string
	switch {
	case k == 0:
		lines = append(lines, fmt.Sprintf("f: R^%d → R^%d, f_i = x_(i mod n)·tanh(w_i·x) at a seeded x", s.n, s.m))
	case s.mode == ad.ForwardMode:
		lines = append(lines, fmt.Sprintf("pass %d: JVP J·e_%d fills column %d (eq 1.13)", k, k, k))
	default:
		lines = append(lines, fmt.Sprintf("pass %d: VJP e_%dᵀJ fills row %d (eq 1.14)", k, k, k))
	}
	if s.jac.Done() {
		lines = append(lines, fmt.Sprintf("J complete in %d passes; central differences agree to %.1e", k, s.fdErr()))
	}
	switch {
	case s.n < s.m:
		lines = append(lines, fmt.Sprintf("n = %d JVPs or m = %d VJPs: n < m, forward is faster", s.n, s.m))
	case s.n > s.m:
		lines = append(lines, fmt.Sprintf("n = %d JVPs or m = %d VJPs: n > m, reverse is faster", s.n, s.m))
	default:
		lines = append(lines, fmt.Sprintf("n = m = %d passes either way: neither mode prevails", s.n))
	}
	return lines
}

func (s *jacobianSim) Result() map[string]any {
	J := make([][]float64, s.m)
	for i := range J {
		J[i] = mat.Row(nil, i, s.jac.J)
	}
	return map[string]any{
		"mode":     s.mode.String(),
		"passes":   s.jac.Passes(),
		"done":     s.jac.Done(),
		"jacobian": J,
		"fd_err":   s.fdErr(),
		"function": s.src,
	}
}
