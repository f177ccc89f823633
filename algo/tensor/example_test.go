package tensor_test

import (
	"fmt"

	"github.com/thelab/lab/algo/tensor"
)

// One reverse-mode step (seed 000 §1.3) on least squares, L(w) = mean((Xw −
// y)²): the tape records the forward pass, Backward fills w.Grad. Notice
// that it matches the closed form ∇L = (2/N) Xᵀ(Xw − y), and that x and y,
// made by FromData, have no gradient while w, made by New, has one.
func Example() {
	x, _ := tensor.FromData([]float64{1, 2, 3, 4, 5, 6}, 3, 2) // N = 3 rows
	y, _ := tensor.FromData([]float64{1, 0, 2}, 3, 1)
	w, _ := tensor.New(2, 1)
	copy(w.Data, []float64{0.5, -0.25})

	tp := tensor.NewTape()
	loss := tp.Mean(tp.Square(tp.Sub(tp.MatMul(x, w), y)))
	if err := tp.Backward(loss); err != nil {
		panic(err)
	}
	fmt.Printf("loss %.4f  grad %.4f\n", loss.Item(), w.Grad)

	// The closed form, by hand: r_i = x_i·w − y_i, ∇L = (2/N) Σ_i r_i x_i.
	var g [2]float64
	for i := range 3 {
		xi := x.Data[2*i : 2*i+2]
		r := xi[0]*w.Data[0] + xi[1]*w.Data[1] - y.Data[i]
		g[0] += 2. / 3 * r * xi[0]
		g[1] += 2. / 3 * r * xi[1]
	}
	fmt.Printf("closed form     %.4f\n", g)
	fmt.Println(x.Grad == nil, len(w.Grad))
	// Output:
	// loss 0.7500  grad [-3.0000 -4.0000]
	// closed form     [-3.0000 -4.0000]
	// true 2
}

// Misuse never panics: the first error sticks to the tape, later operations
// return a placeholder (its Item is NaN), and Backward (or Err) reports it,
// naming the operation and its place on the tape.
func ExampleTape_Err() {
	a, _ := tensor.New(2, 3)
	b, _ := tensor.New(4, 5)
	tp := tensor.NewTape()
	loss := tp.Sum(tp.Exp(tp.MatMul(a, b))) // 3 ≠ 4: the shapes do not chain
	fmt.Println(loss.Item())
	fmt.Println(tp.Backward(loss))
	// Output:
	// NaN
	// tensor MatMul (operation 1): inner sizes differ: [2 3] and [4 5]
}
