package adsim

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad/implicit"
	"github.com/thelab/lab/sims"
)

// heronSim is the implicit sim's §1.9: Heron's iteration for √a carrying
// dx/da two ways, unrolled through the iterations by dual numbers and by
// the implicit function theorem at the current iterate.
type heronSim struct {
	h    *implicit.Heron
	a    float64
	errs *sims.Trace // |x_k − √a|, |unrolled − 1/(2√a)|, |IFT − 1/(2√a)|
	rows []sims.TableRow
	done bool
}

func newHeron(a, x0 float64) (sims.Sim, error) {
	h, err := implicit.NewHeron(a, x0)
	if err != nil {
		return nil, err
	}
	s := &heronSim{h: h, a: a, errs: sims.NewTrace(0, 3)}
	s.record()
	return s, nil
}

// errors are the three errors at the current iterate.
func (s *heronSim) errors() (x, unrolled, ift float64) {
	d := s.h.Exact()
	return math.Abs(s.h.X() - math.Sqrt(s.a)), math.Abs(s.h.Unrolled() - d), math.Abs(s.h.IFT() - d)
}

// record adds the current iterate to the chart and the table. Newton's
// quadratic convergence reaches rounding level within a few steps: the
// chart draws each error down to its noise floor (√a for x, |dx/da| for
// the derivatives) and the table says "≈ 0" there (issue 26.8).
func (s *heronSim) record() {
	ex, eu, ei := s.errors()
	sx, sd := math.Sqrt(s.a), math.Abs(s.h.Exact())
	s.errs.Add(sims.NoiseFloor(ex, sx), sims.NoiseFloor(eu, sd), sims.NoiseFloor(ei, sd))
	s.rows = append(s.rows, sims.TableRow{Label: fmt.Sprint(s.h.K()), Cells: []sims.Cell{
		sims.Num(s.h.X(), fmt.Sprintf("%.10g", s.h.X())), sims.Num(eu, residual(eu, sd)), sims.Num(ei, residual(ei, sd))}})
}

func (s *heronSim) Step() error {
	err := s.h.Step()
	if err == nil || errors.Is(err, algo.ErrConverged) {
		s.record()
		s.done = err != nil
	}
	return err
}

func (s *heronSim) Frame() sims.Frame {
	x0, x1 := s.errs.Span()
	errs := sims.LineChart{Title: "errors of x_k, dx/da", LogY: true, X0: x0, X1: x1, XLabel: "k",
		Series: []sims.Series{
			{Name: "x_k", Y: s.errs.Column(0), Class: classDone},
			{Name: "unrolled", Y: s.errs.Column(1), Class: classWrong},
			{Name: "IFT", Y: s.errs.Column(2), Class: classOK},
		}}
	rows := append([]sims.TableRow(nil), s.rows...)
	last := len(rows) - 1
	rows[last].Cells = append([]sims.Cell(nil), rows[last].Cells...)
	rows[last].Cells[0].Tone, rows[last].Cells[0].Class = sims.ToneFocus, classNow
	table := sims.TableChart{Title: "x_k, errors of dx/da", Corner: "k", Columns: []string{"x_k", "unrolled", "IFT"}, Rows: rows}
	_, eu, ei := s.errors()
	return sims.Frame{
		Sim:  Implicit.Name,
		Step: s.h.K(),
		Metrics: []sims.Metric{
			{Name: "x", Value: s.h.X()},
			{Name: "unrolled_err", Value: eu},
			{Name: "ift_err", Value: ei, Scale: math.Abs(s.h.Exact())},
		},
		Charts: []sims.Chart{errs, table},
		Text:   s.notes(),
	}
}

func (s *heronSim) notes() []string {
	lines := []string{
		fmt.Sprintf("x ← ½(x + a/x) → √%g (eq 1.42); dx*/da = 1/(2√a) = %.6g", s.a, s.h.Exact()),
		fmt.Sprintf("unrolled: dual numbers (a | 1) through every step: %.10g", s.h.Unrolled()),
		fmt.Sprintf("IFT: −(∂₁F)⁻¹∂₂F = (1/x)/(1 + a/x²) at x_k alone: %.10g", s.h.IFT()),
	}
	if s.done {
		lines = append(lines, fmt.Sprintf("k = %d: the IFT derivative led the unrolled one all the way", s.h.K()))
	}
	return lines
}

func (s *heronSim) Result() map[string]any {
	ex, eu, ei := s.errors()
	return map[string]any{"x": s.h.X(), "unrolled": s.h.Unrolled(), "ift": s.h.IFT(), "exact": s.h.Exact(),
		"err_x": ex, "err_unrolled": eu, "err_ift": ei, "iterations": s.h.K()}
}
