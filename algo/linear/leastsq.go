package linear

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// LeastSquares is the ridge-regression objective of seed 001 §3 (Definition
// 3.4, L369) with the bias not penalised:
//
//	f(θ) = (1/n) ‖Xw + b·1 − y‖² + λ ‖w‖²,   θ = (w, b),
//	∇f(θ) = (2/n) X̃ᵀ(X̃θ − y) + 2λ(w, 0),   ∇²f = (2/n) X̃ᵀX̃ + 2λ diag(I, 0).
//
// λ = 0 is ordinary least squares (L347). The notes put the bias into w
// (L399), which penalises it too; their ε example (L357–L361) has no bias
// column at all, which is Design.Bias = false here. With n terms
// f_i(θ) = (x̃_iᵀθ − y_i)² + λ‖w‖² it is a FiniteSum.
type LeastSquares struct {
	x      *Design
	y      []float64
	lambda float64
	r      []float64 // X̃θ − y at last
	last   []float64
	valid  bool
}

// LeastSquaresBytes is what NewLeastSquares allocates for n rows of p
// columns besides the design: its copy of the targets and the residuals.
func LeastSquaresBytes(n, p int) int64 { return 2*algo.HeapBytes(8*int64(n)) + 8*int64(p) + 128 }

// NewLeastSquares validates y (one finite target per row) and λ ≥ 0.
func NewLeastSquares(x *Design, y []float64, lambda float64) (*LeastSquares, error) {
	if len(y) != x.N() {
		return nil, fmt.Errorf("%d targets for %d rows", len(y), x.N())
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("target %d is %v", i+1, v)
		}
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return nil, algo.BadParam("lambda", lambda, "a finite number ≥ 0")
	}
	return &LeastSquares{
		x: x, y: append([]float64(nil), y...), lambda: lambda,
		r: make([]float64, x.N()), last: make([]float64, x.P()),
	}, nil
}

// Design returns the data; Y the targets (a view); Lambda the ridge weight.
func (ls *LeastSquares) Design() *Design { return ls.x }
func (ls *LeastSquares) Y() []float64    { return ls.y }
func (ls *LeastSquares) Lambda() float64 { return ls.lambda }

// Len is the number of terms n.
func (ls *LeastSquares) Len() int { return ls.x.N() }

// residuals sets r = X̃θ − y, unless θ is the last point evaluated.
func (ls *LeastSquares) residuals(theta []float64) {
	ls.x.checkTheta(theta)
	if ls.valid && floats.Equal(theta, ls.last) {
		return
	}
	copy(ls.r, ls.y)
	blas64.Gemv(blas.NoTrans, 1, ls.x.a.RawMatrix(), vec(theta), -1, vec(ls.r))
	copy(ls.last, theta)
	ls.valid = true
}

func (ls *LeastSquares) penalty(theta []float64) float64 {
	return ls.lambda * ls.x.weightSq(theta)
}

// Func is f(θ).
func (ls *LeastSquares) Func(theta []float64) float64 {
	ls.residuals(theta)
	return floats.Dot(ls.r, ls.r)/float64(ls.x.N()) + ls.penalty(theta)
}

// MSE is the mean squared residual (1/n)‖X̃θ − y‖², without the penalty.
func (ls *LeastSquares) MSE(theta []float64) float64 {
	ls.residuals(theta)
	return floats.Dot(ls.r, ls.r) / float64(ls.x.N())
}

// Grad writes ∇f(θ).
func (ls *LeastSquares) Grad(grad, theta []float64) {
	ls.residuals(theta)
	blas64.Gemv(blas.Trans, 2/float64(ls.x.N()), ls.x.a.RawMatrix(), vec(ls.r), 0, vec(grad))
	ls.addPenaltyGrad(grad, theta)
}

func (ls *LeastSquares) addPenaltyGrad(grad, theta []float64) {
	ls.x.addWeights(grad, theta, 2*ls.lambda)
}

// GradBatch writes (1/|B|) Σ_{i∈B} ∇f_i(θ) = (2/|B|) Σ x̃_i(x̃_iᵀθ − y_i) + 2λ(w, 0).
func (ls *LeastSquares) GradBatch(grad, theta []float64, batch []int) {
	clear(grad)
	for _, i := range batch {
		floats.AddScaled(grad, 2*(ls.x.dot(i, theta)-ls.y[i]), ls.x.Row(i))
	}
	floats.Scale(1/float64(len(batch)), grad)
	ls.addPenaltyGrad(grad, theta)
}

// Hess writes the constant Hessian (2/n) X̃ᵀX̃ + 2λ diag(I, 0).
func (ls *LeastSquares) Hess(h *mat.SymDense, _ []float64) {
	h.SymOuterK(2/float64(ls.x.N()), ls.x.a.T())
	for j := 0; j < ls.x.P(); j++ {
		if ls.x.penalised(j) {
			h.SetSym(j, j, h.At(j, j)+2*ls.lambda)
		}
	}
}

