package kernel

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// Ridge is kernel ridge regression (seed 000 §4.8.1, eq 4.34, L1668;
// seed 003 L77–131): minimise J(α) = ½‖Kα − y‖² + (λ/2)αᵀKα, whose gradient
// K((K + λI)α − y) vanishes at
//
//	α* = (K + λI)⁻¹ y,
//
// and predict f(x) = Σ_i α_i k(x_i, x) (the representer theorem, 4.37). The
// notes give no solver; Ridge solves (K + λI)α = y by Cholesky, and holds
// what the iterative solvers are measured against: α*, the spectrum of
// A = K + λI and its condition number κ = λ_max(A)/λ_min(A).
type Ridge struct {
	n      int
	lambda float64
	a      []float64 // A = K + λI, n×n row-major
	y      []float64
	star   []float64 // α*
	eigMin float64
	eigMax float64
	starA  float64   // ‖α*‖_A
	e      []float64 // scratch for ErrorA
}

// RidgeFootprint is the bytes NewRidge and two RidgeIters hold for n
// points: A, and per point y, α*, the scratch of ErrorA and the iterates'
// four vectors each; and the pooled workspaces of the eigensolver
// (eigenWork) and of the Cholesky factorisation's condition estimate (3n
// words and n ints, in arrays of a power of two). The Gram matrix is the
// caller's, and the factorisations are garbage once solved.
func RidgeFootprint(n int) int64 {
	return 8*int64(n)*int64(n) + 8*11*int64(n) + eigenWork(n) + 8<<bits.Len(uint(3*n-1)) + 8<<bits.Len(uint(n-1))
}

// NewRidge builds the problem from a Gram matrix (n×n row-major, not kept)
// and targets y, and solves it by Cholesky. λ must be > 0 (then A is
// positive definite for any positive-semidefinite K).
func NewRidge(gram, y []float64, lambda float64) (*Ridge, error) {
	n := len(y)
	if n == 0 {
		return nil, algo.BadParam("data", n, "at least one point")
	}
	if len(gram) != n*n {
		return nil, algo.BadParam("gram", len(gram), fmt.Sprintf("an %d×%d matrix", n, n))
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, algo.BadParam("lambda", lambda, "a finite number > 0")
	}
	r := &Ridge{n: n, lambda: lambda, a: make([]float64, n*n), y: append([]float64(nil), y...), e: make([]float64, n)}
	copy(r.a, gram)
	for i := 0; i < n; i++ {
		r.a[i*n+i] += lambda
	}
	sym := mat.NewSymDense(n, append([]float64(nil), r.a...))
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return nil, fmt.Errorf("kernel ridge: K + λI is not positive definite (is the kernel positive semidefinite?)")
	}
	star := mat.NewVecDense(n, nil)
	if err := ch.SolveVecTo(star, mat.NewVecDense(n, r.y)); err != nil {
		return nil, fmt.Errorf("kernel ridge: %w", err)
	}
	r.star = star.RawVector().Data
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		return nil, fmt.Errorf("kernel ridge: eigendecomposition failed")
	}
	ev := eig.Values(nil) // ascending
	r.eigMin, r.eigMax = ev[0], ev[n-1]
	r.starA = math.Sqrt(r.quad(r.star, r.star))
	return r, nil
}

// quad is uᵀAv.
func (r *Ridge) quad(u, v []float64) float64 {
	s := 0.0
	for i := 0; i < r.n; i++ {
		s += u[i] * dot(r.a[i*r.n:(i+1)*r.n], v)
	}
	return s
}

// Star returns α* (a view).
func (r *Ridge) Star() []float64 { return r.star }

// Lambda returns λ.
func (r *Ridge) Lambda() float64 { return r.lambda }

// Cond returns κ(K + λI) and the extreme eigenvalues of K + λI.
func (r *Ridge) Cond() (kappa, lo, hi float64) { return r.eigMax / r.eigMin, r.eigMin, r.eigMax }

// Objective returns J(α) = ½‖Kα − y‖² + (λ/2)αᵀKα.
func (r *Ridge) Objective(alpha []float64) float64 {
	n, res, reg := r.n, 0.0, 0.0
	for i := 0; i < n; i++ {
		row := r.a[i*n : (i+1)*n]
		ka := dot(row, alpha) - r.lambda*alpha[i] // (Kα)_i
		res += (ka - r.y[i]) * (ka - r.y[i])
		reg += alpha[i] * ka
	}
	return 0.5*res + 0.5*r.lambda*reg
}

// ErrorA returns the relative error ‖α − α*‖_A / ‖α*‖_A in the norm of
// A = K + λI, the quantity both iterative solvers' bounds are stated in. It
// does not allocate (and is not safe for concurrent use).
func (r *Ridge) ErrorA(alpha []float64) float64 {
	if r.starA == 0 {
		return 0
	}
	e := r.e
	for i := range e {
		e[i] = alpha[i] - r.star[i]
	}
	return math.Sqrt(math.Max(0, r.quad(e, e))) / r.starA
}

// Solver names an iterative method for (K + λI)α = y.
type Solver string

