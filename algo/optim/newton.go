package optim

import (
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// NewtonConfig configures a Newton iteration.
type NewtonConfig struct {
	// Tol ends the run (ErrConverged) when ‖∇f(x)‖ ≤ Tol.
	Tol float64
	// Blowup ends the run (ErrDiverged) when ‖x‖ exceeds it; default 1e8.
	Blowup float64
}

// Newton's armijo constant and the most halvings of a step.
const (
	armijoC     = 1e-4
	maxHalvings = 60
)

// Newton minimises a TwiceDifferentiable objective by damped Newton steps,
// one per Step (the notes name the method only; this is the standard
// globalised form, Nocedal & Wright, Numerical Optimization, §3.4):
//
//	p = −(∇²f(x) + μI)⁻¹ ∇f(x)      μ = 0 when ∇²f(x) ≻ 0, else the least of
//	                                 10⁻⁸‖∇²f‖·10^j that makes it positive definite
//	x ← x + s p                      s = 1, ½, ¼, … the first with
//	                                 f(x + s p) ≤ f(x) + 10⁻⁴ s ∇f(x)ᵀp  (Armijo)
//
// The linear system is solved by a Cholesky factorisation, never an
// inverse. On a strictly convex quadratic the first step lands on the
// minimiser; near a minimiser with ∇²f ≻ 0 the full step is taken and the
// error squares each step.
type Newton struct {
	f     TwiceDifferentiable
	cfg   NewtonConfig
	k     int
	x, g  []float64
	p, xt []float64
	gt    []float64 // ∇f at the trial point
	fx    float64
	h, hm *mat.SymDense
	step  float64 // the last step length s
	mu    float64 // the last damping μ
}

// NewNewton validates cfg and starts at x0 (which is copied).
func NewNewton(f TwiceDifferentiable, x0 []float64, cfg NewtonConfig) (*Newton, error) {
	if !(cfg.Tol >= 0) {
		return nil, algo.BadParam("tol", cfg.Tol, "≥ 0")
	}
	if err := checkStart(x0); err != nil {
		return nil, err
	}
	if cfg.Blowup == 0 {
		cfg.Blowup = 1e8
	}
	n := len(x0)
	nw := &Newton{
		f: f, cfg: cfg,
		x: append([]float64(nil), x0...),
		g: make([]float64, n), p: make([]float64, n), xt: make([]float64, n), gt: make([]float64, n),
		h: mat.NewSymDense(n, nil), hm: mat.NewSymDense(n, nil),
	}
	nw.fx = f.Func(nw.x)
	f.Grad(nw.g, nw.x)
	return nw, nil
}

// Step takes one damped Newton step. It returns ErrConverged once
// ‖∇f‖ ≤ Tol (before moving), an ErrDiverged error when f or x stop being
// finite or x leaves the ball of radius Blowup, and ErrConverged too, without
// moving, when no step along p lowers f (or, with f flat to rounding,
// ‖∇f‖): the iterate is a minimiser to working precision.
func (nw *Newton) Step() error {
	if nw.GradNorm() <= nw.cfg.Tol {
		return algo.ErrConverged
	}
	n := len(nw.x)
	nw.f.Hess(nw.h, nw.x)
	scale := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			scale = math.Max(scale, math.Abs(nw.h.At(i, j)))
		}
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = 1
	}
	nw.mu = 0
	var tri blas64.Triangular
	for try := 0; ; try++ {
		nw.hm.CopySym(nw.h)
		for i := 0; i < n; i++ {
			nw.hm.SetSym(i, i, nw.h.At(i, i)+nw.mu)
		}
		// LAPACK's Cholesky in place (mat.Cholesky would also estimate a
		// condition number, allocating): the line search guards the step.
		var ok bool
		if tri, ok = lapack64.Potrf(nw.hm.RawSymmetric()); ok {
			break
		}
		if try > 40 {
			return algo.Diverged("Newton: no positive-definite shift of ∇²f at step %d", nw.k)
		}
		if nw.mu == 0 {
			nw.mu = 1e-8 * scale
		} else {
			nw.mu *= 10
		}
	}
	copy(nw.p, nw.g)
	lapack64.Potrs(tri, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: nw.p})
	floats.Scale(-1, nw.p)
	slope := floats.Dot(nw.g, nw.p)
	s := 1.0
	var ft float64
	for h := 0; ; h++ {
		floats.AddScaledTo(nw.xt, nw.x, s, nw.p)
		ft = nw.f.Func(nw.xt)
		if ft <= nw.fx+armijoC*s*slope {
			nw.f.Grad(nw.gt, nw.xt)
			break
		}
		if h == 0 && ft-nw.fx <= 4*0x1p-52*math.Max(1, math.Abs(nw.fx)) {
			// f is flat to rounding along the full step: take it if it
			// brings ∇f closer to zero (the last steps of a quadratic
			// convergence gain in ‖∇f‖ what f can no longer show).
			nw.f.Grad(nw.gt, nw.xt)
			if floats.Norm(nw.gt, 2) < nw.GradNorm() {
				break
			}
		}
		if h == maxHalvings || !(slope < 0) {
			return algo.ErrConverged // no decrease along p: a minimum to working precision
		}
		s /= 2
	}
	if !(ft < nw.fx) && !(floats.Norm(nw.gt, 2) < nw.GradNorm()) {
		return algo.ErrConverged // neither f nor ‖∇f‖ falls any more
	}
	nw.step = s
	copy(nw.x, nw.xt)
	copy(nw.g, nw.gt)
	nw.fx = ft
	nw.k++
	return checkStep(nw.fx, nw.g, nw.x, nw.cfg.Blowup, nw.k)
}

// Iter is the number of steps taken.
func (nw *Newton) Iter() int { return nw.k }

// X returns the current iterate (a view: do not modify).
func (nw *Newton) X() []float64 { return nw.x }

// F returns f at the current iterate.
func (nw *Newton) F() float64 { return nw.fx }

// GradNorm returns ‖∇f‖₂ at the current iterate.
func (nw *Newton) GradNorm() float64 { return floats.Norm(nw.g, 2) }

// LastStep returns the step length s and the damping μ of the last step:
// s = 1 and μ = 0 is a pure Newton step.
func (nw *Newton) LastStep() (s, mu float64) { return nw.step, nw.mu }
