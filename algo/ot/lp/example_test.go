package lp_test

import (
	"errors"
	"fmt"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot/lp"
)

// The transportation simplex, pivot by pivot, on masses μ at the points
// 0, 1, 2 and ν at 2, 1, 0 with the cost |x − y|² (the catalogue's ot.Three
// with the targets listed in reverse, so that the north-west corner is the
// worst plan rather than the best). Notice that every pivot lowers the cost
// by θ·|r| or, degenerate, moves no mass; that the optimal plan has at most
// n + m − 1 = 5 nonzero entries (a vertex of Π(μ, ν), seed 002 L2222); and
// that gonum's general simplex (Reference, Algorithm 4) agrees.
func ExampleSimplex() {
	mu, nu := []float64{0.5, 0.3, 0.2}, []float64{0.2, 0.4, 0.4}
	c := []float64{4, 1, 0, 1, 0, 1, 0, 1, 4}
	s, err := lp.New(mu, nu, c)
	if err != nil {
		panic(err)
	}
	fmt.Printf("north-west corner: cost %.4f\n", s.Cost())
	for {
		err := s.Step()
		if err != nil && !errors.Is(err, algo.ErrConverged) {
			panic(err)
		}
		fmt.Printf("%v: cost %.4f\n", s.Last(), s.Cost())
		if err != nil {
			break
		}
	}
	fmt.Printf("plan %.2f, %d nonzeros\n", s.Plan(), s.Nonzeros())
	_, ref, err := lp.Reference(mu, nu, c)
	fmt.Printf("gonum: cost %.4f %v\n", ref, err)
	// Output:
	// north-west corner: cost 2.1000
	// (2,0) enters (r = -6), (1,1) leaves, θ = 0.1 round a 6-cycle: cost 1.5000
	// (0,2) enters (r = -8), (0,0) leaves, θ = 0.1 round a 4-cycle: cost 0.7000
	// (2,1) enters (r = -4), (2,2) leaves, θ = 0 round a 4-cycle: cost 0.7000
	// (1,1) enters (r = -2), (1,2) leaves, θ = 0.3 round a 4-cycle: cost 0.1000
	// plan [0.00 0.10 0.40 0.00 0.30 0.00 0.20 0.00 0.00], 4 nonzeros
	// gonum: cost 0.1000 <nil>
}
