// Package optim holds first-order optimisation engines and the test
// functions they run on (seed 001, §8 "Gradient descent").
package optim

import (
	"math"

	"github.com/thelab/lab/algo/stable"
	"gonum.org/v1/gonum/mat"
)

// Objective is a differentiable function of a vector.
type Objective interface {
	Func(x []float64) float64
	// Grad writes ∇f(x) into grad, which has len(x).
	Grad(grad, x []float64)
}

// TwiceDifferentiable is an Objective with a Hessian, for Newton's method.
type TwiceDifferentiable interface {
	Objective
	// Hess writes ∇²f(x) into h, which is len(x)×len(x).
	Hess(h *mat.SymDense, x []float64)
}

// Problem is a named 2-D test function with what is known about it.
type Problem struct {
	Name string
	Objective
	FStar  float64     // the global minimum value
	Minima [][]float64 // every global minimiser
	Start  []float64   // a standard starting point
	// Region is [xmin, xmax, ymin, ymax], a window that shows the start and
	// the minima.
	Region [4]float64
	// M and L bound the Hessian, m I ⪯ ∇²f ⪯ L I, everywhere; zero when no
	// global bound exists (the function is not convex or not L-smooth). For
	// a non-convex f, L > 0 means ‖∇²f‖ ≤ L everywhere (the reading of
	// L-smoothness that Theorem 8.8 needs; erratum E8 of the seed-001
	// catalogue) and M is 0.
	M, L float64
	// Convex says that f is convex, so that Theorem 8.5 applies when L > 0.
	Convex bool
}

// Quadratic is f(x) = ½ xᵀAx with A = Rᵀ diag(1, κ) R, R a rotation by
// 30°, so that m = 1, L = κ, f* = 0 at x* = 0 and the condition number is κ.
// The rotation makes the valley diagonal so the zig-zag of plain GD shows
// in both coordinates.
type Quadratic struct {
	a11, a12, a22 float64
}

// NewQuadratic returns the quadratic with condition number kappa ≥ 1.
func NewQuadratic(kappa float64) Quadratic {
	c, s := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	// A = Rᵀ D R with R = [[c, s], [-s, c]], D = diag(1, κ).
	return Quadratic{
		a11: c*c + kappa*s*s,
		a12: c*s - kappa*s*c,
		a22: s*s + kappa*c*c,
	}
}

func (q Quadratic) Func(x []float64) float64 {
	return 0.5 * (q.a11*x[0]*x[0] + 2*q.a12*x[0]*x[1] + q.a22*x[1]*x[1])
}

func (q Quadratic) Grad(grad, x []float64) {
	grad[0] = q.a11*x[0] + q.a12*x[1]
	grad[1] = q.a12*x[0] + q.a22*x[1]
}

// Himmelblau's function (x² + y − 11)² + (x + y² − 7)², with four global
// minima of value 0. gonum has no implementation of it.
type Himmelblau struct{}

func (Himmelblau) Func(x []float64) float64 {
	a := x[0]*x[0] + x[1] - 11
	b := x[0] + x[1]*x[1] - 7
	return a*a + b*b
}

func (Himmelblau) Grad(grad, x []float64) {
	a := x[0]*x[0] + x[1] - 11
	b := x[0] + x[1]*x[1] - 7
	grad[0] = 4*a*x[0] + 2*b
	grad[1] = 2*a + 4*b*x[1]
}

func (Himmelblau) Hess(h *mat.SymDense, x []float64) {
	a := x[0]*x[0] + x[1] - 11
	b := x[0] + x[1]*x[1] - 7
	h.SetSym(0, 0, 4*a+8*x[0]*x[0]+2)
	h.SetSym(0, 1, 4*x[0]+4*x[1])
	h.SetSym(1, 1, 2+4*b+8*x[1]*x[1])
}

// Hess writes the constant Hessian A.
func (q Quadratic) Hess(h *mat.SymDense, _ []float64) {
	h.SetSym(0, 0, q.a11)
	h.SetSym(0, 1, q.a12)
	h.SetSym(1, 1, q.a22)
}

