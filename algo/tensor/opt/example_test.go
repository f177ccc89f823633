package opt_test

import (
	"fmt"

	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/tensor/opt"
)

// A training loop: Rewind the tape, record the model, Backward, Step.
// Least squares on three points, L(w) = mean((Xw − y)²), whose minimiser
// solves the normal equations XᵀX w = Xᵀy: w* = (2/3, 5/3), with the
// residual (−1/3, −1/3, 1/3) and L(w*) = 1/9. Notice that plain SGD at rate
// 0.5 reaches it to four decimals in 60 steps (the Hessian (2/N)XᵀX has
// eigenvalues 2 and 2/3, so each step shrinks the error by at least a
// third), and that after the first step the loop allocates nothing.
func Example() {
	x, _ := tensor.FromData([]float64{1, 0, 0, 1, 1, 1}, 3, 2)
	y, _ := tensor.FromData([]float64{1, 2, 2}, 3, 1)
	w, _ := tensor.New(2, 1) // starts at 0
	o, err := opt.New([]*tensor.Tensor{w}, opt.Config{Method: opt.SGD, LR: 0.5})
	if err != nil {
		panic(err)
	}
	tp := tensor.NewTape()
	var loss *tensor.Tensor
	for range 60 {
		tp.Rewind()
		loss = tp.Mean(tp.Square(tp.Sub(tp.MatMul(x, w), y)))
		if err := tp.Backward(loss); err != nil {
			panic(err)
		}
		if err := o.Step(); err != nil {
			panic(err)
		}
	}
	fmt.Printf("w = %.4f, L = %.4f after %d steps\n", w.Data, loss.Item(), o.Steps())
	// Output:
	// w = [0.6667 1.6667], L = 0.1111 after 60 steps
}
