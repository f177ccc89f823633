package implicit

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad"
	"gonum.org/v1/gonum/mat"
)

// Newton finds w*(λ) with F(w*, λ) = 0 at fixed λ, one Newton step per
// Step: w ← w − (∂₁F)⁻¹ F(w, λ), with ∂₁F by reverse mode (Partials). The
// graph's outputs are F_1..F_n and its first n inputs are w (the rest λ);
// the iterate is the graph's own input values, so at convergence the graph
// stands at the solution, ready for Partials and NewImplicit (§1.8.1).
type Newton struct {
	g    *ad.Graph
	n    int
	x    []float64 // all inputs, w first
	F    *mat.VecDense
	step mat.VecDense
	res  float64
	k    int
}

// NewtonTol is the step, relative to 1 + ‖w‖∞, below which Newton has
// converged.
const NewtonTol = 1e-14

// NewNewton starts at the graph's current input values. It needs as many
// outputs as w has entries, and at least one λ.
func NewNewton(g *ad.Graph) (*Newton, error) {
	n := len(g.Outputs())
	if n < 1 || n >= len(g.Inputs()) {
		return nil, algo.BadParam("outputs", n, fmt.Sprintf("in 1..%d: one equation per unknown w, at least one parameter λ", len(g.Inputs())-1))
	}
	nt := &Newton{g: g, n: n, x: g.InputValues(make([]float64, len(g.Inputs()))), F: mat.NewVecDense(n, nil)}
	if err := nt.residual(); err != nil {
		return nil, err
	}
	return nt, nil
}

func (nt *Newton) residual() error {
	if err := nt.g.Forward(); err != nil {
		return err
	}
	nt.res = 0
	for i := range nt.n {
		nt.F.SetVec(i, nt.g.Value(i))
		nt.res = math.Max(nt.res, math.Abs(nt.g.Value(i)))
	}
	return nil
}

// Step takes one Newton step; algo.ErrConverged once the step is below
// NewtonTol. A singular ∂₁F wraps ErrIFTFails (the solution is not
// locally a function of λ there).
func (nt *Newton) Step() error {
	dF1, _, err := Partials(nt.g, nt.n)
	if err != nil {
		return err
	}
	if err := nt.step.SolveVec(dF1, nt.F); err != nil {
		return iftFails("∂₁F is singular at w = %v: %v", nt.x[:nt.n], err)
	}
	size, norm := 0.0, 0.0
	for i := range nt.n {
		nt.x[i] -= nt.step.AtVec(i)
		size = math.Max(size, math.Abs(nt.step.AtVec(i)))
		norm = math.Max(norm, math.Abs(nt.x[i]))
	}
	if err := nt.g.SetInputs(nt.x); err != nil {
		return algo.Diverged("Newton left the reals: %v", err)
	}
	if err := nt.residual(); err != nil {
		return err
	}
	nt.k++
	if size <= NewtonTol*(1+norm) {
		return algo.ErrConverged
	}
	return nil
}

// Solve steps until convergence, at most maxIter steps.
func (nt *Newton) Solve(maxIter int) error {
	for range maxIter {
		if err := nt.Step(); err == algo.ErrConverged {
			return nil
		} else if err != nil {
			return err
		}
	}
	return algo.Diverged("Newton did not converge in %d steps (residual %.3g)", maxIter, nt.res)
}

// Iter is the number of steps taken.
func (nt *Newton) Iter() int { return nt.k }

// Residual is ‖F(w, λ)‖∞ at the current iterate.
func (nt *Newton) Residual() float64 { return nt.res }

// W is the current iterate w (must not be modified).
func (nt *Newton) W() []float64 { return nt.x[:nt.n] }

// SetParams moves λ (len = inputs − n), keeping w as the starting point
// of the next steps.
func (nt *Newton) SetParams(lambda []float64) error {
	if len(lambda) != len(nt.x)-nt.n {
		return algo.BadParam("λ", len(lambda), fmt.Sprintf("%d entries", len(nt.x)-nt.n))
	}
	copy(nt.x[nt.n:], lambda)
	if err := nt.g.SetInputs(nt.x); err != nil {
		return err
	}
	return nt.residual()
}
