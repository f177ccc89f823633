package linear

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/optim"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// overlapping returns two overlapping Gaussian classes in the plane (not
// separable) as a logistic objective.
func overlapping(t testing.TB, seed uint64, n int, bias bool, lambda float64) *Logistic {
	t.Helper()
	l, err := dataset.Blobs(rand.New(rand.NewPCG(seed, 5)), n, 2, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := NewDesign(l.X, bias)
	y, _ := l.PlusMinus()
	lg, err := NewLogistic(x, y, lambda)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

func TestLogisticDerivatives(t *testing.T) {
	for _, bias := range []bool{false, true} {
		lg := overlapping(t, 1, 60, bias, 0.2)
		th := []float64{0.4, -0.7, 0.3}[:lg.Design().P()]
		checkDerivatives(t, "logistic", lg.Func, lg.Grad, func(h *mat.SymDense, x []float64) { lg.Hess(h, x) }, th)
		checkBatches(t, lg, th)
		checkTermHessians(t, lg, lg, th)
	}
}

// naiveLogistic writes the objective out with the notes' simplified form
// (L433): Σ log[1 + exp(−⟨x, w⟩)] + (1 − y)⟨x, w⟩ for y ∈ {0, 1}, averaged,
// plus (λ/2)‖w‖². It shares no code with Logistic.
func naiveLogistic(x [][]float64, y01 []float64, bias bool, lambda float64) optimize.Problem {
	n, d := len(x), len(x[0])
	score := naiveScore(x, bias)
	return optimize.Problem{
		Func: func(th []float64) float64 {
			s := 0.0
			for i := 0; i < n; i++ {
				z := score(th, i)
				s += math.Log1p(math.Exp(-z)) + (1-y01[i])*z
			}
			r := 0.0
			for j := 0; j < d; j++ {
				r += th[j] * th[j]
			}
			return s/float64(n) + lambda/2*r
		},
		Grad: func(g, th []float64) {
			clear(g)
			for i := 0; i < n; i++ {
				z := score(th, i)
				c := (1/(1+math.Exp(-z)) - y01[i]) / float64(n) // p − y
				for j := 0; j < d; j++ {
					g[j] += c * x[i][j]
				}
				if bias {
					g[d] += c
				}
			}
			for j := 0; j < d; j++ {
				g[j] += lambda * th[j]
			}
		},
	}
}

// TestLogisticAgreesWithLBFGS: Newton's minimiser of the engine's objective
// has ∇f ≈ 0 and the same objective value, to 1e-6 relative, as an
// independent L-BFGS solve of the notes' form (Definition 4.1 simplified,
// L433); probabilities lie in (0, 1).
func TestLogisticAgreesWithLBFGS(t *testing.T) {
	for _, bias := range []bool{false, true} {
		for _, lambda := range []float64{0, 0.05} {
			l, _ := dataset.Blobs(rand.New(rand.NewPCG(3, 5)), 300, 2, 2.5)
			x, _ := NewDesign(l.X, bias)
			y, _ := l.PlusMinus()
			lg, _ := NewLogistic(x, y, lambda)
			nw, err := optim.NewNewton(lg, make([]float64, x.P()), optim.NewtonConfig{Tol: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 100; k++ {
				if err = nw.Step(); err != nil {
					break
				}
			}
			if !errors.Is(err, algo.ErrConverged) || nw.GradNorm() > 1e-10 {
				t.Fatalf("bias %v λ=%g: Newton %v, ‖∇f‖ = %v", bias, lambda, err, nw.GradNorm())
			}
			res := lbfgs(t, naiveLogistic(l.X, l.Y, bias, lambda), make([]float64, x.P()))
			if fa, fb := nw.F(), res.F; math.Abs(fa-fb) > 1e-6*fb || fa > fb*(1+1e-12) {
				t.Errorf("bias %v λ=%g: f = %.12g, L-BFGS %.12g", bias, lambda, fa, fb)
			}
			if !floats.EqualApprox(nw.X(), res.X, 1e-4) {
				t.Errorf("bias %v λ=%g: θ %v vs %v", bias, lambda, nw.X(), res.X)
			}
			for i := 0; i < x.N(); i++ {
				if p := lg.Prob(nw.X(), l.X[i]); !(p > 0 && p < 1) {
					t.Fatalf("p = %v", p)
				}
			}
		}
	}
}

// TestLogisticTheorem85: on non-separable data GD with t = 1/L, L =
// ¼λ_max(X̃ᵀX̃/n), satisfies f(x_k) − f* ≤ ‖x_0 − x*‖²/(2tk) at every k
// (catalogue §G.2), and the descent lemma (★) at every step.
func TestLogisticTheorem85(t *testing.T) {
	lg := overlapping(t, 2, 200, true, 0)
	_, L, _ := lg.Curvature()
	nw, _ := optim.NewNewton(lg, make([]float64, 3), optim.NewtonConfig{Tol: 1e-13})
	for nw.Step() == nil {
	}
	xstar, fstar := append([]float64(nil), nw.X()...), nw.F()
	x0 := []float64{3, -2, 1}
	r0 := floats.Distance(x0, xstar, 2)
	d, _ := optim.NewDescent(lg, x0, optim.DescentConfig{Method: optim.GD, LR: 1 / L})
	for k := 1; k <= 2000; k++ {
		f0, g0 := d.F(), d.GradNorm()
		if err := d.Step(); err != nil {
			t.Fatal(err)
		}
		bound, _ := optim.ConvexBound(L, 1/L, r0*r0, k)
		if gap := d.F() - fstar; gap > bound*(1+1e-9) {
			t.Fatalf("k=%d: gap %v > bound %v", k, gap, bound)
		}
		if d.F() > optim.DescentLemma(f0, 1/L, g0*g0)+1e-14 {
			t.Fatalf("k=%d: the descent lemma fails", k)
		}
	}
}

// TestSeparableDataHasNoMinimiser (catalogue [A6] pitfall, §D.19): on
// separable data with λ = 0 GD never converges; the loss falls towards 0,
// the data stay separated, and ‖w‖ keeps growing, about as fast per decade
// of steps (like log k).
func TestSeparableDataHasNoMinimiser(t *testing.T) {
	l, _, _ := dataset.Separable(rand.New(rand.NewPCG(1, 1)), 40, 0.1)
	x, _ := NewDesign(l.X, true)
	y, _ := l.PlusMinus()
	lg, _ := NewLogistic(x, y, 0)
	_, L, _ := lg.Curvature()
	d, _ := optim.NewDescent(lg, make([]float64, 3), optim.DescentConfig{Method: optim.GD, LR: 1 / L, Tol: 1e-8})
	var norms []float64
	for k := 1; k <= 100000; k++ {
		if err := d.Step(); err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if k == 100 || k == 1000 || k == 10000 || k == 100000 {
			norms = append(norms, floats.Norm(d.X()[:2], 2))
		}
	}
	if !lg.Separates(d.X()) || d.F() > 1e-3 {
		t.Errorf("f = %v, separates %v", d.F(), lg.Separates(d.X()))
	}
	for i := 1; i < len(norms); i++ {
		inc := norms[i] - norms[i-1]
		if !(inc > 0) {
			t.Fatalf("‖w‖ did not grow: %v", norms)
		}
		if i > 1 {
			if r := inc / (norms[i-1] - norms[i-2]); r < 0.5 || r > 2 {
				t.Errorf("growth per decade changes by %v: %v (want ~log k)", r, norms)
			}
		}
	}
}

// TestNewtonQuadraticConvergence: near the minimiser the error squares each
// step (e_{k+1} ≤ C e_k²) and Newton takes full steps.
func TestNewtonQuadraticConvergence(t *testing.T) {
	lg := overlapping(t, 4, 400, true, 0.01)
	nw, _ := optim.NewNewton(lg, make([]float64, 3), optim.NewtonConfig{Tol: 0})
	var gaps []float64
	for k := 0; k < 12; k++ {
		if err := nw.Step(); err != nil {
			break
		}
		gaps = append(gaps, nw.GradNorm())
	}
	quad := 0
	for k := 1; k < len(gaps); k++ {
		if gaps[k-1] < 1e-2 && gaps[k] > 1e-13 {
			if gaps[k] > 10*gaps[k-1]*gaps[k-1] {
				t.Errorf("‖∇f‖ %v → %v: not quadratic", gaps[k-1], gaps[k])
			}
			quad++
		}
	}
	if quad == 0 || gaps[len(gaps)-1] > 1e-12 {
		t.Errorf("gradient norms %v", gaps)
	}
	if s, mu := nw.LastStep(); s != 1 || mu != 0 {
		t.Errorf("last step s=%v μ=%v, want a pure Newton step", s, mu)
	}
}

func TestLogisticValidation(t *testing.T) {
	d, _ := NewDesign([][]float64{{1}, {2}}, true)
	if _, err := NewLogistic(d, []float64{0, 1}, 0); err == nil {
		t.Error("labels 0/1 accepted")
	}
	if _, err := NewLogistic(d, []float64{-1, 1}, math.Inf(1)); !algo.IsParamError(err, "lambda") {
		t.Errorf("λ = ∞: %v", err)
	}
}

// TestLogisticHessBlocks: the blocked Hessian (several blocks, the last
// one partial) is the mean of the term Hessians ∇²f_i, to rounding.
func TestLogisticHessBlocks(t *testing.T) {
	lg := overlapping(t, 3, 2*hessBlock+37, true, 0.3)
	th := []float64{0.4, -0.7, 0.3}
	p, n := lg.Design().P(), lg.Len()
	h, hi, want := mat.NewSymDense(p, nil), mat.NewSymDense(p, nil), mat.NewSymDense(p, nil)
	lg.Hess(h, th)
	for i := 0; i < n; i++ {
		lg.TermHess(hi, th, i)
		want.AddSym(want, hi)
	}
	want.ScaleSym(1/float64(n), want)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			if d := math.Abs(h.At(i, j) - want.At(i, j)); d > 1e-13 {
				t.Errorf("H[%d][%d] = %v, mean of term Hessians %v", i, j, h.At(i, j), want.At(i, j))
			}
		}
	}
}

// benchLogistic is n × d data of two classes split by a random-ish
// hyperplane with Gaussian noise, as a logistic objective with bias and λ.
func benchLogistic(n, d int, lambda float64) *Logistic {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = make([]float64, d)
		s := 0.0
		for j := range rows[i] {
			rows[i][j] = rng.NormFloat64()
			s += rows[i][j] * float64(j%3-1)
		}
		y[i] = 1
		if s+rng.NormFloat64() < 0 {
			y[i] = -1
		}
	}
	x, _ := NewDesign(rows, true)
	lg, _ := NewLogistic(x, y, lambda)
	return lg
}

// BenchmarkLogisticGDStep: one full-batch gradient step (f and ∇f at the
// new point, fused: two BLAS matrix-vector products and one pass of
// softplus/sigmoid) on 10 000 × 30 data (target < 1 ms, no allocation).
func BenchmarkLogisticGDStep(b *testing.B) {
	lg := benchLogistic(10000, 30, 0.01)
	_, L, _ := lg.Curvature()
	d, _ := optim.NewDescent(lg, make([]float64, 31), optim.DescentConfig{Method: optim.GD, LR: 1 / L})
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogisticHess: the Hessian on 100 000 × 20 data (21 parameters
// with the bias), blocked rank-k updates; no allocation.
func BenchmarkLogisticHess(b *testing.B) {
	defer algotest.CPUTime(b)()
	lg := benchLogistic(100000, 20, 1e-4)
	h := mat.NewSymDense(21, nil)
	th := make([]float64, 21)
	b.ReportAllocs()
	for b.Loop() {
		lg.Hess(h, th)
	}
}

// BenchmarkLogisticNewton: a whole Newton solve from θ = 0 to ‖∇f‖ ≤ 1e-8
// on 100 000 × 20 data, λ = 1e-4 (issue 14.3; scikit-learn's newton-cg on
// the same problem is in bench/).
func BenchmarkLogisticNewton(b *testing.B) {
	defer algotest.CPUTime(b)()
	lg := benchLogistic(100000, 20, 1e-4)
	for b.Loop() {
		nw, err := optim.NewNewton(lg, make([]float64, 21), optim.NewtonConfig{Tol: 1e-8})
		if err != nil {
			b.Fatal(err)
		}
		for nw.Step() == nil {
		}
	}
}

// TestAccuracyAtZero: at θ = 0 every score ties; the rule "predict +1 when
// the score is positive, else −1" (softmax: the first class of the largest
// probability, as argmax does) gives the share of −1 labels (of class 0),
// the real accuracy of that classifier, not a false 0.
func TestAccuracyAtZero(t *testing.T) {
	x, _ := NewDesign([][]float64{{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {2, 2}}, true)
	lg, err := NewLogistic(x, []float64{1, -1, -1, 1, -1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := lg.Accuracy(make([]float64, 3)); got != 0.6 {
		t.Errorf("logistic accuracy at θ = 0: %v, want 0.6 (3 of 5 labels are −1)", got)
	}
	if lg.Separates(make([]float64, 3)) {
		t.Error("θ = 0 separates nothing")
	}
	sm, err := NewSoftmax(x, []int{0, 1, 2, 0, 1}, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := sm.Accuracy(make([]float64, sm.Dim())); got != 0.4 {
		t.Errorf("softmax accuracy at Θ = 0: %v, want 0.4 (2 of 5 labels are class 0)", got)
	}
}
