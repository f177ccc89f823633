package adsim

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad/implicit"
	"github.com/thelab/lab/sims"
	"gonum.org/v1/gonum/mat"
)

// The lp demo's program (catalogue §1.12): min −x₁ − 2x₂ subject to
// x₁ + x₂ + s₁ = b₁, x₁ + 3x₂ + s₂ = b₂, all ≥ 0.
var (
	lpA     = mat.NewDense(2, 4, []float64{1, 1, 1, 0, 1, 3, 0, 1})
	lpC     = []float64{-1, -2, 0, 0}
	lpNames = []string{"x1", "x2", "s1", "s2"}
)

// Bounds of the lp demo's sweep.
const (
	lpSweep = 16   // steps of b₁
	lpFD    = 0.01 // the re-solving difference (the catalogue's)
)

// lpSim is the implicit sim's §1.12: the optimum x*(b) of a linear
// program, its derivative dx*/db from the implicit function theorem on the
// KKT conditions at b₀, and b₁ swept step by step: each step re-solves and
// sets the IFT's linear prediction beside the new optimum — exact while
// the basis holds, wrong once it changes, undefined at a degenerate vertex.
type lpSim struct {
	b0, b  []float64
	delta  float64
	base   *implicit.LPSolution
	fd     *mat.Dense // central differences of re-solving, n×m
	cur    *implicit.LPSolution
	curErr error
	k      int
	trail  sims.Path
	pred   sims.Path
	rows   []sims.TableRow
	view   sims.Rect
}

func newLPSens(b1, b2, delta float64) (sims.Sim, error) {
	s := &lpSim{b0: []float64{b1, b2}, b: []float64{b1, b2}, delta: delta,
		trail: sims.Path{Class: classNow}, pred: sims.Path{Class: classOK, Dotted: true}}
	var err error
	if s.base, err = implicit.SolveLP(lpC, lpA, s.b0); err != nil {
		return nil, fmt.Errorf("parameters b1 = %g, b2 = %g: %w", b1, b2, err)
	}
	s.fd = mat.NewDense(4, 2, nil)
	for k := range 2 {
		var x [2][]float64
		for side, sign := range []float64{1, -1} {
			b := []float64{b1, b2}
			b[k] += sign * lpFD
			sol, err := implicit.SolveLP(lpC, lpA, b)
			if sol == nil {
				return nil, fmt.Errorf("re-solving at b = %v: %w", b, err)
			}
			x[side] = sol.X
		}
		for j := range 4 {
			s.fd.Set(j, k, (x[0][j]-x[1][j])/(2*lpFD))
		}
	}
	end := b1 + lpSweep*delta
	hi := math.Max(math.Max(b1, end), b2)
	s.view = sims.Rect{XMin: -0.4, XMax: hi + 0.6, YMin: -0.3, YMax: hi/3 + 0.9}
	s.cur = s.base
	s.record()
	return s, nil
}

// clean rounds the simplex's residue (3e-16 for 0) away for display.
func clean(x float64) float64 {
	if math.Abs(x) < implicit.LPTol {
		return 0
	}
	return x
}

// prediction is x*(b₀) + dx*/db·(b − b₀).
func (s *lpSim) prediction() (x1, x2 float64) {
	d1, d2 := s.b[0]-s.b0[0], s.b[1]-s.b0[1]
	D := s.base.DxDb
	return s.base.X[0] + D.At(0, 0)*d1 + D.At(0, 1)*d2, s.base.X[1] + D.At(1, 0)*d1 + D.At(1, 1)*d2
}

func (s *lpSim) record() {
	p1, p2 := s.prediction()
	x := s.cur.X
	s.trail.X, s.trail.Y = append(s.trail.X, x[0]), append(s.trail.Y, x[1])
	s.pred.X, s.pred.Y = append(s.pred.X, p1), append(s.pred.Y, p2)
	pred := func(p, x float64) sims.Cell {
		if math.Abs(p-x) > 1e-9 {
			return sims.Num(p, "✗"+num(clean(p))).Styled(sims.ToneInk, classWrong)
		}
		return sims.Num(p, num(clean(p))).Styled(sims.ToneInk, classOK)
	}
	opt := func(x float64) sims.Cell {
		if errors.Is(s.curErr, implicit.ErrIFTFails) { // a degenerate vertex: no derivative here
			return sims.Num(x, num(clean(x))).Styled(sims.ToneInk, classWrong)
		}
		return sims.Num(x, num(clean(x)))
	}
	s.rows = append(s.rows, sims.TableRow{Label: num(s.b[0]), Cells: []sims.Cell{
		opt(x[0]), opt(x[1]), pred(p1, x[0]), pred(p2, x[1])}})
}

func (s *lpSim) Step() error {
	if s.k >= lpSweep {
		return algo.ErrConverged
	}
	next := s.b[0] + s.delta
	if next < 0 {
		return fmt.Errorf("b₁ = %g would leave no feasible point: %w", next, algo.ErrConverged)
	}
	s.b[0] = next
	s.k++
	sol, err := implicit.SolveLP(lpC, lpA, s.b)
	if sol == nil {
		return err
	}
	s.cur, s.curErr = sol, err
	s.record()
	return nil
}

