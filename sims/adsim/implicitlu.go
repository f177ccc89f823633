package adsim

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad"
	"github.com/thelab/lab/algo/ad/implicit"
	"github.com/thelab/lab/sims"
	"gonum.org/v1/gonum/mat"
)

// equilibrium is the lu demo's implicit layer: w = tanh(Aw + Bλ) in R³
// with two parameters, written as F(w, λ) = w − tanh(Aw + Bλ) = 0 (a
// contraction: ‖A‖ < 1, so the equilibrium is unique).
const equilibrium = "w1 - tanh(0.3*w1 - 0.2*w2 + 0.1*w3 + l1 + 0.5*l2), " +
	"w2 - tanh(0.2*w1 + 0.1*w2 - 0.3*w3 - 0.5*l1 + l2), " +
	"w3 - tanh(-0.1*w1 + 0.4*w2 + 0.2*w3 + 0.3*l1 - 0.8*l2)"

// equilibriumVars are w (from 0) and λ.
var equilibriumVars = []ad.Var{{Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "l1", Value: 0.7}, {Name: "l2", Value: -0.4}}

// luPhase is where the lu demo is.
type luPhase int

const (
	luNewton luPhase = iota // solving F(w, λ) = 0
	luFactor                // factorising ∂₁F once
	luJVP                   // one JVP per parameter: a column of ∂w*/∂λ
	luVJP                   // one VJP per unknown: a row
	luDone
)

// luSim is the implicit sim's §1.11: solve an implicit layer by Newton,
// factorise ∂₁F once, then get ∂w*/∂λ by JVPs (columns) and VJPs (rows)
// from the same LU, against central differences of re-solving.
type luSim struct {
	g      *ad.Graph
	nt     *implicit.Newton
	im     *implicit.Implicit
	lambda []float64
	phase  luPhase
	k      int // products taken in the phase
	steps  int
	factor int
	res    *sims.Trace
	jvp    *mat.Dense // n×p, filled by columns
	vjp    *mat.Dense // n×p, filled by rows
	fd     *mat.Dense
	jvps   int
	vjps   int
	col    int // the column the last step filled by a JVP, or −1
	row    int // the row the last step filled by a VJP, or −1
}

func newImplicitLU() (sims.Sim, error) {
	g, err := ad.Parse(equilibrium, equilibriumVars)
	if err != nil {
		return nil, err
	}
	nt, err := implicit.NewNewton(g)
	if err != nil {
		return nil, err
	}
	s := &luSim{g: g, nt: nt, res: sims.NewTrace(0, 1), jvp: mat.NewDense(3, 2, nil), vjp: mat.NewDense(3, 2, nil), col: -1, row: -1}
	for _, v := range equilibriumVars[3:] {
		s.lambda = append(s.lambda, v.Value)
	}
	s.res.Add(nt.Residual())
	return s, nil
}

func (s *luSim) Step() error {
	n, p := s.jvp.Dims()
	s.col, s.row = -1, -1
	switch s.phase {
	case luNewton:
		err := s.nt.Step()
		s.res.Add(s.nt.Residual())
		if errors.Is(err, algo.ErrConverged) {
			s.phase = luFactor
		} else if err != nil {
			return err
		}
	case luFactor:
		dF1, dF2, err := implicit.Partials(s.g, n)
		if err != nil {
			return err
		}
		if s.im, err = implicit.NewImplicit(dF1, dF2); err != nil {
			return err
		}
		s.factor++
		if s.fd, err = s.resolveDifferences(); err != nil {
			return err
		}
		s.phase = luJVP
	case luJVP:
		e, col := make([]float64, p), make([]float64, n)
		e[s.k] = 1
		if err := s.im.JVP(col, e); err != nil {
			return err
		}
		s.jvp.SetCol(s.k, col)
		s.col = s.k
		s.jvps++
		s.k++
		if s.k == p {
			s.phase, s.k = luVJP, 0
		}
	case luVJP:
		r, row := make([]float64, n), make([]float64, p)
		r[s.k] = 1
		if err := s.im.VJP(row, r); err != nil {
			return err
		}
		s.vjp.SetRow(s.k, row)
		s.row = s.k
		s.vjps++
		s.k++
		if s.k == n {
			s.phase = luDone
		}
	default:
		return algo.ErrConverged
	}
	s.steps++
	return nil
}

// resolveDifferences is ∂w*/∂λ by central differences of the solver:
// Newton re-run from w* on a twin graph at λ ± h e_k.
func (s *luSim) resolveDifferences() (*mat.Dense, error) {
	const h = 1e-6
	twin, err := ad.Parse(equilibrium, equilibriumVars)
	if err != nil {
		return nil, err
	}
	n, p := s.jvp.Dims()
	x := make([]float64, n+p)
	copy(x, s.nt.W())
	copy(x[n:], s.lambda)
	if err := twin.SetInputs(x); err != nil {
		return nil, err
	}
	nt, err := implicit.NewNewton(twin)
	if err != nil {
		return nil, err
	}
	D := mat.NewDense(n, p, nil)
	lam := make([]float64, p)
	for k := range p {
		var w [2][]float64
		for side, sign := range []float64{1, -1} {
			copy(lam, s.lambda)
			lam[k] += sign * h
			if err := nt.SetParams(lam); err != nil {
				return nil, err
			}
			if err := nt.Solve(50); err != nil {
				return nil, err
			}
			w[side] = append([]float64(nil), nt.W()...)
		}
		for i := range n {
			D.Set(i, k, (w[0][i]-w[1][i])/(2*h))
		}
	}
	return D, nil
}

