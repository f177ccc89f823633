// Package optim holds first-order optimisation engines and the test
// functions they run on (seed 001, §8 "Gradient descent").
package optim

import (
	"math"

	"gonum.org/v1/gonum/optimize/functions"
)

// Objective is a differentiable function of a vector.
type Objective interface {
	Func(x []float64) float64
	// Grad writes ∇f(x) into grad, which has len(x).
	Grad(grad, x []float64)
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
	// global bound exists (the function is not convex or not L-smooth).
	M, L float64
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

// ProblemNames lists the test functions NewProblem knows, in menu order.
var ProblemNames = []string{"quadratic", "rosenbrock", "beale", "himmelblau"}

// NewProblem returns a named test function; kappa is used by "quadratic"
// only. It returns nil for an unknown name.
func NewProblem(name string, kappa float64) *Problem {
	switch name {
	case "quadratic":
		return &Problem{
			Name: name, Objective: NewQuadratic(kappa),
			Minima: [][]float64{{0, 0}}, Start: []float64{-2.5, 1.5},
			Region: [4]float64{-3, 3, -2, 2},
			M:      1, L: kappa,
		}
	case "rosenbrock":
		return &Problem{
			Name: name, Objective: functions.ExtendedRosenbrock{},
			Minima: [][]float64{{1, 1}}, Start: []float64{-1.2, 1},
			Region: [4]float64{-2, 2, -1, 3},
		}
	case "beale":
		return &Problem{
			Name: name, Objective: functions.Beale{},
			Minima: [][]float64{{3, 0.5}}, Start: []float64{1, 1},
			Region: [4]float64{-1, 4.5, -1.5, 2},
		}
	case "himmelblau":
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