func (s *lpSim) Frame() sims.Frame {
	b1, b2 := s.b[0], s.b[1]
	// The feasible polygon: 0 ≤ x₂ ≤ min(b₁ − x₁, (b₂ − x₁)/3) for
	// 0 ≤ x₁ ≤ min(b₁, b₂), with the kink where the two constraints meet.
	xs := []float64{0}
	if k := (3*b1 - b2) / 2; k > 0 && k < math.Min(b1, b2) {
		xs = append(xs, k)
	}
	xs = append(xs, math.Min(b1, b2))
	band := sims.Band{X: xs, Lo: make([]float64, len(xs)), Hi: make([]float64, len(xs)), Class: classDone}
	for i, x := range xs {
		band.Hi[i] = math.Max(0, math.Min(b1-x, (b2-x)/3))
	}
	v := s.view
	obj := s.cur.Obj
	paths := []sims.Path{
		{X: []float64{v.XMin, v.XMax}, Y: []float64{b1 - v.XMin, b1 - v.XMax}, Class: 9, Dotted: true},
		{X: []float64{v.XMin, v.XMax}, Y: []float64{(b2 - v.XMin) / 3, (b2 - v.XMax) / 3}, Class: 9, Dotted: true},
		{X: []float64{v.XMin, v.XMax}, Y: []float64{(-obj - v.XMin) / 2, (-obj - v.XMax) / 2}, Class: 3, Dotted: true},
		s.pred, s.trail,
	}
	p1, p2 := s.prediction()
	canvas := sims.CanvasChart{Title: fmt.Sprintf("max x₁ + 2x₂, b = (%s, %s)", num(b1), num(b2)), View: v,
		Bands: []sims.Band{band}, Paths: paths,
		Markers: []sims.Marker{{X: s.base.X[0], Y: s.base.X[1], Glyph: '★', Class: 4},
			{X: p1, Y: p2, Glyph: '◆', Class: classOK}, {X: s.cur.X[0], Y: s.cur.X[1], Glyph: '●', Class: classNow}},
		Legend: []string{"feasible", "x*(b)", "IFT", "obj"}, XLabel: "x₁", YLabel: "x₂"}

	sens := sims.TableChart{Title: fmt.Sprintf("at b₀ = (%s, %s)", num(s.b0[0]), num(s.b0[1])), Corner: "",
		Columns: []string{"x*", "IFT ∂/∂b₁", "IFT ∂/∂b₂", "re-solve ∂/∂b₁", "re-solve ∂/∂b₂"}}
	for j, name := range lpNames {
		sens.Rows = append(sens.Rows, sims.TableRow{Label: name, Cells: []sims.Cell{numCell(s.base.X[j]),
			numCell(s.base.DxDb.At(j, 0)).Styled(sims.ToneInk, classOK), numCell(s.base.DxDb.At(j, 1)).Styled(sims.ToneInk, classOK),
			numCell(s.fd.At(j, 0)), numCell(s.fd.At(j, 1))}})
	}
	sens.Rows = append(sens.Rows, sims.TableRow{Label: "cᵀx*", Cells: []sims.Cell{numCell(s.base.Obj),
		numCell(s.base.Y[0]).Styled(sims.ToneInk, classOK), numCell(s.base.Y[1]).Styled(sims.ToneInk, classOK)}})

	rows := append([]sims.TableRow(nil), s.rows...)
	last := &rows[len(rows)-1]
	last.Cells = append([]sims.Cell(nil), last.Cells...)
	last.Cells[0].Tone, last.Cells[0].Class = sims.ToneFocus, classNow
	sweep := sims.TableChart{Title: "re-solved vs IFT", Corner: "b₁", Columns: []string{"x₁*", "x₂*", "IFT x₁", "IFT x₂"}, Rows: rows}

	miss := math.Hypot(p1-s.cur.X[0], p2-s.cur.X[1])
	ift := 1.0
	if s.curErr != nil {
		ift = 0
	}
	return sims.Frame{
		Sim:  Implicit.Name,
		Step: s.k,
		Metrics: []sims.Metric{{Name: "b1", Value: b1}, {Name: "x1", Value: s.cur.X[0]}, {Name: "x2", Value: s.cur.X[1]},
			{Name: "obj", Value: s.cur.Obj}, {Name: "miss", Value: miss}, {Name: "ift", Value: ift}},
		Charts: []sims.Chart{canvas, sweep, sens},
		Text:   s.notes(miss),
	}
}

func (s *lpSim) notes(miss float64) []string {
	lines := []string{"KKT F = [Ax − b; Diag(x)(Aᵀy − c)] = 0 (1.52); IFT through ∂F/∂(x,y)",
		fmt.Sprintf("dx*/db = B⁻¹ on the basis, 0 off it; d(cᵀx*)/db = y* = (%s, %s)", num(s.base.Y[0]), num(s.base.Y[1]))}
	switch {
	case errors.Is(s.curErr, implicit.ErrIFTFails):
		lines = append(lines, "✗ "+strings.TrimPrefix(s.curErr.Error(), "IFT does not apply: ")+": no IFT")
	case miss > 1e-9:
		lines = append(lines, fmt.Sprintf("✗ basis changed: the prediction misses by %s (the IFT is local)", num(miss)))
	case s.k > 0:
		lines = append(lines, "✓ same basis: x*(b) is linear in b, the IFT's prediction is exact")
	}
	return lines
}

func (s *lpSim) Result() map[string]any {
	D := make([][]float64, 4)
	for j := range D {
		D[j] = mat.Row(nil, j, s.base.DxDb)
	}
	return map[string]any{"b": append([]float64(nil), s.b...), "x": append([]float64(nil), s.cur.X...), "obj": s.cur.Obj,
		"y0": s.base.Y, "dx_db": D, "ift_applies": s.curErr == nil}
}
