package ad_test

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/ad"
)

// Parse an expression, then take its gradient in reverse mode (one pass,
// §1.3) and one directional derivative in forward mode (a JVP, §1.2).
// Notice that both match the closed form ∇f = (y + cos x, x), and that x,
// read twice, is one node whose adjoint sums both uses (§1.4).
func ExampleParse() {
	g, err := ad.Parse("x*y + sin(x)", []ad.Var{{Name: "x", Value: 2}, {Name: "y", Value: 3}})
	if err != nil {
		panic(err)
	}
	grad := make([]float64, 2)
	if err := g.Gradient(grad, 0); err != nil { // Backward(0), which runs Forward
		panic(err)
	}
	fmt.Printf("f = %.4f\n", g.Value(0))
	fmt.Printf("reverse ∇f   = %.4f\n", grad)
	fmt.Printf("closed form  = %.4f\n", []float64{3 + math.Cos(2), 2})

	jv := make([]float64, 1)
	if err := g.JVP(jv, []float64{1, 0}); err != nil { // tangent seeded on x
		panic(err)
	}
	fmt.Printf("forward ∂f/∂x = %.4f\n", jv[0])
	// Output:
	// f = 6.9093
	// reverse ∇f   = [2.5839 2.0000]
	// closed form  = [2.5839 2.0000]
	// forward ∂f/∂x = 2.5839
}

// The wrong first attempt at backpropagation that passes on a node's
// running adjoint instead of waiting for all of it. On u + sin(u) with
// u = x·y the inner node u has two parents, and the naive recursion gives
// y(2 + cos u) for ∂f/∂x where the right answer, Backward's, is y(1 + cos u).
func ExampleNaiveBackprop() {
	g, err := ad.Parse("u = x*y; u + sin(u)", []ad.Var{{Name: "x", Value: 0.5}, {Name: "y", Value: 2}})
	if err != nil {
		panic(err)
	}
	naive, right := make([]float64, 2), make([]float64, 2)
	if err := ad.NaiveBackprop(g, naive, 0); err != nil {
		panic(err)
	}
	if err := g.Gradient(right, 0); err != nil {
		panic(err)
	}
	fmt.Printf("naive %.4f, right %.4f\n", naive, right)
	fmt.Printf("y(2 + cos u) = %.4f, y(1 + cos u) = %.4f\n", 2*(2+math.Cos(1)), 2*(1+math.Cos(1)))
	// Output:
	// naive [5.0806 1.2702], right [3.0806 0.7702]
	// y(2 + cos u) = 5.0806, y(1 + cos u) = 3.0806
}

// The Hessian by forward-on-reverse (§1.7.3): one run a column, each run
// three passes over the graph (Table 1.1). Notice that it matches the
// closed form [[2y, 2x], [2x, eʸ]] of f = x²y + eʸ.
func ExampleNewHessian() {
	g, err := ad.Parse("x^2*y + exp(y)", []ad.Var{{Name: "x", Value: 1.5}, {Name: "y", Value: 0.5}})
	if err != nil {
		panic(err)
	}
	h, err := ad.NewHessian(g, ad.FoR, 0)
	if err != nil {
		panic(err)
	}
	H, err := h.Run()
	if err != nil {
		panic(err)
	}
	fmt.Printf("H = %.4f (row-major), %d runs, %d passes\n", H, h.Runs(), h.Passes())
	fmt.Printf("closed form %.4f\n", []float64{2 * 0.5, 2 * 1.5, 2 * 1.5, math.Exp(0.5)})
	// Output:
	// H = [1.0000 3.0000 3.0000 1.6487] (row-major), 2 runs, 6 passes
	// closed form [1.0000 3.0000 3.0000 1.6487]
}
