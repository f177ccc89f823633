package divergence

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// SequenceRow is one index of the notes' two sequences: Ex 1.9 at n and
// Ex 1.10 at ε = 1/n, each divergence by its closed form and by numerical
// integration (quadrature for Ex 1.9, the finite sums for Ex 1.10).
type SequenceRow struct {
	N, Eps                 float64
	L1, L1Quad, KL, KLQuad float64 // Ex 1.9: (1.34), (1.35) and their integrals
	Chi2, Chi2Sum          float64 // Ex 1.10: (1.36) and Σ (p − q)²/q
	KLEps, KLEpsSum        float64 // Ex 1.10: (1.37) and Σ p log(p/q)
}

// Sequences walks the notes' sequences of Remark 1.12 (seed 002 L457–487)
// one index per Step, over a geometric grid of `points` values of n from 2
// to MaxN (so that log n is evenly spaced), with ε = 1/n. As n grows, Ex
// 1.9's q_n → p in L1 while KL(p‖q_n) → 1; Ex 1.10's pair converges in KL
// while χ² → 1. Each Step evaluates the closed forms (1.33)–(1.37) and
// checks them by integrating the densities themselves; the run ends
// (ErrConverged) after MaxN.
type Sequences struct {
	maxN   int
	points int
	rows   []SequenceRow
}

// MaxSeqN is the largest last index of Sequences.
const MaxSeqN = 1000000

// NewSequences validates maxN (in 3..MaxSeqN) and points (2..1000) and
// starts before n = 2.
func NewSequences(maxN, points int) (*Sequences, error) {
	if maxN < 3 || maxN > MaxSeqN {
		return nil, algo.BadParam("max_n", maxN, fmt.Sprintf("in 3..%d", MaxSeqN))
	}
	if points < 2 || points > 1000 {
		return nil, algo.BadParam("points", points, "in 2..1000")
	}
	return &Sequences{maxN: maxN, points: points, rows: make([]SequenceRow, 0, points)}, nil
}

// N returns the i-th n of the grid, 2 (maxN/2)^{i/(points−1)}.
func (s *Sequences) N(i int) float64 {
	return 2 * math.Pow(float64(s.maxN)/2, float64(i)/float64(s.points-1))
}

// Points is the number of indices of the grid.
func (s *Sequences) Points() int { return s.points }

// EvalSequences evaluates the closed forms and the integrals at n (> 1).
func EvalSequences(n float64) SequenceRow {
	s := StepSequence{N: n}
	b := BernoulliSequence{Eps: 1 / n}
	p, q := b.P(), b.Q()
	return SequenceRow{
		N: n, Eps: b.Eps,
		L1: s.L1(), L1Quad: L1Quad(UniformPDF, s.Q, s.Breaks(), 1),
		KL: s.KL(), KLQuad: KLQuad(LogUniformPDF, s.LogQ, s.Breaks(), 1),
		Chi2: b.Chi2(), Chi2Sum: Chi2(p, q),
		KLEps: b.KL(), KLEpsSum: KL(p, q),
	}
}

// Step evaluates the next index.
func (s *Sequences) Step() error {
	if len(s.rows) == s.points {
		return algo.ErrConverged
	}
	s.rows = append(s.rows, EvalSequences(s.N(len(s.rows))))
	return nil
}

// Rows returns the indices evaluated so far (a view that later steps only
// extend).
func (s *Sequences) Rows() []SequenceRow { return s.rows[:len(s.rows):len(s.rows)] }

// MaxN is the last index.
func (s *Sequences) MaxN() int { return s.maxN }

// GaussRow is Ex 1.11 at one v: p = N(0, 1), q = N(0, v²), both directions
// of the KL by (1.38) and by quadrature.
type GaussRow struct {
	V                  float64
	Forward, ForwardQ  float64 // KL(p‖q) = ½(log v² + v⁻² − 1)
	Reverse, ReverseQ  float64 // KL(q‖p) = ½(−log v² + v² − 1)
	ForwardF, ReverseF float64 // the notes' printed forms (L505–506)
}

// EvalGauss evaluates Ex 1.11 at v > 0.
func EvalGauss(v float64) GaussRow {
	lo, hi := -12*math.Max(v, 1), 12*math.Max(v, 1)
	logp := func(x float64) float64 { return LogNormalPDF(x, 0, 1) }
	logq := func(x float64) float64 { return LogNormalPDF(x, 0, v) }
	br := []float64{lo, hi}
	return GaussRow{
		V:        v,
		Forward:  KLNormal(0, 1, 0, v),
		ForwardQ: KLQuad(logp, logq, br, 24),
		Reverse:  KLNormal(0, v, 0, 1),
		ReverseQ: KLQuad(logq, logp, br, 24),
		ForwardF: 0.5 * (math.Log(v*v) + 1/(v*v) - 1),
		ReverseF: 0.5 * (-math.Log(v*v) + v*v - 1),
	}
}

// GaussSweep is Fig 1.4 (seed 002 L497–511) drawn point by point: one v per
// Step, on an evenly spaced grid of Points values from VMin to VMax, then
// ErrConverged.
type GaussSweep struct {
	vmin, vmax float64
	points     int
	rows       []GaussRow
}

// NewGaussSweep validates the grid: 0 < vmin < vmax ≤ 100, points in
// 2..2000.
func NewGaussSweep(vmin, vmax float64, points int) (*GaussSweep, error) {
	switch {
	case !(vmin > 0) || vmin >= vmax:
		return nil, algo.BadParam("v_min", vmin, "in (0, v_max)")
	case !(vmax <= 100):
		return nil, algo.BadParam("v_max", vmax, "in (v_min, 100]")
	case points < 2 || points > 2000:
		return nil, algo.BadParam("points", points, "in 2..2000")
	}
	return &GaussSweep{vmin: vmin, vmax: vmax, points: points, rows: make([]GaussRow, 0, points)}, nil
}

// V returns the i-th v of the grid.
func (g *GaussSweep) V(i int) float64 {
	return g.vmin + (g.vmax-g.vmin)*float64(i)/float64(g.points-1)
}

// Step evaluates the next v.
func (g *GaussSweep) Step() error {
	if len(g.rows) == g.points {
		return algo.ErrConverged
	}
	g.rows = append(g.rows, EvalGauss(g.V(len(g.rows))))
	return nil
}

// Rows returns the values evaluated so far (a view that later steps only
// extend).
func (g *GaussSweep) Rows() []GaussRow { return g.rows[:len(g.rows):len(g.rows)] }

// Points is the length of the grid; Range its ends.
func (g *GaussSweep) Points() int { return g.points }

// Range returns v_min and v_max.
func (g *GaussSweep) Range() (vmin, vmax float64) { return g.vmin, g.vmax }
