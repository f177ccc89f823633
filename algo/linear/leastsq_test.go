package linear

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

func lsqOn(t testing.TB, x [][]float64, y []float64, bias bool, lambda float64) *LeastSquares {
	t.Helper()
	d, err := NewDesign(x, bias)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := NewLeastSquares(d, y, lambda)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestEpsilonExample: the notes' w = yXᵀ(XXᵀ)⁻¹ = (−2/ε, 1) (L357–L361),
// and the catalogue's ridge values with n = 2 ([A5], §D.6; six significant
// figures, so 1e-5 relative).
func TestEpsilonExample(t *testing.T) {
	tests := []struct {
		eps, lambda float64
		w           []float64
	}{
		{0.1, 0, []float64{-20, 1}},
		{1e-3, 0, []float64{-2000, 1}},
		{0.1, 0.1, []float64{-0.486726, 0.022124}},
		{0.1, 1, []float64{-0.0498132, 0.00124533}},
		{1e-3, 0.1, []float64{-0.00499999, 2.27e-6}},
	}
	for _, tt := range tests {
		l, _ := dataset.Epsilon(tt.eps)
		sol, err := lsqOn(t, l.X, l.Y, false, tt.lambda).Solve()
		if err != nil {
			t.Fatal(err)
		}
		for j, want := range tt.w {
			tol := 1e-5 * math.Abs(want)
			if tt.lambda == 0 {
				tol = 1e-9 * math.Abs(want)
			}
			if j == 1 && tt.eps == 1e-3 && tt.lambda > 0 {
				tol = 0.01e-6 // printed to three figures: 2.27e-6
			}
			if math.Abs(sol.Theta[j]-want) > tol {
				t.Errorf("ε=%g λ=%g: w = %v, want %v", tt.eps, tt.lambda, sol.Theta, tt.w)
			}
		}
		if sol.RankDeficient || sol.Rank != 2 {
			t.Errorf("ε=%g: rank %d, deficient %v", tt.eps, sol.Rank, sol.RankDeficient)
		}
	}
	// The blow-up of ‖w‖ ~ 2/ε shows in the condition number of XXᵀ.
	l, _ := dataset.Epsilon(1e-3)
	sol, _ := lsqOn(t, l.X, l.Y, false, 0).Solve()
	if sol.Cond < 1e6 {
		t.Errorf("ε = 1e-3: cond(XXᵀ) = %v, want ≳ 8e6", sol.Cond)
	}
}

func randomRegression(seed uint64, n, d int) ([][]float64, []float64) {
	l, _ := dataset.Linear(rand.New(rand.NewPCG(seed, 3)), n, d, 0.8, 0.5)
	return l.X, l.Y
}

// TestRidgeIsAugmentedOLS: Remark 3.6 (L387–L393): ridge with weight λ is
// least squares on the data augmented by √(nλ)·e_j with target 0.
func TestRidgeIsAugmentedOLS(t *testing.T) {
	for _, lambda := range []float64{1e-3, 0.1, 2} {
		x, y := randomRegression(1, 30, 4)
		n, d := len(x), len(x[0])
		ridge, err := lsqOn(t, x, y, false, lambda).Solve()
		if err != nil {
			t.Fatal(err)
		}
		xa := append([][]float64(nil), x...)
		ya := append([]float64(nil), y...)
		for j := 0; j < d; j++ {
			row := make([]float64, d)
			row[j] = math.Sqrt(float64(n) * lambda)
			xa = append(xa, row)
			ya = append(ya, 0)
		}
		ols, err := lsqOn(t, xa, ya, false, 0).Solve()
		if err != nil {
			t.Fatal(err)
		}
		if !floats.EqualApprox(ridge.Theta, ols.Theta, 1e-10) {
			t.Errorf("λ=%g: ridge %v, augmented OLS %v", lambda, ridge.Theta, ols.Theta)
		}
	}
}

// TestGradientZeroAtSolution: Fermat (Theorem 3.3): ∇f = 0 at the closed
// form, with and without bias, at λ = 0 and λ > 0; and the bias is not
// penalised (with a bias the residuals have mean zero).
func TestGradientZeroAtSolution(t *testing.T) {
	for _, bias := range []bool{false, true} {
		for _, lambda := range []float64{0, 0.05, 3} {
			x, y := randomRegression(2, 200, 6)
			ls := lsqOn(t, x, y, bias, lambda)
			sol, err := ls.Solve()
			if err != nil {
				t.Fatal(err)
			}
			g := make([]float64, ls.Design().P())
			ls.Grad(g, sol.Theta)
			if n := floats.Norm(g, 2); n > 1e-10 {
				t.Errorf("bias %v λ=%g: ‖∇f‖ = %v", bias, lambda, n)
			}
			if bias {
				ls.residuals(sol.Theta)
				if m := floats.Sum(ls.r) / 200; math.Abs(m) > 1e-12 {
					t.Errorf("λ=%g: mean residual %v: the bias is penalised", lambda, m)
				}
			}
		}
	}
}

// TestRankDeficiency: a repeated column (or d > n) makes XᵀX singular at
// λ = 0: Solve reports the rank and returns the least-norm minimiser; with
// λ > 0 the system is regular (Proposition 3.5, erratum E4).
func TestRankDeficiency(t *testing.T) {
	x, y := randomRegression(3, 50, 3)
	for i := range x {
		x[i] = append(x[i], 2*x[i][1]) // x4 = 2·x2
	}
	ls := lsqOn(t, x, y, true, 0)
	sol, err := ls.Solve()
	if err != nil {
		t.Fatal(err)
	}
	if !sol.RankDeficient || sol.Rank != 3 || !math.IsInf(sol.Cond, 1) {
		t.Fatalf("rank %d, deficient %v, cond %v", sol.Rank, sol.RankDeficient, sol.Cond)
	}
	g := make([]float64, 5)
	ls.Grad(g, sol.Theta)
	if floats.Norm(g, 2) > 1e-9 {
		t.Errorf("‖∇f‖ = %v at the least-norm solution", floats.Norm(g, 2))
	}
	// Least norm: the weight of the pair (x2, 2·x2) is split as (1, 2)/5.
	if r := sol.Theta[3] / sol.Theta[1]; math.Abs(r-2) > 1e-8 {
		t.Errorf("w4/w2 = %v, want 2 (least norm)", r)
	}
	reg, _ := lsqOn(t, x, y, true, 0.01).Solve()
	if reg.RankDeficient || math.IsInf(reg.Cond, 1) {
		t.Errorf("λ > 0: deficient %v, cond %v", reg.RankDeficient, reg.Cond)
	}
	wide, _ := lsqOn(t, x[:3], y[:3], false, 0).Solve()
	if !wide.RankDeficient || wide.Rank != 3 {
		t.Errorf("d = 4 > n = 3: rank %d, deficient %v", wide.Rank, wide.RankDeficient)
	}
}

// TestRidgePathMatchesSolve: the eigen-decomposition path gives the same θ
// as the Cholesky solve at every λ, and cond(λ) falls as λ grows.
func TestRidgePathMatchesSolve(t *testing.T) {
	x, y := randomRegression(4, 80, 5)
	lambdas := []float64{0, 1e-4, 1e-2, 1, 100}
	for _, bias := range []bool{false, true} {
		ls := lsqOn(t, x, y, bias, 0)
		path, conds, err := ls.RidgePath(lambdas)
		if err != nil {
			t.Fatal(err)
		}
		for k, lam := range lambdas {
			sol, _ := lsqOn(t, x, y, bias, lam).Solve()
			if !floats.EqualApprox(path[k], sol.Theta, 1e-9) {
				t.Errorf("bias %v λ=%g: path %v, solve %v", bias, lam, path[k], sol.Theta)
			}
			if math.Abs(conds[k]-sol.Cond) > 1e-9*sol.Cond {
				t.Errorf("λ=%g: cond %v vs %v", lam, conds[k], sol.Cond)
			}
			if k > 0 && conds[k] >= conds[k-1] {
				t.Errorf("cond does not fall: %v", conds)
			}
		}
	}
}

// naiveScore is the linear predictor ⟨x_i, w⟩ (+ b, θ's last coordinate,
// with a bias) of the naive objectives, written out with loops.
func naiveScore(x [][]float64, bias bool) func(th []float64, i int) float64 {
	d := len(x[0])
	return func(th []float64, i int) float64 {
		s := 0.0
		for j := 0; j < d; j++ {
			s += x[i][j] * th[j]
		}
		if bias {
			s += th[d]
		}
		return s
	}
}

// naiveLSQ is the ridge objective written out with loops, independently of
// LeastSquares, for the L-BFGS cross-check.
func naiveLSQ(x [][]float64, y []float64, bias bool, lambda float64) optimize.Problem {
	n, d := len(x), len(x[0])
	pred := naiveScore(x, bias)
	return optimize.Problem{
		Func: func(th []float64) float64 {
			s := 0.0
			for i := 0; i < n; i++ {
				r := pred(th, i) - y[i]
				s += r * r
			}
			for j := 0; j < d; j++ {
				s += float64(n) * lambda * th[j] * th[j]
			}
			return s / float64(n)
		},
		Grad: func(g, th []float64) {
			clear(g)
			for i := 0; i < n; i++ {
				r := pred(th, i) - y[i]
				for j := 0; j < d; j++ {
					g[j] += 2 * r * x[i][j] / float64(n)
				}
				if bias {
					g[d] += 2 * r / float64(n)
				}
			}
			for j := 0; j < d; j++ {
				g[j] += 2 * lambda * th[j]
			}
		},
	}
}

func lbfgs(t testing.TB, p optimize.Problem, x0 []float64) *optimize.Result {
	t.Helper()
	res, err := optimize.Minimize(p, x0, &optimize.Settings{GradientThreshold: 1e-12, MajorIterations: 100000}, &optimize.LBFGS{})
	if err != nil && res == nil {
		t.Fatal(err)
	}
	return res
}

// TestLeastSquaresAgreesWithLBFGS: the closed form and an independent
// L-BFGS solve of the same objective (written out separately) agree to
// 1e-6 relative in the objective value, and in θ.
func TestLeastSquaresAgreesWithLBFGS(t *testing.T) {
	for _, bias := range []bool{false, true} {
		for _, lambda := range []float64{0, 0.01, 0.5} {
			x, y := randomRegression(5, 120, 4)
			ls := lsqOn(t, x, y, bias, lambda)
			sol, _ := ls.Solve()
			res := lbfgs(t, naiveLSQ(x, y, bias, lambda), make([]float64, ls.Design().P()))
			fa, fb := ls.Func(sol.Theta), res.F
			if math.Abs(fa-fb) > 1e-6*math.Abs(fb) {
				t.Errorf("bias %v λ=%g: f = %.12g, L-BFGS %.12g", bias, lambda, fa, fb)
			}
			if fa > fb*(1+1e-12) {
				t.Errorf("bias %v λ=%g: the closed form is worse than L-BFGS", bias, lambda)
			}
			if !floats.EqualApprox(sol.Theta, res.X, 1e-5) {
				t.Errorf("bias %v λ=%g: θ %v vs %v", bias, lambda, sol.Theta, res.X)
			}
		}
	}
}

// TestLeastSquaresDerivatives: Grad and Hess against central differences,
// the batch gradients average to the full gradient (the unbiasedness of
// SGD, L901), and Curvature is the spectrum of the Hessian.
func TestLeastSquaresDerivatives(t *testing.T) {
	x, y := randomRegression(6, 40, 3)
	ls := lsqOn(t, x, y, true, 0.3)
	th := []float64{0.3, -1, 2, 0.5}
	checkDerivatives(t, "least squares", ls.Func, ls.Grad, func(h *mat.SymDense, x []float64) { ls.Hess(h, x) }, th)
	checkBatches(t, ls, th)
	checkTermHessians(t, ls, ls, th)
	m, L, _ := ls.Curvature()
	h := mat.NewSymDense(4, nil)
	ls.Hess(h, th)
	var eig mat.EigenSym
	eig.Factorize(h, false)
	ev := eig.Values(nil)
	if math.Abs(m-ev[0]) > 1e-12 || math.Abs(L-ev[3]) > 1e-12 || !(m > 0) {
		t.Errorf("curvature %v %v, spectrum %v", m, L, ev)
	}
}

// checkDerivatives compares a gradient (and a Hessian, if given) with
// central finite differences.
func checkDerivatives(t *testing.T, name string, f func([]float64) float64, grad func(g, x []float64), hess func(*mat.SymDense, []float64), x []float64) {
	t.Helper()
	n := len(x)
	want := make([]float64, n)
	fd.Gradient(want, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	got := make([]float64, n)
	grad(got, x)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
			t.Errorf("%s: ∂%d = %v, finite difference %v", name, i, got[i], want[i])
		}
	}
	if hess == nil {
		return
	}
	hw := mat.NewSymDense(n, nil)
	fd.Hessian(hw, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-4})
	hg := mat.NewSymDense(n, nil)
	hess(hg, x)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if math.Abs(hg.At(i, j)-hw.At(i, j)) > 1e-4*math.Max(1, math.Abs(hw.At(i, j))) {
				t.Errorf("%s: ∂²%d%d = %v, finite difference %v", name, i, j, hg.At(i, j), hw.At(i, j))
			}
		}
	}
}

