package optim

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// classicProblems are the classic test functions; allProblems adds wavy.
var (
	classicProblems = []Function{FnQuadratic, FnRosenbrock, FnBeale, FnHimmelblau}
	allProblems     = append(append([]Function(nil), classicProblems...), FnWavy)
)

// TestHessians compares every analytic Hessian with finite differences of
// the gradient.
func TestHessians(t *testing.T) {
	for _, name := range allProblems {
		p := NewProblem(name, 7)
		f := p.Objective.(TwiceDifferentiable)
		for _, x := range [][]float64{{0.3, -0.7}, {1.1, 0.4}, {-1.5, 2.2}, p.Start} {
			want := mat.NewSymDense(2, nil)
			fd.Hessian(want, p.Func, x, &fd.Settings{Formula: fd.Central, Step: 1e-4})
			got := mat.NewSymDense(2, nil)
			f.Hess(got, x)
			for i := 0; i < 2; i++ {
				for j := 0; j < 2; j++ {
					if math.Abs(got.At(i, j)-want.At(i, j)) > 1e-4*math.Max(1, math.Abs(want.At(i, j))) {
						t.Errorf("%s at %v: H[%d][%d] = %v, finite difference %v", name, x, i, j, got.At(i, j), want.At(i, j))
					}
				}
			}
		}
	}
}

// TestNewtonOneStepOnQuadratic: on a strictly convex quadratic the first
// Newton step lands on the minimiser, whatever the conditioning.
func TestNewtonOneStepOnQuadratic(t *testing.T) {
	for _, kappa := range []float64{1, 10, 1000} {
		p := NewProblem("quadratic", kappa)
		nw, err := NewNewton(p.Objective.(TwiceDifferentiable), p.Start, NewtonConfig{Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		if err := nw.Step(); err != nil {
			t.Fatal(err)
		}
		if floats.Norm(nw.X(), 2) > 1e-12 {
			t.Errorf("κ=%g: x = %v after one step", kappa, nw.X())
		}
		if err := nw.Step(); !errors.Is(err, algo.ErrConverged) {
			t.Errorf("κ=%g: second step %v", kappa, err)
		}
	}
}

// TestNewtonConverges: damped Newton from each standard start ends at a
// point with ∇f ≈ 0 and ∇²f ⪰ 0 (a local minimiser; on the non-convex
// functions the Hessian shift and the line search keep it descending).
func TestNewtonConverges(t *testing.T) {
	for _, name := range allProblems {
		p := NewProblem(name, 10)
		f := p.Objective.(TwiceDifferentiable)
		nw, err := NewNewton(f, p.Start, NewtonConfig{Tol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		f0 := nw.F()
		for k := 0; k < 500; k++ {
			if err = nw.Step(); err != nil {
				break
			}
		}
		if !errors.Is(err, algo.ErrConverged) || nw.GradNorm() > 1e-9 || nw.F() > f0 {
			t.Errorf("%s: %v, ‖∇f‖ = %v, f %v → %v", name, err, nw.GradNorm(), f0, nw.F())
			continue
		}
		h := mat.NewSymDense(2, nil)
		f.Hess(h, nw.X())
		var eig mat.EigenSym
		eig.Factorize(h, false)
		if lo := eig.Values(nil)[0]; lo < -1e-8 {
			t.Errorf("%s: ended at %v, a saddle (λ_min = %v)", name, nw.X(), lo)
		}
		if name == "rosenbrock" && floats.Distance(nw.X(), []float64{1, 1}, 2) > 1e-6 {
			t.Errorf("rosenbrock: ended at %v", nw.X())
		}
	}
}

func TestNewtonValidation(t *testing.T) {
	p := NewProblem("quadratic", 10)
	f := p.Objective.(TwiceDifferentiable)
	if _, err := NewNewton(f, []float64{0, 0}, NewtonConfig{Tol: -1}); !algo.IsParamError(err, "tol") {
		t.Errorf("tol < 0: %v", err)
	}
	if _, err := NewNewton(f, []float64{math.Inf(1), 0}, NewtonConfig{}); !algo.IsParamError(err, "x0") {
		t.Errorf("x0 = ∞: %v", err)
	}
}

func BenchmarkNewtonStep(b *testing.B) {
	p := NewProblem("rosenbrock", 1)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		nw, _ := NewNewton(p.Objective.(TwiceDifferentiable), p.Start, NewtonConfig{})
		b.StartTimer()
		_ = nw.Step()
	}
}

// TestSaddle: the saddle's gradient and Hessian against finite
// differences, ∇f = 0 at the saddle (0, 0) and the minima (0, ±1) with
// f = −¼ there, and the Hessian's signs (1, −1) at the saddle.
func TestSaddle(t *testing.T) {
	var f Saddle
	for _, x := range [][]float64{{0.3, -0.7}, {1.1, 0.4}, {-1.5, 2.2}} {
		g := make([]float64, 2)
		f.Grad(g, x)
		want := make([]float64, 2)
		fd.Gradient(want, f.Func, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		h, wantH := mat.NewSymDense(2, nil), mat.NewSymDense(2, nil)
		f.Hess(h, x)
		fd.Hessian(wantH, f.Func, x, &fd.Settings{Formula: fd.Central, Step: 1e-4})
		for i := range 2 {
			if math.Abs(g[i]-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
				t.Errorf("at %v: ∂%d = %v, finite difference %v", x, i, g[i], want[i])
			}
			for j := range 2 {
				if math.Abs(h.At(i, j)-wantH.At(i, j)) > 1e-4*math.Max(1, math.Abs(wantH.At(i, j))) {
					t.Errorf("at %v: H[%d][%d] = %v, finite difference %v", x, i, j, h.At(i, j), wantH.At(i, j))
				}
			}
		}
	}
	g := make([]float64, 2)
	for _, x := range [][]float64{{0, 0}, {0, 1}, {0, -1}} {
		f.Grad(g, x)
		if g[0] != 0 || g[1] != 0 {
			t.Errorf("∇f%v = %v", x, g)
		}
	}
	if f.Func([]float64{0, 1}) != -0.25 {
		t.Error("f* ≠ −¼")
	}
	h := mat.NewSymDense(2, nil)
	f.Hess(h, []float64{0, 0})
	if h.At(0, 0) != 1 || h.At(1, 1) != -1 {
		t.Errorf("Hessian at the saddle %v", h)
	}
}
