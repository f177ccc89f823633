package optimsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/optim"
	"gonum.org/v1/gonum/mat"
)

// The finite-sum problems of the gd sim (fnLSQ, fnLogistic): least squares
// and the logistic loss in two parameters, so that their iterates can be
// drawn over the contours. Their data are shaped so that m and L are known
// exactly: the second moment (1/n) Σ x_i x_iᵀ is the quadratic's matrix A =
// Rᵀdiag(1, κ)R (or A/2 for least squares, whose Hessian is twice it).

// dataStream is the PCG stream of the generated data.
const dataStream = 0x67645f64617461 // "gd_data"

// shaped draws n rows whose second moment (1/n) XᵀX is exactly g (2×2,
// positive definite): raw rows z, whitened by (ZᵀZ/n)^{-1/2}, then coloured
// by g^{1/2}.
func shaped(z [][]float64, g *mat.SymDense) ([][]float64, error) {
	n := len(z)
	s := mat.NewSymDense(2, nil)
	for _, r := range z {
		s.SymRankOne(s, 1/float64(n), mat.NewVecDense(2, r))
	}
	is, err := symPow(s, -0.5)
	if err != nil {
		return nil, err
	}
	gh, err := symPow(g, 0.5)
	if err != nil {
		return nil, err
	}
	var t mat.Dense
	t.Mul(is, gh) // row x = z S^{-1/2} G^{1/2}
	out := make([][]float64, n)
	for i, r := range z {
		out[i] = []float64{
			r[0]*t.At(0, 0) + r[1]*t.At(1, 0),
			r[0]*t.At(0, 1) + r[1]*t.At(1, 1),
		}
	}
	return out, nil
}

// symPow is S^p for a symmetric positive-definite S.
func symPow(s *mat.SymDense, p float64) (*mat.Dense, error) {
	var eig mat.EigenSym
	if !eig.Factorize(s, true) {
		return nil, errors.New("no eigen-decomposition")
	}
	ev := eig.Values(nil)
	if ev[0] <= 0 {
		return nil, errors.New("the design's second moment is singular")
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	d := mat.NewDiagDense(len(ev), nil)
	for i, e := range ev {
		d.SetDiag(i, math.Pow(e, p))
	}
	var out mat.Dense
	out.Product(&v, d, v.T())
	return &out, nil
}

// quadMatrix is the quadratic's A = Rᵀdiag(1, κ)R, scaled by c.
func quadMatrix(kappa, c float64) *mat.SymDense {
	q := optim.NewQuadratic(kappa)
	h := mat.NewSymDense(2, nil)
	q.Hess(h, nil)
	h.ScaleSym(c, h)
	return h
}

// lsqProblem is f(θ) = (1/n) Σ (x_iᵀθ − y_i)² with (2/n)XᵀX = A, so that
// ∇²f = A: m = 1 and L = κ as for the quadratic, and y_i = σ ε_i, so that
// the minimiser is near 0 and f* ≈ σ².
func lsqProblem(seed uint64, n int, kappa, sigma float64) (*optim.Problem, error) {
	rng := rand.New(rand.NewPCG(seed, dataStream))
	z := make([][]float64, n)
	y := make([]float64, n)
	for i := range z {
		z[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
		y[i] = sigma * rng.NormFloat64()
	}
	rows, err := shaped(z, quadMatrix(kappa, 0.5))
	if err != nil {
		return nil, err
	}
	x, err := linear.NewDesign(rows, false)
	if err != nil {
		return nil, err
	}
	ls, err := linear.NewLeastSquares(x, y, 0)
	if err != nil {
		return nil, err
	}
	sol, err := ls.Solve()
	if err != nil {
		return nil, err
	}
	m, L, err := ls.Curvature()
	if err != nil {
		return nil, err
	}
	return &optim.Problem{
		Name: fnLSQ.String(), Objective: ls,
		FStar: ls.Func(sol.Theta), Minima: [][]float64{sol.Theta},
		Start: []float64{-2.5, 1.5}, Region: region(sol.Theta),
		M: m, L: L, Convex: true,
	}, nil
}

// logisticProblem is f(θ) = (1/n) Σ log(1 + exp(−y_i x_iᵀθ)) + (λ/2)‖θ‖²
// (no bias) on two overlapping classes x = y·(1, 0) + N(0, I), shaped so
// that (1/n)XᵀX = A: L = κ/4 + λ and m = λ. Its minimiser comes from Newton.
func logisticProblem(seed uint64, n int, kappa, lambda float64) (*optim.Problem, error) {
	rng := rand.New(rand.NewPCG(seed, dataStream))
	z := make([][]float64, n)
	y := make([]float64, n)
	for i := range z {
		y[i] = float64(2*(i%2) - 1)
		z[i] = []float64{y[i] + rng.NormFloat64(), rng.NormFloat64()}
	}
	rows, err := shaped(z, quadMatrix(kappa, 1))
	if err != nil {
		return nil, err
	}
	x, err := linear.NewDesign(rows, false)
	if err != nil {
		return nil, err
	}
	lg, err := linear.NewLogistic(x, y, lambda)
	if err != nil {
		return nil, err
	}
	m, L, err := lg.Curvature()
	if err != nil {
		return nil, err
	}
	if lambda == 0 && linear.MaxMargin(x, y).Sep == linear.Separable {
		return nil, algo.BadParam("lambda", lambda, "> 0 for these data, which are separable (no minimiser at λ = 0)")
	}
	nw, err := optim.NewNewton(lg, []float64{0, 0}, optim.NewtonConfig{Tol: 1e-13})
	if err != nil {
		return nil, err
	}
	for k := 0; k < 200; k++ {
		if err = nw.Step(); err != nil {
			break
		}
	}
	if !errors.Is(err, algo.ErrConverged) {
		return nil, fmt.Errorf("logistic: the reference Newton solve did not converge: %v", err)
	}
	xstar := append([]float64(nil), nw.X()...)
	return &optim.Problem{
		Name: fnLogistic.String(), Objective: lg,
		FStar: nw.F(), Minima: [][]float64{xstar},
		Start: []float64{-2.5, 1.5}, Region: region(xstar),
		M: m, L: L, Convex: true,
	}, nil
}

// region is the quadratic's window, grown to hold the minimiser.
func region(xstar []float64) [4]float64 {
	r := [4]float64{-3, 3, -2, 2}
	r[0], r[1] = math.Min(r[0], xstar[0]-0.5), math.Max(r[1], xstar[0]+0.5)
	r[2], r[3] = math.Min(r[2], xstar[1]-0.5), math.Max(r[3], xstar[1]+0.5)
	return r
}