// Rosenbrock is the extended Rosenbrock function Σ_i 100(x_{i+1} − x_i²)² +
// (1 − x_i)² (in 2-D, 100(y − x²)² + (1 − x)²), minimum 0 at (1, …, 1). It
// is gonum's optimize/functions.ExtendedRosenbrock, written here because
// that package imports "testing" into the binary (issue 14.7, start-up);
// the test compares the two.
type Rosenbrock struct{}

// Func is Σ_i 100(x_{i+1} − x_i²)² + (1 − x_i)².
func (Rosenbrock) Func(x []float64) float64 {
	s := 0.0
	for i := 0; i+1 < len(x); i++ {
		a, b := 1-x[i], x[i+1]-x[i]*x[i]
		s += a*a + 100*b*b
	}
	return s
}

// Grad writes ∂f/∂x_i = −2(1 − x_i) − 400x_i(x_{i+1} − x_i²) +
// 200(x_i − x_{i−1}²), each term where its index exists.
func (Rosenbrock) Grad(grad, x []float64) {
	clear(grad)
	for i := 0; i+1 < len(x); i++ {
		b := x[i+1] - x[i]*x[i]
		grad[i] -= 2*(1-x[i]) + 400*b*x[i]
		grad[i+1] += 200 * b
	}
}

// Hess writes the Hessian of the 2-D Rosenbrock function.
func (Rosenbrock) Hess(h *mat.SymDense, x []float64) {
	h.SetSym(0, 0, 1200*x[0]*x[0]-400*x[1]+2)
	h.SetSym(0, 1, -400*x[0])
	h.SetSym(1, 1, 200)
}

// Beale is Beale's function Σ_{i=1..3} f_i², f_i = c_i − x(1 − y^i), c =
// (1.5, 2.25, 2.625), minimum 0 at (3, ½): gonum's optimize/functions.Beale
// (written here, as Rosenbrock is) with a correct Hessian: gonum v0.17.0's
// Beale.Hess evaluates its residuals at x[1] in place of x[0] (compare its
// Func), which the finite-difference test catches.
type Beale struct{}

// beale returns the residuals f_i and t_i = 1 − y^i at x = (a, y).
func beale(x []float64) (f, t [3]float64) {
	a, y := x[0], x[1]
	t = [3]float64{1 - y, 1 - y*y, 1 - y*y*y}
	f = [3]float64{1.5 - a*t[0], 2.25 - a*t[1], 2.625 - a*t[2]}
	return f, t
}

// Func is Σ f_i².
func (Beale) Func(x []float64) float64 {
	f, _ := beale(x)
	return f[0]*f[0] + f[1]*f[1] + f[2]*f[2]
}

// Grad writes ∂/∂x = −2Σ f_i t_i, ∂/∂y = 2x Σ i y^{i−1} f_i.
func (Beale) Grad(grad, x []float64) {
	f, t := beale(x)
	y := x[1]
	grad[0] = -2 * (f[0]*t[0] + f[1]*t[1] + f[2]*t[2])
	grad[1] = 2 * x[0] * (f[0] + 2*f[1]*y + 3*f[2]*y*y)
}

// Hess writes the Hessian of Σ f_i², f_i = c_i − x t_i, t_i = 1 − y^i:
// ∂²/∂x² = 2Σ t_i², ∂²/∂x∂y = 2Σ i y^{i−1}(f_i − x t_i),
// ∂²/∂y² = 2Σ [(i x y^{i−1})² + i(i−1) x y^{i−2} f_i].
func (Beale) Hess(h *mat.SymDense, x []float64) {
	a, y := x[0], x[1]
	t1, t2, t3 := 1-y, 1-y*y, 1-y*y*y
	f1, f2, f3 := 1.5-a*t1, 2.25-a*t2, 2.625-a*t3
	h.SetSym(0, 0, 2*(t1*t1+t2*t2+t3*t3))
	h.SetSym(0, 1, 2*(f1+y*(2*f2+3*y*f3)-a*(t1+y*(2*t2+3*y*t3))))
	h.SetSym(1, 1, 2*a*(a+2*f2+y*(6*f3+a*y*(4+9*y*y))))
}