const (
	// CG is the conjugate-gradient method (Hestenes–Stiefel).
	CG Solver = "cg"
	// GD is gradient descent on q(α) = ½αᵀAα − yᵀα with the best fixed
	// step t = 2/(λ_min + λ_max).
	GD Solver = "gd"
)

// RidgeIter solves (K + λI)α = y iteratively from α = 0, one iteration per
// Step. Both methods minimise q(α) = ½αᵀAα − yᵀα, A = K + λI, whose
// minimiser is α* (the same as J's), and in A's norm they obey (e_k =
// α_k − α*, κ = κ(A)):
//
//	gd  ‖e_k‖_A ≤ ((κ − 1)/(κ + 1))^k ‖e_0‖_A
//	cg  ‖e_k‖_A ≤ 2((√κ − 1)/(√κ + 1))^k ‖e_0‖_A
//
// so on the ill-conditioned kernel systems (κ of 10⁴ to 10⁸ is common: the
// Gaussian Gram matrix's eigenvalues decay fast, seed 000 §4.9's oracle)
// gradient descent crawls while conjugate gradients finish in a few dozen
// steps, and exactly in at most n steps in exact arithmetic. (Gradient
// descent on J itself, as the notes suggest, is worse still: J's Hessian
// K(K + λI) squares the condition number.)
type RidgeIter struct {
	r      *Ridge
	method Solver
	tol    float64
	alpha  []float64
	res    []float64 // y − Aα
	p      []float64 // CG search direction
	ap     []float64 // A p
	rr     float64   // ‖res‖²
	yNorm  float64
	step   float64 // GD step
	k      int
	// logRate is the log of the bound's contraction factor per step,
	// cached (0 until first needed).
	logRate float64
}

// NewRidgeIter starts method on r from α = 0. The run converges when the
// relative residual ‖y − Aα‖/‖y‖ ≤ tol (tol ≥ 0).
func NewRidgeIter(r *Ridge, method Solver, tol float64) (*RidgeIter, error) {
	if method != CG && method != GD {
		return nil, algo.BadParam("solver", method, "cg or gd")
	}
	if !(tol >= 0) {
		return nil, algo.BadParam("tol", tol, "≥ 0")
	}
	n := r.n
	it := &RidgeIter{
		r: r, method: method, tol: tol,
		alpha: make([]float64, n), res: append([]float64(nil), r.y...),
		p: append([]float64(nil), r.y...), ap: make([]float64, n),
		step: 2 / (r.eigMin + r.eigMax),
	}
	it.rr = dot(it.res, it.res)
	it.yNorm = math.Sqrt(it.rr)
	return it, nil
}

// Step takes one iteration; it returns ErrConverged once the relative
// residual is at most tol.
func (it *RidgeIter) Step() error {
	if it.Residual() <= it.tol {
		return algo.ErrConverged
	}
	n, a := it.r.n, it.r.a
	switch it.method {
	case CG:
		for i := 0; i < n; i++ {
			it.ap[i] = dot(a[i*n:(i+1)*n], it.p)
		}
		pap := dot(it.p, it.ap)
		if !(pap > 0) {
			return algo.Diverged("pᵀAp = %g ≤ 0 at step %d: K + λI is not positive definite", pap, it.k)
		}
		s := it.rr / pap
		for i := range it.alpha {
			it.alpha[i] += s * it.p[i]
			it.res[i] -= s * it.ap[i]
		}
		rr := dot(it.res, it.res)
		beta := rr / it.rr
		it.rr = rr
		for i := range it.p {
			it.p[i] = it.res[i] + beta*it.p[i]
		}
	case GD:
		for i := range it.alpha {
			it.alpha[i] += it.step * it.res[i]
		}
		for i := 0; i < n; i++ {
			it.res[i] = it.r.y[i] - dot(a[i*n:(i+1)*n], it.alpha)
		}
		it.rr = dot(it.res, it.res)
	}
	it.k++
	if math.IsNaN(it.rr) || math.IsInf(it.rr, 0) {
		return algo.Diverged("residual %v at step %d", it.rr, it.k)
	}
	return nil
}

// Alpha returns the current coefficients (a view).
func (it *RidgeIter) Alpha() []float64 { return it.alpha }

// Iter is the number of steps taken.
func (it *RidgeIter) Iter() int { return it.k }

// Residual is ‖y − (K + λI)α‖ / ‖y‖.
func (it *RidgeIter) Residual() float64 {
	if it.yNorm == 0 {
		return 0
	}
	return math.Sqrt(it.rr) / it.yNorm
}

// Bound returns the method's guaranteed relative A-norm error after k
// steps from α = 0 (see RidgeIter).
func (it *RidgeIter) Bound(k int) float64 {
	if k <= 0 {
		return 1
	}
	if it.logRate == 0 {
		kappa, _, _ := it.r.Cond()
		if it.method == GD {
			it.logRate = math.Log((kappa - 1) / (kappa + 1))
		} else {
			s := math.Sqrt(kappa)
			it.logRate = math.Log((s - 1) / (s + 1))
		}
	}
	b := math.Exp(float64(k) * it.logRate)
	if it.method == CG {
		b = math.Min(1, 2*b)
	}
	return b
}
