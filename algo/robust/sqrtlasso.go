// Package robust holds the robust-regression results of seed 001 §17
// (L1561–L1581, catalogue [A34]–[A35]): the min-max linear regression
// against column perturbations and its equivalent, the square-root Lasso,
// solved by exact coordinate descent; the worst-case perturbation that
// attains the equivalence; and the Huber loss as the Moreau envelope of |·|
// with the clipped (variational) loss.
package robust

import (
	"gonum.org/v1/gonum/floats"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Bounds of a problem (what the coordinate sweeps handle at a watchable
// speed).
const (
	MaxN = 100000
	MaxD = 64
)

// SqrtLasso minimises the square-root Lasso objective
//
//	F(w) = ‖Xw − y‖₂ + λ‖w‖₁
//
// (seed 001 L1569), which equals the robust regression
// min_w max_{‖z_j‖₂ ≤ λ} ‖(X + Z)w − y‖₂ (L1565), by cyclic coordinate
// descent. Each coordinate is minimised exactly: with r_j the residual
// without coordinate j, a = ‖x_j‖², ρ = x_jᵀ r_j and s = ‖r_j‖² − ρ²/a
// (what x_j cannot explain),
//
//	w_j = 0                                    if |ρ| ≤ λ‖r_j‖,
//	w_j = sgn(ρ)(|ρ|/a − λ √(s / (a(a − λ²))))  otherwise,
//
// the stationarity condition ρ − a w_j = λ sgn(w_j) ‖r_j − x_j w_j‖ solved
// for w_j (Belloni, Chernozhukov and Wang 2011). The zero branch is the
// subgradient test at w_j = 0, so coefficients land on exact zeros; the
// non-differentiable points w_j = 0 and r = 0 need no smoothing (catalogue
// [A34], "must get right"). Each sweep cannot increase F.
type SqrtLasso struct {
	n, d   int
	cols   [][]float64 // the columns x_j of X
	colSq  []float64   // ‖x_j‖²
	y      []float64
	w      []float64
	r      []float64 // y − Xw
	lambda float64
	sweeps int
}

// NewSqrtLasso takes X (n rows of d features, row-major) and y, and starts
// at w = 0. lambda ≥ 0 is the column budget λ.
func NewSqrtLasso(x []float64, n, d int, y []float64, lambda float64) (*SqrtLasso, error) {
	switch {
	case n < 1 || n > MaxN:
		return nil, algo.BadParam("n", n, "in [1, 100000]")
	case d < 1 || d > MaxD:
		return nil, algo.BadParam("d", d, "in [1, 64]")
	case len(x) != n*d || len(y) != n:
		return nil, algo.BadParam("x", len(x), "n·d values with n targets")
	case !algo.AllFinite(x) || !algo.AllFinite(y):
		return nil, algo.BadParam("x", "a non-finite value", "finite")
	}
	s := &SqrtLasso{n: n, d: d, y: append([]float64(nil), y...), w: make([]float64, d),
		r: append([]float64(nil), y...), colSq: make([]float64, d)}
	for j := range d {
		c := make([]float64, n)
		for i := range n {
			c[i] = x[i*d+j]
			s.colSq[j] += c[i] * c[i]
		}
		if s.colSq[j] == 0 {
			return nil, algo.BadParam("x", "a zero column", "columns with a non-zero entry")
		}
		s.cols = append(s.cols, c)
	}
	return s, s.SetLambda(lambda)
}

// SetLambda changes λ and keeps w (a warm start along a path).
func (s *SqrtLasso) SetLambda(lambda float64) error {
	if !(lambda >= 0) || math.IsInf(lambda, 1) {
		return algo.BadParam("lambda", lambda, "finite and ≥ 0")
	}
	s.lambda = lambda
	return nil
}

// LambdaMax is the smallest λ at which w = 0 is optimal: ‖Xᵀy‖∞/‖y‖ (the
// subgradient test at w = 0; 0 when y = 0).
func (s *SqrtLasso) LambdaMax() float64 {
	ny := floats.Norm(s.y, 2)
	if ny == 0 {
		return 0
	}
	m := 0.0
	for _, c := range s.cols {
		m = math.Max(m, math.Abs(floats.Dot(c, s.y)))
	}
	return m / ny
}

// Step is one sweep of exact coordinate minimisation over w_1, …, w_d. It
// returns the largest change of a coefficient.
func (s *SqrtLasso) Step() float64 {
	lam := s.lambda
	change := 0.0
	for j, c := range s.cols {
		a, wj := s.colSq[j], s.w[j]
		// r_j = r + x_j w_j, and its squared norm and product with x_j.
		rho, rr := 0.0, 0.0
		for i, xi := range c {
			v := s.r[i] + xi*wj
			rho += xi * v
			rr += v * v
		}
		nw := 0.0
		if math.Abs(rho) > lam*math.Sqrt(rr) {
			sres := math.Max(rr-rho*rho/a, 0)
			nw = math.Abs(rho)/a - lam*math.Sqrt(sres/(a*(a-lam*lam)))
			nw = math.Copysign(math.Max(nw, 0), rho)
		}
		if d := nw - wj; d != 0 {
			for i, xi := range c {
				s.r[i] -= xi * d
			}
			s.w[j] = nw
			change = math.Max(change, math.Abs(d))
		}
	}
	s.sweeps++
	return change
}

// Objective is F(w) = ‖Xw − y‖ + λ‖w‖₁ at the current w.
func (s *SqrtLasso) Objective() float64 { return floats.Norm(s.r, 2) + s.lambda*floats.Norm(s.w, 1) }

// W is the current coefficient vector (shared; do not modify).
func (s *SqrtLasso) W() []float64 { return s.w }

// Residual is r = Xw − y (a fresh slice, the notes' sign).
func (s *SqrtLasso) Residual() []float64 {
	out := make([]float64, s.n)
	for i, v := range s.r {
		out[i] = -v
	}
	return out
}

// Lambda is the current λ.
func (s *SqrtLasso) Lambda() float64 { return s.lambda }

// Sweeps is the number of sweeps taken.
func (s *SqrtLasso) Sweeps() int { return s.sweeps }

// Nonzeros counts the coefficients that are not exactly zero.
func (s *SqrtLasso) Nonzeros() int {
	k := 0
	for _, v := range s.w {
		if v != 0 {
			k++
		}
	}
	return k
}

// Perturbed is the robust-regression loss ‖(X + Z)w − y‖₂ of a column
// perturbation Z (d columns of n entries).
func (s *SqrtLasso) Perturbed(z [][]float64, w []float64) float64 {
	sum := 0.0
	for i := range s.n {
		v := -s.y[i]
		for j, c := range s.cols {
			v += (c[i] + z[j][i]) * w[j]
		}
		sum += v * v
	}
	return math.Sqrt(sum)
}

// WorstCase returns the perturbation that attains the inner maximum at w,
// z_j = λ sgn(w_j) r/‖r‖ with r = Xw − y (the derived proof of [A34]), whose
// loss is ‖r‖ + λ‖w‖₁. When r = 0 any unit direction serves (the first
// axis); a coefficient w_j = 0 takes the same column, which changes nothing.
func (s *SqrtLasso) WorstCase(w []float64) [][]float64 {
	r := make([]float64, s.n)
	for i := range s.n {
		v := -s.y[i]
		for j, c := range s.cols {
			v += c[i] * w[j]
		}
		r[i] = v
	}
	nr := floats.Norm(r, 2)
	if nr == 0 {
		r[0], nr = 1, 1
	}
	z := make([][]float64, s.d)
	for j := range z {
		sg := 1.0
		if w[j] < 0 {
			sg = -1
		}
		z[j] = make([]float64, s.n)
		for i, v := range r {
			z[j][i] = s.lambda * sg * v / nr
		}
	}
	return z
}

// RandomFeasible fills z (d columns of n) with a perturbation drawn from
// rng inside the constraint set: each column a uniform direction with
// norm λ·U^(1/n), U uniform on [0, 1] (uniform in the ball).
func (s *SqrtLasso) RandomFeasible(z [][]float64, rng *rand.Rand) {
	for _, c := range z {
		for i := range c {
			c[i] = rng.NormFloat64()
		}
		nc := floats.Norm(c, 2)
		scale := s.lambda * math.Pow(rng.Float64(), 1/float64(s.n)) / nc
		for i := range c {
			c[i] *= scale
		}
	}
}

// SparseTruth are the non-zero coefficients Sparse plants, on the first
// features; the rest are zero.
var SparseTruth = []float64{3, -2, 1.5}

// Sparse draws a sparse regression from rng: n rows of d standard normal
// features (row-major), y = Xβ + noise·N(0, 1) with β = SparseTruth
// followed by zeros.
func Sparse(rng *rand.Rand, n, d int, noise float64) (x, y []float64) {
	x = make([]float64, n*d)
	y = make([]float64, n)
	for i := range n {
		for j := range d {
			x[i*d+j] = rng.NormFloat64()
			if j < len(SparseTruth) {
				y[i] += SparseTruth[j] * x[i*d+j]
			}
		}
		y[i] += noise * rng.NormFloat64()
	}
	return x, y
}
