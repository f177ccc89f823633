// Package linear holds the linear models of seed 001 §2–§6 as engines and
// objectives: the perceptron (Algorithm 1, one-vs-all and one-vs-one, and
// the homogeneous max-margin direction that gives Theorem 2.8 its γ), least
// squares and ridge regression (§3), binary logistic regression (§4,
// Definition 4.1, eq 4.a), softmax regression (eq 4.b), and the margin
// losses of §6 with their conditional risks (Definition 6.2, Theorem 6.3).
//
// The objectives implement optim.Objective, optim.TwiceDifferentiable (where
// a Hessian exists) and optim.FiniteSum, so that algo/optim's gradient
// descent, Newton and SGD engines run on them. They hold the data once, as
// a row-major gonum matrix, and keep scratch space so that evaluating them
// does not allocate; an objective is therefore not safe for concurrent use.
//
// Conventions. The notes' data matrix is d×n, one column per sample (§3,
// L347); here, as in gonum, X is n×d with one row per sample. The bias
// trick of L217 and L399 appends a 1 to every x and b to w: the parameter
// vector θ is (w, b) with b last. Labels are ±1 for the perceptron and the
// logistic loss (eq 4.a, with y′ = 2y − 1, erratum E5) and 0..c−1 for
// softmax.
package linear

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// Design is a data matrix with the bias trick: n rows x̃_i = (x_i, 1) when
// Bias is set, else x_i.
type Design struct {
	a    *mat.Dense // n × p, p = d + 1 with the bias column
	n, d int
	bias bool
}

// DesignBytes is what NewDesign allocates for n rows of p columns (the
// features and the bias column).
func DesignBytes(n, p int) int64 { return algo.HeapBytes(8*int64(n)*int64(p)) + 128 }

// NewDesign copies the rows x (n rows of d features) into a design matrix.
// It is an error for x to be empty, ragged or not finite.
func NewDesign(x [][]float64, bias bool) (*Design, error) {
	n := len(x)
	if n == 0 {
		return nil, algo.BadParam("n", 0, "≥ 1 rows of data")
	}
	d := len(x[0])
	if d == 0 {
		return nil, algo.BadParam("d", 0, "≥ 1 feature")
	}
	p := d
	if bias {
		p++
	}
	a := mat.NewDense(n, p, nil)
	raw := a.RawMatrix()
	for i, row := range x {
		if len(row) != d {
			return nil, fmt.Errorf("row %d has %d features, row 1 has %d", i+1, len(row), d)
		}
		dst := raw.Data[i*raw.Stride : i*raw.Stride+p]
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("row %d, feature %d: %v is not finite", i+1, j+1, v)
			}
			dst[j] = v
		}
		if bias {
			dst[d] = 1
		}
	}
	return &Design{a: a, n: n, d: d, bias: bias}, nil
}

// N is the number of rows, D the number of features, P = D (+1 with bias)
// the length of θ.
func (x *Design) N() int { return x.n }
func (x *Design) D() int { return x.d }
func (x *Design) P() int { return x.a.RawMatrix().Cols }

// Bias reports whether the rows carry the appended 1.
func (x *Design) Bias() bool { return x.bias }

// Row returns x̃_i (a view: do not modify).
func (x *Design) Row(i int) []float64 {
	raw := x.a.RawMatrix()
	return raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
}

// Matrix returns the n×p matrix (a view: do not modify).
func (x *Design) Matrix() *mat.Dense { return x.a }

// dot is ⟨x̃_i, θ⟩.
func (x *Design) dot(i int, theta []float64) float64 {
	s := 0.0
	for j, v := range x.Row(i) {
		s += v * theta[j]
	}
	return s
}

// penalised reports whether coordinate j of θ is a weight (penalised by a
// ridge term) rather than the bias.
func (x *Design) penalised(j int) bool { return !x.bias || j < x.d }

// weightSq is ‖w‖², the sum of the squared weights of θ, the bias left
// out: the ridge term of every objective here. θ is one block (w, b) of P
// coordinates, or several in a row (softmax's θ_k, one per class).
func (x *Design) weightSq(theta []float64) float64 {
	p := x.P()
	s := 0.0
	for k := 0; k < len(theta); k += p {
		for j, v := range theta[k : k+p] {
			if x.penalised(j) {
				s += v * v
			}
		}
	}
	return s
}

// addWeights adds r·(w, 0), the gradient of (r/2)‖w‖², to grad, blockwise
// as weightSq.
func (x *Design) addWeights(grad, theta []float64, r float64) {
	p := x.P()
	for k := 0; k < len(theta); k += p {
		for j, v := range theta[k : k+p] {
			if x.penalised(j) {
				grad[k+j] += r * v
			}
		}
	}
}

// checkClasses validates class labels y for the rows of x: classes ≥ 2,
// one label a row, each in 0..classes−1.
func checkClasses(x *Design, y []int, classes int) error {
	if classes < 2 {
		return algo.BadParam("classes", classes, "≥ 2")
	}
	if len(y) != x.N() {
		return fmt.Errorf("%d labels for %d rows", len(y), x.N())
	}
	for i, v := range y {
		if v < 0 || v >= classes {
			return fmt.Errorf("label %d is %d, not in 0..%d", i+1, v, classes-1)
		}
	}
	return nil
}

// gramEigen returns the eigenvalues (ascending) of AᵀA/n.
func (x *Design) gramEigen() ([]float64, error) {
	p := x.P()
	g := mat.NewSymDense(p, nil)
	g.SymOuterK(1/float64(x.n), x.a.T())
	var eig mat.EigenSym
	if !eig.Factorize(g, false) {
		return nil, fmt.Errorf("no eigen-decomposition of the Gram matrix")
	}
	return eig.Values(nil), nil
}

// checkTheta panics on a θ of the wrong length: a programming error.
func (x *Design) checkTheta(theta []float64) {
	if len(theta) != x.P() {
		panic(fmt.Sprintf("linear: θ has %d coordinates, the design %d", len(theta), x.P()))
	}
}