// checkTermHessians: the mean of the term Hessians is the Hessian.
func checkTermHessians(t *testing.T, f interface {
	Len() int
	TermHess(*mat.SymDense, []float64, int)
}, full interface {
	Hess(*mat.SymDense, []float64)
}, x []float64) {
	t.Helper()
	p := len(x)
	sum := mat.NewSymDense(p, nil)
	hi := mat.NewSymDense(p, nil)
	for i := 0; i < f.Len(); i++ {
		f.TermHess(hi, x, i)
		sum.AddSym(sum, hi)
	}
	sum.ScaleSym(1/float64(f.Len()), sum)
	h := mat.NewSymDense(p, nil)
	full.Hess(h, x)
	if !mat.EqualApprox(sum, h, 1e-10) {
		t.Errorf("mean term Hessian %v ≠ Hessian %v", mat.Formatted(sum), mat.Formatted(h))
	}
}

// batcher is a FiniteSum as the SGD engine sees it.
type batcher interface {
	Grad(g, x []float64)
	GradBatch(g, x []float64, batch []int)
	Len() int
}

// checkBatches: the mean of the n single-term gradients is the full
// gradient, and the batch of all terms is too.
func checkBatches(t *testing.T, f batcher, x []float64) {
	t.Helper()
	n := f.Len()
	full := make([]float64, len(x))
	f.Grad(full, x)
	mean := make([]float64, len(x))
	gi := make([]float64, len(x))
	for i := 0; i < n; i++ {
		f.GradBatch(gi, x, []int{i})
		floats.AddScaled(mean, 1/float64(n), gi)
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	f.GradBatch(gi, x, all)
	if !floats.EqualApprox(mean, full, 1e-10) || !floats.EqualApprox(gi, full, 1e-10) {
		t.Errorf("mean single-term gradient %v, batch of all %v, full %v", mean, gi, full)
	}
}

func TestLeastSquaresValidation(t *testing.T) {
	d, _ := NewDesign([][]float64{{1}, {2}}, true)
	if _, err := NewLeastSquares(d, []float64{1, 2}, -1); !algo.IsParamError(err, "lambda") {
		t.Errorf("λ < 0: %v", err)
	}
	if _, err := NewLeastSquares(d, []float64{1}, 0); err == nil {
		t.Error("one target for two rows accepted")
	}
	if _, err := NewLeastSquares(d, []float64{1, math.NaN()}, 0); err == nil {
		t.Error("NaN target accepted")
	}
	if _, err := NewDesign([][]float64{{1, 2}, {3}}, true); err == nil {
		t.Error("ragged rows accepted")
	}
	if _, err := NewDesign(nil, true); !algo.IsParamError(err, "n") {
		t.Errorf("no rows: %v", err)
	}
}

// BenchmarkNormalEquation: the closed-form solve on 10 000 × 100 data
// (target < 50 ms): centring, XᵀX by one BLAS rank-k update, its spectrum
// (for the rank and condition number), Cholesky and two triangular solves.
func BenchmarkNormalEquation(b *testing.B) {
	x, y := randomRegression(7, 10000, 100)
	ls := lsqOn(b, x, y, true, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ls.Solve(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSpectrum: Solution.Spectrum holds the σ_i² of Proposition 3.5
// (L375–L385), checked against a closed form on the notes' ε example
// (XᵀX = [[1, 1], [1, 1 + ε²]]: trace 2 + ε², determinant ε²) and against
// gonum's SVD of the centred features on random data with a bias.
func TestSpectrum(t *testing.T) {
	for _, eps := range []float64{1, 0.1, 1e-3} {
		l, _ := dataset.Epsilon(eps)
		sol, err := lsqOn(t, l.X, l.Y, false, 0).Solve()
		if err != nil {
			t.Fatal(err)
		}
		tr, det := 2+eps*eps, eps*eps
		disc := math.Sqrt(tr*tr - 4*det)
		want := []float64{(tr + disc) / 2, 2 * det / (tr + disc)} // the small root without cancellation
		// A symmetric eigensolver is backward stable: errors of a few
		// ulps of the largest eigenvalue.
		for i, w := range want {
			if math.Abs(sol.Spectrum[i]-w) > 1e-14*want[0] {
				t.Errorf("ε=%g: σ%d² = %v, want %v", eps, i+1, sol.Spectrum[i], w)
			}
		}
	}
	x, y := randomRegression(7, 40, 5)
	sol, err := lsqOn(t, x, y, true, 0.3).Solve()
	if err != nil {
		t.Fatal(err)
	}
	xc := mat.NewDense(len(x), 5, nil)
	for j := 0; j < 5; j++ {
		mean := 0.0
		for i := range x {
			mean += x[i][j] / float64(len(x))
		}
		for i := range x {
			xc.Set(i, j, x[i][j]-mean)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	for i, s := range svd.Values(nil) {
		if math.Abs(sol.Spectrum[i]-s*s) > 1e-10*s*s {
			t.Errorf("σ%d² = %v, want %v", i+1, sol.Spectrum[i], s*s)
		}
	}
}