// Wavy is the non-convex, L-smooth f(x) = Σ_i φ(x_i/β_i), φ(u) = ½u² +
// a·sin²u, of the seed-001 catalogue ([A13], "Checks"): φ″ = 1 + 2a·cos 2u,
// so with all β_i = 1 (Beta nil) ‖∇²f‖ ≤ L = 1 + 2a, f* = 0 at x = 0, and
// for a = 4 each coordinate has local minima at ±2.7607 (φ = 4.3635).
// Theorem 8.8 applies; for a > ½ Theorems 8.5 and 8.7 do not.
//
// Beta, when set, rescales coordinate i by β_i > 0: its curvature becomes
// φ″/β_i², so L = (1 + 2a)/min β_i², and GD with step t runs φ's GD with
// step t/β_i² in u_i = x_i/β_i. A log-spread Beta makes a non-convex
// function on which the least gradient norm decays as slowly as
// Theorem 8.8 allows (see RateProblems).
type Wavy struct {
	A    float64
	Beta []float64
}

func (w Wavy) beta(i int) float64 {
	if w.Beta == nil {
		return 1
	}
	return w.Beta[i]
}

func (w Wavy) Func(x []float64) float64 {
	s := 0.0
	for i, v := range x {
		u := v / w.beta(i)
		sn := math.Sin(u)
		s += 0.5*u*u + w.A*sn*sn
	}
	return s
}

func (w Wavy) Grad(grad, x []float64) {
	for i, v := range x {
		b := w.beta(i)
		u := v / b
		grad[i] = (u + w.A*math.Sin(2*u)) / b
	}
}

func (w Wavy) Hess(h *mat.SymDense, x []float64) {
	n := len(x)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			h.SetSym(i, j, 0)
		}
		b := w.beta(i)
		h.SetSym(i, i, (1+2*w.A*math.Cos(2*x[i]/b))/(b*b))
	}
}

// DiagQuadratic is f(x) = ½ Σ_i a_i x_i² with a_i ≥ 0: m = min a_i and
// L = max a_i. A zero a_i leaves coordinate i free, so that f is convex
// but not strongly convex and its minimisers are the whole axis of that
// coordinate (the rank-deficient quadratic of the catalogue, [A13]).
type DiagQuadratic struct{ A []float64 }

func (q DiagQuadratic) Func(x []float64) float64 {
	s := 0.0
	for i, v := range x {
		s += q.A[i] * v * v / 2
	}
	return s
}

func (q DiagQuadratic) Grad(g, x []float64) {
	for i, v := range x {
		g[i] = q.A[i] * v
	}
}

func (q DiagQuadratic) Hess(h *mat.SymDense, _ []float64) {
	n := len(q.A)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			h.SetSym(i, j, 0)
		}
		h.SetSym(i, i, q.A[i])
	}
}

// LogCosh is f(x) = Σ_i log cosh x_i: convex, f″ = sech² x ∈ (0, 1], so
// L = 1 but no m > 0 holds globally (f grows only linearly); f* = 0 at 0.
// It is evaluated stably as softplus(2x) − x − log 2.
type LogCosh struct{}

func (LogCosh) Func(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += stable.Softplus(2*v) - v - math.Ln2
	}
	return s
}

func (LogCosh) Grad(g, x []float64) {
	for i, v := range x {
		g[i] = math.Tanh(v)
	}
}

func (LogCosh) Hess(h *mat.SymDense, x []float64) {
	n := len(x)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			h.SetSym(i, j, 0)
		}
		c := math.Cosh(x[i])
		h.SetSym(i, i, 1/(c*c))
	}
}

// Saddle is f(x, y) = ½x² + ¼y⁴ − ½y²: a saddle point at the origin
// (Hessian diag(1, −1)) between the minima (0, ±1), f* = −¼. Started near
// the line y = 0, gradient descent first runs into the saddle and leaves
// it only as fast as the small y grows, by the factor 1 + η a step while
// y is small (y_{k+1} = y_k + η(y_k − y_k³)).
type Saddle struct{}

func (Saddle) Func(x []float64) float64 {
	return 0.5*x[0]*x[0] + 0.25*x[1]*x[1]*x[1]*x[1] - 0.5*x[1]*x[1]
}