// TermHess writes ∇²f_i = 2 x̃_i x̃_iᵀ + 2λ diag(I, 0).
func (ls *LeastSquares) TermHess(h *mat.SymDense, _ []float64, i int) {
	termHess(h, ls.x, i, 2, 2*ls.lambda)
}

// termHess writes a·x̃_i x̃_iᵀ + r·diag(penalised) into h.
func termHess(h *mat.SymDense, x *Design, i int, a, r float64) {
	row := x.Row(i)
	for j := range row {
		for k := j; k < len(row); k++ {
			v := a * row[j] * row[k]
			if j == k && x.penalised(j) {
				v += r
			}
			h.SetSym(j, k, v)
		}
	}
}

// Curvature returns the extreme eigenvalues m ≤ L of the Hessian: f is
// L-smooth, and m-strongly convex when m > 0 (Definitions 8.4, 8.6).
func (ls *LeastSquares) Curvature() (m, L float64, err error) {
	h := mat.NewSymDense(ls.x.P(), nil)
	ls.Hess(h, nil)
	return extremeEigen(h)
}

// Solution is a closed-form minimiser of a LeastSquares objective.
type Solution struct {
	Theta []float64 // (w, b)
	// Rank is the numerical rank of the (centred, when there is a bias)
	// feature matrix, D when it has full column rank.
	Rank int
	// RankDeficient is set when λ = 0 and the features are linearly
	// dependent: the normal equation has many solutions and Theta is the
	// one of least norm.
	RankDeficient bool
	// Cond is the 2-norm condition number of the normal-equation matrix
	// X_cᵀX_c + nλI (+Inf when it is singular).
	Cond float64
	// Spectrum holds the eigenvalues of X_cᵀX_c in decreasing order: the
	// squared singular values σ_i² of X_c (Proposition 3.5, L375–L385).
	// Ridge solves with σ_i² + nλ in their place, so the smallest is lifted
	// to at least nλ (rounding below zero is clamped to 0).
	Spectrum []float64
}

// Solve returns the minimiser in closed form (seed 001, L351 and L373):
//
//	(X_cᵀX_c + nλI) w = X_cᵀ y_c,   b = ȳ − x̄ᵀw,
//
// with X_c, y_c the data centred on their means when there is a bias (so
// that b is not penalised) and uncentred otherwise (b = 0). Note nλ, not λ:
// the loss has the factor 1/n. The system is solved by a Cholesky
// factorisation of the Gram matrix, never by forming an inverse (the notes'
// W = YXᵀ(XXᵀ)⁻¹ is only a formula). When λ = 0 and X_c does not have full
// column rank the normal equation is singular: Solve reports the rank and
// returns the minimum-norm solution from a thin SVD of X_c. Rank is judged
// from the eigenvalues e_i of X_cᵀX_c: e_i ≤ 10⁻¹³·d·e_max counts as zero.
func (ls *LeastSquares) Solve() (Solution, error) {
	n, d := ls.x.N(), ls.x.D()
	xc, yc, xbar, ybar := ls.centred()
	// Gram matrix of the centred features: one symmetric rank-n update.
	g := mat.NewSymDense(d, nil)
	g.SymOuterK(1, xc.T())
	var eig mat.EigenSym
	if !eig.Factorize(g, false) {
		return Solution{}, fmt.Errorf("least squares: no eigen-decomposition of XᵀX")
	}
	ev := eig.Values(nil)
	top := math.Max(ev[d-1], 0)
	rank := 0
	for _, e := range ev {
		if e > 1e-13*float64(d)*top {
			rank++
		}
	}
	nl := float64(n) * ls.lambda
	sol := Solution{Theta: make([]float64, ls.x.P()), Rank: rank, Cond: math.Inf(1), Spectrum: make([]float64, d)}
	for i, e := range ev {
		sol.Spectrum[d-1-i] = math.Max(e, 0)
	}
	if lo := math.Max(ev[0], 0) + nl; (rank == d || nl > 0) && lo > 0 {
		sol.Cond = (top + nl) / lo
	}
	w := mat.NewVecDense(d, sol.Theta[:d])
	if rank == d || nl > 0 {
		for j := 0; j < d; j++ {
			g.SetSym(j, j, g.At(j, j)+nl)
		}
		var chol mat.Cholesky
		if !chol.Factorize(g) {
			return Solution{}, fmt.Errorf("least squares: XᵀX + nλI is not positive definite (cond %.3g)", sol.Cond)
		}
		var rhs mat.VecDense
		rhs.MulVec(xc.T(), yc)
		if err := chol.SolveVecTo(w, &rhs); err != nil {
			var c mat.Condition
			if !asCondition(err, &c) {
				return Solution{}, err
			}
		}
	} else {
		sol.RankDeficient = true
		var svd mat.SVD
		if !svd.Factorize(xc, mat.SVDThin) {
			return Solution{}, fmt.Errorf("least squares: SVD failed")
		}
		var u, v mat.Dense
		svd.UTo(&u)
		svd.VTo(&v)
		s := svd.Values(nil)
		r := 0
		for _, sv := range s {
			if sv > s[0]*float64(max(n, d))*0x1p-52 {
				r++
			}
		}
		for k := 0; k < r; k++ {
			c := mat.Dot(u.ColView(k), yc) / s[k]
			w.AddScaledVec(w, c, v.ColView(k))
		}
	}
	if ls.x.Bias() {
		sol.Theta[d] = ybar - floats.Dot(xbar, sol.Theta[:d])
	}
	return sol, nil
}

