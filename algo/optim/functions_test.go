package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/optimize/functions"
)

// TestFunctionsAgreeWithGonum: Rosenbrock and Beale, written here so that
// gonum's optimize/functions (which imports "testing") stays out of the
// binary, give gonum's values and gradients to rounding, in 2 to 5
// dimensions for Rosenbrock, at seeded random points.
func TestFunctionsAgreeWithGonum(t *testing.T) {
	type fn interface {
		Func([]float64) float64
		Grad(grad, x []float64)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name      string
		ours, ref fn
		dim       int
	}{
		{"rosenbrock-2", Rosenbrock{}, functions.ExtendedRosenbrock{}, 2},
		{"rosenbrock-3", Rosenbrock{}, functions.ExtendedRosenbrock{}, 3},
		{"rosenbrock-5", Rosenbrock{}, functions.ExtendedRosenbrock{}, 5},
		{"beale", Beale{}, functions.Beale{}, 2},
	} {
		for range 50 {
			x := make([]float64, c.dim)
			for i := range x {
				x[i] = 4*rng.Float64() - 2
			}
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
			if got, want := c.ours.Func(x), c.ref.Func(x); !close(got, want) {
				t.Errorf("%s f(%v) = %v, gonum %v", c.name, x, got, want)
			}
			g, h := make([]float64, c.dim), make([]float64, c.dim)
			for i := range g {
				g[i] = math.NaN() // Grad overwrites every entry
			}
			c.ours.Grad(g, x)
			c.ref.Grad(h, x)
			for i := range g {
				if !close(g[i], h[i]) {
					t.Errorf("%s ∇f(%v)[%d] = %v, gonum %v", c.name, x, i, g[i], h[i])
				}
			}
		}
	}
}
