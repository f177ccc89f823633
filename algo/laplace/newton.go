package laplace

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// Newton maximises a Model's log-density by Newton's method, the notes'
// w_new = w_old − ∇ log p / ∇² log p (L1217), in d dimensions:
//
//	Δ = −(∇² log p(z))⁻¹ ∇ log p(z),   z ← z + tΔ,
//
// with t = 1 unless the full step lowers log p or leaves the support (χ²
// from a start beyond 2(k − 2) jumps below zero), in which case t is halved
// until it does neither: backtracking, the damping the catalogue asks for
// on targets that are not log-concave everywhere (C7, "must get right").
// Where −∇² log p is not positive definite Newton's direction is not an
// ascent direction and the step falls back to gradient ascent, Δ = ∇ log p.
// Near the mode the full step is always taken and convergence is
// quadratic: |g_{k+1}| ≤ C|g_k|².
//
// One Step is one iteration. It returns algo.ErrConverged once
// ‖∇ log p(z)‖ ≤ tol (before moving), and an ErrDiverged error when no
// step size within 2⁻⁶⁰ increases log p or the state stops being finite.
// Step does not allocate.
type Newton struct {
	m      Model
	d      int
	z, g   []float64
	h      []float64 // ∇² log p at z
	delta  []float64 // the Newton (or gradient) direction from z
	trial  []float64
	l      []float64 // Cholesky factor of −h
	lp     float64
	iter   int
	tol    float64
	t      float64 // step length of the last iteration
	newton bool    // the last direction was Newton's
}

// NewNewton starts Newton's method at z0 (copied), which must be in the
// support; tol ≥ 0 is the gradient norm at which it stops.
func NewNewton(m Model, z0 []float64, tol float64) (*Newton, error) {
	if m == nil || m.Dim() < 1 {
		return nil, algo.BadParam("model", m, "a log-density of dimension ≥ 1")
	}
	d := m.Dim()
	if len(z0) != d {
		return nil, algo.BadParam("z0", z0, fmt.Sprintf("%d numbers", d))
	}
	if !(tol >= 0) || math.IsInf(tol, 0) {
		return nil, algo.BadParam("tol", tol, "a finite number ≥ 0")
	}
	n := &Newton{m: m, d: d, z: append([]float64(nil), z0...), g: make([]float64, d), h: make([]float64, d*d),
		delta: make([]float64, d), trial: make([]float64, d), l: make([]float64, d*d), tol: tol, t: 1}
	n.lp = m.LogP(n.z)
	if math.IsNaN(n.lp) || math.IsInf(n.lp, 0) {
		return nil, algo.BadParam("z0", z0, "a point where log p is finite (inside the support)")
	}
	n.eval()
	return n, nil
}

func (n *Newton) eval() {
	n.m.Grad(n.g, n.z)
	n.m.Hess(n.h, n.z)
}

// cholesky factors A = −h as L Lᵀ into n.l, reporting whether A is
// positive definite.
func (n *Newton) cholesky() bool {
	d := n.d
	for i := range d {
		for j := 0; j <= i; j++ {
			s := -n.h[i*d+j]
			for k := range j {
				s -= n.l[i*d+k] * n.l[j*d+k]
			}
			if i == j {
				if !(s > 0) {
					return false
				}
				n.l[i*d+i] = math.Sqrt(s)
			} else {
				n.l[i*d+j] = s / n.l[j*d+j]
			}
		}
	}
	return true
}

// solve writes A⁻¹ b into x with A = L Lᵀ from cholesky (x may be b).
func (n *Newton) solve(x, b []float64) {
	d := n.d
	copy(x, b)
	for i := range d { // L y = b
		for k := range i {
			x[i] -= n.l[i*d+k] * x[k]
		}
		x[i] /= n.l[i*d+i]
	}
	for i := d - 1; i >= 0; i-- { // Lᵀ x = y
		for k := i + 1; k < d; k++ {
			x[i] -= n.l[k*d+i] * x[k]
		}
		x[i] /= n.l[i*d+i]
	}
}

