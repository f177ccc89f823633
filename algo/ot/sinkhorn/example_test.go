package sinkhorn_test

import (
	"errors"
	"fmt"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot/lp"
	"github.com/thelab/lab/algo/ot/sinkhorn"
)

// Entropic OT (seed 002 §5.4, eqs 5.11–5.12, with ε = 1/λ) on the
// catalogue's 3×3 problem (ot.Three: masses on the points 0, 1, 2, cost
// |x − y|²), run to a marginal error ‖π1 − μ‖₁ of 1e-9 at three values of
// ε. Notice that the transport cost ⟨C, π⟩ falls to the exact LP optimum
// as ε → 0 (the entropy blurs the plan, which costs more), and that a
// smaller ε takes many more iterations.
func Example() {
	mu, nu := []float64{0.5, 0.3, 0.2}, []float64{0.4, 0.4, 0.2}
	c := []float64{0, 1, 4, 1, 0, 1, 4, 1, 0}
	_, exact, err := lp.Reference(mu, nu, c)
	if err != nil {
		panic(err)
	}
	fmt.Printf("LP optimum      %.4f\n", exact)
	for _, eps := range []float64{1, 0.3, 0.15} {
		s, err := sinkhorn.New(mu, nu, c, sinkhorn.Config{Eps: eps, Domain: sinkhorn.Log, Tol: 1e-9})
		if err != nil {
			panic(err)
		}
		for err == nil {
			err = s.Step()
		}
		if !errors.Is(err, algo.ErrConverged) {
			panic(err)
		}
		fmt.Printf("ε = %-4v cost %.4f after %d iterations\n", eps, s.Cost(), s.Iter())
	}
	// Output:
	// LP optimum      0.1000
	// ε = 1    cost 0.3618 after 23 iterations
	// ε = 0.3  cost 0.1197 after 175 iterations
	// ε = 0.15 cost 0.1006 after 3765 iterations
}

// Below PlainThreshold(C) = max|C|/708.4 the plain kernel exp(−C/ε)
// underflows and the notes' iterations (5.12) stall short of the
// marginals: Step says so with an *UnderflowError (an algo.ErrDiverged).
// Notice that the same ε in the log domain, which never forms the kernel,
// converges to the LP optimum 0.1.
func ExampleUnderflowError() {
	mu, nu := []float64{0.5, 0.3, 0.2}, []float64{0.4, 0.4, 0.2}
	c := []float64{0, 1, 4, 1, 0, 1, 4, 1, 0}
	for _, d := range []sinkhorn.Domain{sinkhorn.Plain, sinkhorn.Log} {
		s, err := sinkhorn.New(mu, nu, c, sinkhorn.Config{Eps: 0.002, Domain: d, Tol: 1e-9})
		if err != nil {
			panic(err)
		}
		for err == nil {
			err = s.Step()
		}
		fmt.Printf("%v: cost %.4f after %d iterations, diverged %v\n",
			d, s.Cost(), s.Iter(), errors.Is(err, algo.ErrDiverged))
		fmt.Println("  ", err)
	}
	// Output:
	// plain: cost 0.0000 after 21 iterations, diverged true
	//    plain Sinkhorn stalled at iteration 21 (marginal error 0.2): at ε = 0.002, exp(−C/ε) underflows in 2 of 9 entries of K; the plain domain needs ε ≥ 0.00565 — use the log domain
	// log: cost 0.1000 after 1014 iterations, diverged false
	//    converged
}
