package optim

import (
	"math"

	"github.com/thelab/lab/algo"
)

// QuadModel is the quadratic model of seed 001 §8 (L773–L785) of a 1-D f
// at the point X, with F = f(X), D = f′(X) and step T:
//
//	g(y) = f(x) + f′(x)(y − x) + (y − x)²/(2t).
//
// Its minimiser is the GD step x⁺ = x − t f′(x) (L781–L785) and its least
// value g(x⁺) = f(x) − (t/2) f′(x)² is the right-hand side of the descent
// lemma (★, L827). When f″ ≤ 1/t everywhere (t ≤ 1/L, Definition 8.4,
// erratum E8) g ≥ f: GD minimises a majoriser, so f(x⁺) ≤ g(x⁺).
type QuadModel struct{ X, F, D, T float64 }

// At is g(y).
func (q QuadModel) At(y float64) float64 { return q.Tangent(y) + (y-q.X)*(y-q.X)/(2*q.T) }

// Tangent is the first-order part f(x) + f′(x)(y − x): a global lower
// bound of f exactly when f is convex (Definition 8.3, L791).
func (q QuadModel) Tangent(y float64) float64 { return q.F + q.D*(y-q.X) }

// Argmin is x⁺ = x − t f′(x), where g′(y) = f′(x) + (y − x)/t = 0.
func (q QuadModel) Argmin() float64 { return q.X - q.T*q.D }

// Min is g(x⁺), the descent lemma's bound on f(x⁺).
func (q QuadModel) Min() float64 { return DescentLemma(q.F, q.T, q.D*q.D) }

// Scalar names a 1-D problem of NewScalarProblem.
type Scalar string

// The 1-D problems.
const (
	ScalarQuadratic Scalar = "quadratic"
	ScalarLogCosh   Scalar = "logcosh"
	ScalarWavy      Scalar = "wavy"
)

// String is the problem's name.
func (s Scalar) String() string { return string(s) }

// NewScalarProblem returns a 1-D Problem (Start, Minima and the x-part of
// Region are 1-D; Region's y-part is unused): ScalarQuadratic is ½c x² (m
// = L = c), ScalarLogCosh is log cosh x (convex, L = 1, m = 0), ScalarWavy
// is ½x² + c sin²x (L = 1 + 2c; convex with m = 1 − 2c only when c ≤ ½,
// erratum E8's reading of L-smoothness otherwise). It returns nil for an
// unknown problem or a c out of range (c > 0 for quadratic, c ≥ 0 for
// wavy).
func NewScalarProblem(fn Scalar, c float64) *Problem {
	p := &Problem{Name: string(fn), Minima: [][]float64{{0}}, Start: []float64{3}, Region: [4]float64{-4.5, 4.5}, Convex: true}
	switch {
	case fn == ScalarQuadratic && c > 0:
		p.Objective, p.M, p.L = DiagQuadratic{A: []float64{c}}, c, c
	case fn == ScalarLogCosh:
		p.Objective, p.L = LogCosh{}, 1
	case fn == ScalarWavy && c >= 0:
		p.Objective, p.L = Wavy{A: c}, 1+2*c
		p.Convex = c <= 0.5
		if p.Convex {
			p.M = 1 - 2*c
		}
	default:
		return nil
	}
	return p
}

// Majorise runs GD on a 1-D Problem and, at each iterate, builds the
// quadratic model g and checks it on a grid of the window [Lo, Hi]: where
// g < f (g fails to majorise f, possible only when t > 1/L) and where the
// tangent rises above f (possible only for non-convex f). One Step is one
// GD step x ← argmin g; it also checks the descent lemma f(x⁺) ≤ g(x⁺).
type Majorise struct {
	p      *Problem
	d      *Descent
	t      float64
	lo, hi float64
	n      int
	model  QuadModel
	pt     []float64
	// the last step's descent-lemma check
	lemmaF, lemmaB float64
	lemmaBad       int
	// grid checks of the current model
	gapMin, gapAt float64 // min_y g(y) − f(y) and where
	tanMax, tanAt float64 // max_y tangent(y) − f(y) and where
}

// MajoriseGrid is the number of points of the window at which the model
// and the tangent are compared with f.
const MajoriseGrid = 2001