// direction sets n.delta to Newton's direction −h⁻¹g = (−h)⁻¹g, or to g
// when −h is not positive definite.
func (n *Newton) direction() {
	n.newton = n.cholesky()
	if n.newton {
		n.solve(n.delta, n.g)
	} else {
		copy(n.delta, n.g)
	}
}

// Step takes one Newton iteration with backtracking.
func (n *Newton) Step() error {
	if n.GradNorm() <= n.tol {
		return algo.ErrConverged
	}
	n.direction()
	slack := 1e-12 * (1 + math.Abs(n.lp)) // rounding near the mode
	t := 1.0
	for range 60 {
		for i := range n.z {
			n.trial[i] = n.z[i] + t*n.delta[i]
		}
		if lp := n.m.LogP(n.trial); lp >= n.lp-slack && !math.IsInf(lp, 0) {
			copy(n.z, n.trial)
			n.lp, n.t = lp, t
			n.iter++
			n.eval()
			if !algo.AllFinite(n.g) || !algo.AllFinite(n.h) {
				return algo.Diverged("∇ log p not finite at %v", n.z)
			}
			return nil
		}
		t /= 2
	}
	return algo.Diverged("no step along the Newton direction increases log p at %v (iteration %d)", n.z, n.iter+1)
}

// Z returns the current iterate (a fresh slice).
func (n *Newton) Z() []float64 { return append([]float64(nil), n.z...) }

// LogP is log p at the iterate.
func (n *Newton) LogP() float64 { return n.lp }

// Grad and Hess are ∇ log p and ∇² log p at the iterate (views).
func (n *Newton) Grad() []float64 { return n.g }
func (n *Newton) Hess() []float64 { return n.h }

// GradNorm is ‖∇ log p‖ at the iterate.
func (n *Newton) GradNorm() float64 {
	s := 0.0
	for _, v := range n.g {
		s += v * v
	}
	return math.Sqrt(s)
}

// Iter is the number of iterations taken; StepLength the t of the last one
// (1 for a full Newton step) and WasNewton whether its direction was
// Newton's.
func (n *Newton) Iter() int           { return n.iter }
func (n *Newton) StepLength() float64 { return n.t }
func (n *Newton) WasNewton() bool     { return n.newton }
func (n *Newton) Model() Model        { return n.m }

// Laplace returns the covariance H⁻¹ = (−∇² log p(z))⁻¹ at the iterate —
// at the mode, the Laplace approximation q = N(ẑ, H⁻¹) (L1180) — and
// whether −∇² log p is positive definite there (fresh).
func (n *Newton) Laplace() (cov [][]float64, ok bool) {
	if !n.cholesky() {
		return nil, false
	}
	d := n.d
	cov = make([][]float64, d)
	e := make([]float64, d)
	for j := range d {
		clear(e)
		e[j] = 1
		col := make([]float64, d)
		n.solve(col, e)
		for i := range d {
			if cov[i] == nil {
				cov[i] = make([]float64, d)
			}
			cov[i][j] = col[i]
		}
	}
	for i := range d { // symmetric to the last bit
		for j := range i {
			cov[i][j] = (cov[i][j] + cov[j][i]) / 2
			cov[j][i] = cov[i][j]
		}
	}
	return cov, true
}

// Taylor returns the Gaussian of the second-order Taylor expansion of
// log p at the iterate, N(z − (∇² log p)⁻¹∇ log p, (−∇² log p)⁻¹): its mean
// is where the next full Newton step lands, and at the mode it is the
// Laplace approximation. ok is false where −∇² log p is not positive
// definite (the expansion has no maximum).
func (n *Newton) Taylor() (mean []float64, cov [][]float64, ok bool) {
	cov, ok = n.Laplace()
	if !ok {
		return nil, nil, false
	}
	step := make([]float64, n.d)
	n.solve(step, n.g)
	mean = make([]float64, n.d)
	for i := range mean {
		mean[i] = n.z[i] + step[i]
	}
	return mean, cov, true
}