// jvpScale is the largest |entry| of the Jacobian computed so far by
// JVPs: the size of what jvp_vjp compares.
func (s *luSim) jvpScale() float64 {
	m := 0.0
	n, p := s.jvp.Dims()
	for i := range n {
		for k := range min(p, s.jvps) {
			m = math.Max(m, math.Abs(s.jvp.At(i, k)))
		}
	}
	return m
}

// errors are the largest |JVP − VJP| and |JVP − central difference| over
// the entries both have.
func (s *luSim) errors() (jv, fd float64) {
	n, p := s.jvp.Dims()
	for i := range n {
		for k := range p {
			if k < s.jvps && i < s.vjps {
				jv = math.Max(jv, math.Abs(s.jvp.At(i, k)-s.vjp.At(i, k)))
			}
			if k < s.jvps && s.fd != nil {
				fd = math.Max(fd, math.Abs(s.jvp.At(i, k)-s.fd.At(i, k)))
			}
		}
	}
	return jv, fd
}

func (s *luSim) Frame() sims.Frame {
	n, p := s.jvp.Dims()
	x0, x1 := s.res.Span()
	newton := sims.LineChart{Title: "Newton: ‖F(w, λ)‖∞", LogY: true, X0: x0, X1: x1, XLabel: "iteration",
		Series: []sims.Series{{Name: "residual", Y: s.res.Column(0), Class: classDone}}}
	t := sims.TableChart{Title: "∂w*/∂λ three ways", Corner: "w*",
		Columns: []string{"JVP λ1", "JVP λ2", "VJP λ1", "VJP λ2", "fd λ1", "fd λ2"}}
	for i := range n {
		row := sims.TableRow{Label: fmt.Sprintf("w%d = %s", i+1, num(s.nt.W()[i]))}
		for k := range p {
			row.Cells = append(row.Cells, s.cell(s.jvp.At(i, k), k < s.jvps, k == s.col))
		}
		for k := range p {
			row.Cells = append(row.Cells, s.cell(s.vjp.At(i, k), i < s.vjps, i == s.row))
		}
		for k := range p {
			if s.fd == nil {
				row.Cells = append(row.Cells, sims.Cell{Text: "·", Tone: sims.ToneDim})
			} else {
				row.Cells = append(row.Cells, numCell(s.fd.At(i, k)))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	solves := s.solves()
	jv, fd := s.errors()
	return sims.Frame{
		Sim:  Implicit.Name,
		Step: s.steps,
		Metrics: []sims.Metric{
			{Name: "newton", Value: float64(s.nt.Iter())},
			{Name: "lu", Value: float64(s.factor)},
			{Name: "solves", Value: float64(solves)},
			// the difference of two ways of computing the same entries:
			// rounding at their size reads ≈ 0 (issue 26.8)
			{Name: "jvp_vjp", Value: jv, Scale: s.jvpScale()},
			{Name: "fd_err", Value: fd},
		},
		Charts: []sims.Chart{newton, t},
		Text:   s.notes(solves, jv, fd),
	}
}

// solves counts the triangular-solve pairs so far (none before the LU).
func (s *luSim) solves() int {
	if s.im == nil {
		return 0
	}
	return s.im.Solves()
}

// cell is a product's entry: computed or not, just computed or not.
func (s *luSim) cell(x float64, filled, now bool) sims.Cell {
	switch {
	case !filled:
		return sims.Cell{Text: "·", Tone: sims.ToneDim}
	case now:
		return numCell(x).Styled(sims.ToneFocus, classNow)
	}
	return numCell(x).Styled(sims.ToneInk, classDone)
}

func (s *luSim) notes(solves int, jv, fd float64) []string {
	lines := []string{"an implicit layer w = tanh(Aw + Bλ): F(w, λ) = w − tanh(Aw + Bλ) = 0"}
	switch s.phase {
	case luNewton:
		lines = append(lines, fmt.Sprintf("Newton step %d: w ← w − (∂₁F)⁻¹F, ∂₁F by reverse mode", s.nt.Iter()))
	case luFactor:
		lines = append(lines, "solved; next: factorise ∂₁F = LU once")
	case luJVP:
		if s.jvps == 0 {
			lines = append(lines, "∂₁F = LU, once: each product is now two triangular solves")
		} else {
			lines = append(lines, fmt.Sprintf("JVP %d: Ly = ∂₂F e, Uz = y, t = −z: a column (eqs 1.44–1.46)", s.jvps))
		}
	case luVJP:
		lines = append(lines, fmt.Sprintf("VJP %d: (∂₁F)ᵀy = e, r = −(∂₂F)ᵀy: a row (eqs 1.47–1.48)", s.vjps))
	default:
		lines = append(lines, fmt.Sprintf("%d factorisation, %d solves: JVPs = VJPs to %s, re-solving to %s", s.factor, solves, sci(jv, 1), sci(fd, 1)))
	}
	return append(lines, "the notes flip A's sign from JVP to VJP; one LU of ∂₁F serves both")
}

func (s *luSim) Result() map[string]any {
	jv, fd := s.errors()
	solves := s.solves()
	n, _ := s.jvp.Dims()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = mat.Row(nil, i, s.jvp)
	}
	return map[string]any{"w": append([]float64(nil), s.nt.W()...), "newton": s.nt.Iter(), "factorisations": s.factor,
		"solves": solves, "jvp_vjp": jv, "err_fd": fd, "dw_dlambda": rows}
}