// NewMajorise starts GD at x0 with step t on the 1-D problem p, checking
// models on [lo, hi]. tol stops the run when |f′| ≤ tol.
func NewMajorise(p *Problem, x0, t, lo, hi, tol float64) (*Majorise, error) {
	if p == nil || p.L <= 0 {
		return nil, algo.BadParam("fn", p, "a 1-D problem with a known L")
	}
	if !(hi > lo) || !algo.Finite(lo) || !algo.Finite(hi) {
		return nil, algo.BadParam("window", [2]float64{lo, hi}, "a finite interval lo < hi")
	}
	d, err := NewDescent(p, []float64{x0}, DescentConfig{Method: GD, LR: t, Tol: tol, Blowup: 1e6})
	if err != nil {
		return nil, err
	}
	m := &Majorise{p: p, d: d, t: t, lo: lo, hi: hi, n: MajoriseGrid, pt: make([]float64, 1),
		lemmaF: math.NaN(), lemmaB: math.NaN()}
	m.update()
	return m, nil
}

// F is f at a point.
func (m *Majorise) F(y float64) float64 {
	m.pt[0] = y
	return m.p.Func(m.pt)
}

func (m *Majorise) update() {
	x := m.d.X()[0]
	m.model = QuadModel{X: x, F: m.d.F(), D: m.d.g[0], T: m.t}
	m.gapMin, m.tanMax = math.Inf(1), math.Inf(-1)
	for i := 0; i < m.n; i++ {
		y := m.lo + (m.hi-m.lo)*float64(i)/float64(m.n-1)
		fy := m.F(y)
		if gp := m.model.At(y) - fy; gp < m.gapMin {
			m.gapMin, m.gapAt = gp, y
		}
		if tp := m.model.Tangent(y) - fy; tp > m.tanMax {
			m.tanMax, m.tanAt = tp, y
		}
	}
}

// Step takes one GD step and checks f(x⁺) ≤ g(x⁺). It returns
// ErrConverged once |f′(x)| ≤ tol and an ErrDiverged error when |x|
// exceeds 1e6.
func (m *Majorise) Step() error {
	prev := m.model
	if err := m.d.Step(); err != nil {
		return err
	}
	m.lemmaF, m.lemmaB = m.d.F(), prev.Min()
	if !m.LemmaHeld() {
		m.lemmaBad++
	}
	m.update()
	return nil
}

// lemmaSlack is the rounding allowance of the descent-lemma check.
func (m *Majorise) lemmaSlack() float64 {
	return 1e-12 * math.Max(1, math.Abs(m.lemmaB))
}

// LemmaHeld reports whether the last step satisfied f(x⁺) ≤ f(x) −
// (t/2)f′(x)² (true before the first step).
func (m *Majorise) LemmaHeld() bool {
	return math.IsNaN(m.lemmaF) || m.lemmaF <= m.lemmaB+m.lemmaSlack()
}

// Lemma returns f(x⁺) and the bound f(x) − (t/2)f′(x)² of the last step
// (NaN before the first).
func (m *Majorise) Lemma() (fx, bound float64) { return m.lemmaF, m.lemmaB }

// LemmaFailures counts the steps at which the descent lemma failed.
func (m *Majorise) LemmaFailures() int { return m.lemmaBad }

// Model is the quadratic model at the current iterate.
func (m *Majorise) Model() QuadModel { return m.model }

// Majorises reports whether g ≥ f on the whole grid (up to rounding), and
// otherwise the smallest g − f and where it is.
func (m *Majorise) Majorises() (ok bool, gap, at float64) {
	return m.gapMin >= -1e-12*math.Max(1, math.Abs(m.model.F)), m.gapMin, m.gapAt
}

// TangentBelow reports whether the tangent line stays below f on the grid,
// and otherwise the largest excess and where it is.
func (m *Majorise) TangentBelow() (ok bool, excess, at float64) {
	return m.tanMax <= 1e-12*math.Max(1, math.Abs(m.model.F)), m.tanMax, m.tanAt
}

// X, Iter and FX read the current iterate, its index and f there.
func (m *Majorise) X() float64  { return m.d.X()[0] }
func (m *Majorise) Iter() int   { return m.d.Iter() }
func (m *Majorise) FX() float64 { return m.d.F() }