func (Saddle) Grad(g, x []float64) {
	g[0] = x[0]
	g[1] = x[1]*x[1]*x[1] - x[1]
}

// Hess is diag(1, 3y² − 1).
func (Saddle) Hess(h *mat.SymDense, x []float64) {
	h.SetSym(0, 0, 1)
	h.SetSym(0, 1, 0)
	h.SetSym(1, 1, 3*x[1]*x[1]-1)
}

// WavyA is the amplitude of the "wavy" problem: L = 9, with local minima.
const WavyA = 4

// Function names a 2-D test function of NewProblem.
type Function string

// The test functions: the classic four, and Wavy (amplitude WavyA), the
// non-convex but L-smooth function that Theorem 8.8 speaks of.
const (
	FnQuadratic  Function = "quadratic"
	FnRosenbrock Function = "rosenbrock"
	FnBeale      Function = "beale"
	FnHimmelblau Function = "himmelblau"
	FnWavy       Function = "wavy"
)

// String is the function's name.
func (f Function) String() string { return string(f) }

// NewProblem returns a test function; kappa is used by Quadratic only. It
// returns nil for an unknown function. Every problem's Objective is
// TwiceDifferentiable.
func NewProblem(fn Function, kappa float64) *Problem {
	name := string(fn)
	switch fn {
	case FnQuadratic:
		return &Problem{
			Name: name, Objective: NewQuadratic(kappa),
			Minima: [][]float64{{0, 0}}, Start: []float64{-2.5, 1.5},
			Region: [4]float64{-3, 3, -2, 2},
			M:      1, L: kappa, Convex: true,
		}
	case FnRosenbrock:
		return &Problem{
			Name: name, Objective: Rosenbrock{},
			Minima: [][]float64{{1, 1}}, Start: []float64{-1.2, 1},
			Region: [4]float64{-2, 2, -1, 3},
		}
	case FnBeale:
		return &Problem{
			Name: name, Objective: Beale{},
			Minima: [][]float64{{3, 0.5}}, Start: []float64{1, 1},
			Region: [4]float64{-1, 4.5, -1.5, 2},
		}
	case FnHimmelblau:
		return &Problem{
			Name: name, Objective: Himmelblau{},
			Minima: [][]float64{
				{3, 2},
				{-2.805118086952745, 3.131312518250573},
				{-3.779310253377747, -3.283185991286170},
				{3.584428340330492, -1.848126526964404},
			},
			Start:  []float64{-0.5, -0.5},
			Region: [4]float64{-5, 5, -5, 5},
		}
	case FnWavy:
		return &Problem{
			Name: name, Objective: Wavy{A: WavyA},
			Minima: [][]float64{{0, 0}}, Start: []float64{-2.5, 1.5},
			Region: [4]float64{-4.5, 4.5, -3, 3},
			L:      1 + 2*WavyA,
		}
	}
	return nil
}

// StronglyConvexRate is the contraction factor γ of Theorem 8.7 (seed 001
// §8, L871–L879) for gradient descent with step t on an m-strongly convex,
// L-smooth function:
//
//	f(x_k) − f* ≤ γ^k (L/2) ‖x_0 − x*‖²,  γ = 1 − 2tmL/(m+L),
//
// which holds for 0 < t ≤ 2/(m+L) (Nesterov, Introductory Lectures,
// Thm 2.1.15, from ‖x_k − x*‖² ≤ γ^k ‖x_0 − x*‖² and f − f* ≤ (L/2)‖x − x*‖²).
// At t = 2/(m+L) it is ((L−m)/(L+m))². The notes leave γ unspecified and
// define strong convexity with m‖x‖² where m/2‖x‖² is meant (erratum E9 of
// the seed-001 catalogue); we use ∇²f ⪰ mI. ok is false when t is outside
// the theorem's range.
func StronglyConvexRate(m, L, t float64) (gamma float64, ok bool) {
	if m <= 0 || L < m || t <= 0 || t > 2/(m+L) {
		return 0, false
	}
	return 1 - 2*t*m*L/(m+L), true
}
