package adsim

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo/ad/implicit"
	"github.com/thelab/lab/sims"
)

// circleSim is the implicit sim's §1.10 (Example 1.1): a point travels
// round x² + y² = 1, leftwards on the upper branch and back on the lower,
// and the implicit function theorem gives the slope of the branch y*(x)
// through it, dy/dx = −∂₂F/∂₁F = −x/y, except at y = 0 where ∂₁F = 2y
// vanishes and no function y(x) passes through the point.
type circleSim struct {
	m     int // steps across
	k     int // position: 0..2m−1, cyclic
	steps int
	fails int
	rows  []sims.TableRow // the last lap's points
}

// circleTol is how far from the circle a computed point may be.
const circleTol = 1e-12

func newCircle(points int) *circleSim {
	s := &circleSim{m: points, k: 1}
	s.record()
	return s
}

// point is the position k: x = 1 − 2k/m with y ≥ 0 for k ≤ m, then back
// along y ≤ 0; y is exactly 0 at x = ±1.
func (s *circleSim) point() (x, y float64) {
	j := s.k % (2 * s.m)
	if j <= s.m {
		x = 1 - 2*float64(j)/float64(s.m)
		return x, math.Sqrt(math.Max(0, 1-x*x))
	}
	x = -1 + 2*float64(j-s.m)/float64(s.m)
	return x, -math.Sqrt(math.Max(0, 1-x*x))
}

// slope is the IFT's dy/dx, or an error wrapping implicit.ErrIFTFails.
func (s *circleSim) slope() (float64, error) {
	x, y := s.point()
	return implicit.CircleSlope(x, y, circleTol)
}

func (s *circleSim) record() {
	x, y := s.point()
	row := sims.TableRow{Label: fmt.Sprint(s.steps), Cells: []sims.Cell{numCell(x), numCell(y), numCell(2 * y)}}
	if d, err := s.slope(); err != nil {
		s.fails++
		row.Cells = append(row.Cells, sims.Cell{Text: "IFT fails", Tone: sims.ToneInk, Class: classWrong}, sims.Num(math.Inf(1), "∞"))
	} else {
		// The explicit branch ±√(1 − x²) has slope ∓x/√(1 − x²).
		explicit := -x / math.Sqrt(1-x*x)
		if y < 0 {
			explicit = -explicit
		}
		row.Cells = append(row.Cells, numCell(d), numCell(explicit))
	}
	s.rows = append(s.rows, row)
	if len(s.rows) > 2*s.m { // one lap: the run goes round for ever
		// Moved down rather than resliced, so that the row that leaves is
		// not kept alive by the array until it next grows.
		s.rows = s.rows[:copy(s.rows, s.rows[1:])]
	}
}

func (s *circleSim) Step() error {
	s.k++
	s.steps++
	s.record()
	return nil
}

func (s *circleSim) Frame() sims.Frame {
	x, y := s.point()
	d, err := s.slope()
	fails := errors.Is(err, implicit.ErrIFTFails)
	const n = 96
	circle := sims.Path{Class: 9}
	branch := sims.Path{Class: classDone}
	for i := 0; i <= n; i++ {
		t := 2 * math.Pi * float64(i) / n
		circle.X, circle.Y = append(circle.X, math.Cos(t)), append(circle.Y, math.Sin(t))
		if i <= n/2 { // the branch through the point: the half circle on its side
			sy := math.Sin(t)
			if y < 0 {
				sy = -sy
			}
			branch.X, branch.Y = append(branch.X, math.Cos(t)), append(branch.Y, sy)
		}
	}
	const half = 0.45
	tangent := sims.Path{Class: classNow}
	if fails {
		tangent = sims.Path{X: []float64{x, x}, Y: []float64{-half, half}, Class: classWrong, Dotted: true}
	} else {
		c := half / math.Hypot(1, d)
		tangent.X, tangent.Y = []float64{x - c, x + c}, []float64{y - c*d, y + c*d}
	}
	paths := []sims.Path{circle, tangent}
	if !fails {
		paths = []sims.Path{circle, branch, tangent}
	}
	canvas := sims.CanvasChart{Title: "x² + y² = 1", View: sims.Rect{XMin: -1.7, XMax: 1.7, YMin: -1.25, YMax: 1.25},
		Paths: paths,
		Markers: []sims.Marker{{X: 1, Y: 0, Glyph: '✗', Class: classWrong}, {X: -1, Y: 0, Glyph: '✗', Class: classWrong},
			{X: x, Y: y, Glyph: '●', Class: classNow}},
		Legend: []string{"branch", "tangent", "", "", "", "", "", "IFT fails"}}
	rows := append([]sims.TableRow(nil), s.rows...)
	last := &rows[len(rows)-1]
	last.Cells = append([]sims.Cell(nil), last.Cells...)
	if !fails {
		last.Cells[3].Tone, last.Cells[3].Class = sims.ToneFocus, classNow
	} else {
		last.Cells[3].Tone = sims.ToneFocus
	}
	table := sims.TableChart{Title: "slopes along the way", Corner: "step",
		Columns: []string{"x", "y", "∂F/∂y", "IFT", "explicit"}, Rows: rows}
	slope := 0.0
	if !fails {
		slope = d
	}
	return sims.Frame{
		Sim:  Implicit.Name,
		Step: s.steps,
		Metrics: []sims.Metric{{Name: "x", Value: x}, {Name: "y", Value: y}, {Name: "slope", Value: slope},
			{Name: "fails", Value: float64(s.fails)}},
		Charts: []sims.Chart{canvas, table},
		Text:   s.notes(x, y, d, fails),
	}
}

func (s *circleSim) notes(x, y, d float64, fails bool) []string {
	lines := []string{"F(y, x) = x² + y² − 1 = 0 gives y*(x) where ∂F/∂y = 2y ≠ 0 (Thm 1.2)",
		"IFT: dy/dx = −∂ₓF/∂_yF = −x/y; explicit: d/dx ±√(1 − x²)"}
	if fails {
		lines = append(lines, fmt.Sprintf("✗ IFT fails at (%s, 0): ∂F/∂y = 0, the circle is vertical, no y(x)", num(x)))
	} else {
		lines = append(lines, fmt.Sprintf("at (%s, %s): dy/dx = %s, branch y %s 0 (sign of y₀)", num(x), num(y), num(d),
			map[bool]string{true: ">", false: "<"}[y > 0]))
	}
	return lines
}

func (s *circleSim) Result() map[string]any {
	x, y := s.point()
	res := map[string]any{"x": x, "y": y, "fails": s.fails, "steps": s.steps}
	if d, err := s.slope(); err == nil {
		res["slope"] = d
	} else {
		res["error"] = err.Error()
	}
	return res
}