// centred returns the features and targets centred on their means when
// there is a bias (with the means), and as they are otherwise.
func (ls *LeastSquares) centred() (xc *mat.Dense, yc *mat.VecDense, xbar []float64, ybar float64) {
	n, d := ls.x.N(), ls.x.D()
	xbar = make([]float64, d)
	xc = mat.NewDense(n, d, nil)
	yc = mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		copy(xc.RawRowView(i), ls.x.Row(i)[:d])
		yc.SetVec(i, ls.y[i])
	}
	if !ls.x.Bias() {
		return xc, yc, xbar, 0
	}
	for i := 0; i < n; i++ {
		floats.Add(xbar, xc.RawRowView(i))
		ybar += ls.y[i]
	}
	floats.Scale(1/float64(n), xbar)
	ybar /= float64(n)
	for i := 0; i < n; i++ {
		floats.Sub(xc.RawRowView(i), xbar)
		yc.SetVec(i, ls.y[i]-ybar)
	}
	return xc, yc, xbar, ybar
}

// RidgePath returns the ridge solutions θ(λ) and the condition numbers of
// X_cᵀX_c + nλI at each λ ≥ 0 of lambdas, from one eigen-decomposition of
// X_cᵀX_c = VΛVᵀ (Proposition 3.5, L375–L385: X_cᵀX_c + nλI = V(Λ + nλI)Vᵀ
// is non-singular for every λ > 0, erratum E4):
//
//	w(λ) = V (Λ + nλI)⁺ Vᵀ X_cᵀ y_c,   cond(λ) = (e_max + nλ) / (e_min + nλ).
//
// At λ = 0 with rank-deficient features the pseudo-inverse gives the
// minimum-norm solution and the condition number is +Inf.
func (ls *LeastSquares) RidgePath(lambdas []float64) (thetas [][]float64, conds []float64, err error) {
	n, d := ls.x.N(), ls.x.D()
	xc, yc, xbar, ybar := ls.centred()
	g := mat.NewSymDense(d, nil)
	g.SymOuterK(1, xc.T())
	var eig mat.EigenSym
	if !eig.Factorize(g, true) {
		return nil, nil, fmt.Errorf("least squares: no eigen-decomposition of XᵀX")
	}
	ev := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	var xty, proj mat.VecDense
	xty.MulVec(xc.T(), yc)
	proj.MulVec(v.T(), &xty) // Vᵀ X_cᵀ y_c
	top := math.Max(ev[d-1], 0)
	tiny := 1e-13 * float64(d) * top
	for _, lam := range lambdas {
		if !(lam >= 0) {
			return nil, nil, algo.BadParam("lambda", lam, "≥ 0")
		}
		nl := float64(n) * lam
		theta := make([]float64, ls.x.P())
		for k := 0; k < d; k++ {
			e := math.Max(ev[k], 0) + nl
			if e <= tiny {
				continue
			}
			for j := 0; j < d; j++ {
				theta[j] += v.At(j, k) * proj.AtVec(k) / e
			}
		}
		if ls.x.Bias() {
			theta[d] = ybar - floats.Dot(xbar, theta[:d])
		}
		c := math.Inf(1)
		if lo := math.Max(ev[0], 0) + nl; lo > tiny {
			c = (top + nl) / lo
		}
		thetas = append(thetas, theta)
		conds = append(conds, c)
	}
	return thetas, conds, nil
}

// extremeEigen returns the least and largest eigenvalues of a symmetric
// matrix.
func extremeEigen(h mat.Symmetric) (lo, hi float64, err error) {
	var eig mat.EigenSym
	if !eig.Factorize(h, false) {
		return 0, 0, fmt.Errorf("no eigen-decomposition")
	}
	ev := eig.Values(nil)
	return ev[0], ev[len(ev)-1], nil
}

func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }

func asCondition(err error, c *mat.Condition) bool {
	cc, ok := err.(mat.Condition)
	if ok {
		*c = cc
	}
	return ok
}
