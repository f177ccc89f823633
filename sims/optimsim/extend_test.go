package optimsim

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/sims/simtest"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestFiniteSumProblemsKnowMAndL: the shaped data make the Hessian of lsq
// exactly A (eigenvalues 1 and κ) and the logistic bound L = κ/4 + λ; the
// listed minimiser is stationary.
func TestFiniteSumProblemsKnowMAndL(t *testing.T) {
	for _, kappa := range []float64{1, 10, 300} {
		p, err := lsqProblem(3, 200, kappa, 1)
		if err != nil {
			t.Fatal(err)
		}
		h := mat.NewSymDense(2, nil)
		p.Objective.(optim.TwiceDifferentiable).Hess(h, nil)
		var eig mat.EigenSym
		eig.Factorize(h, false)
		ev := eig.Values(nil)
		if math.Abs(ev[0]-1) > 1e-9 || math.Abs(ev[1]-kappa) > 1e-9*kappa {
			t.Errorf("κ=%g: lsq Hessian spectrum %v", kappa, ev)
		}
		q, err := logisticProblem(3, 200, kappa, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(q.L-(kappa/4+0.1)) > 1e-9*kappa || q.M != 0.1 {
			t.Errorf("κ=%g: logistic m = %v, L = %v", kappa, q.M, q.L)
		}
		for _, pr := range []*optim.Problem{p, q} {
			g := make([]float64, 2)
			pr.Grad(g, pr.Minima[0])
			if floats.Norm(g, 2) > 1e-10 || math.Abs(pr.Func(pr.Minima[0])-pr.FStar) > 1e-15 {
				t.Errorf("%s κ=%g: ‖∇f(x*)‖ = %v", pr.Name, kappa, floats.Norm(g, 2))
			}
		}
	}
}

// TestTheoremOverlaysHold: at the default step 1/L every drawn bound lies
// above the curve it bounds, at every recorded step: Theorems 8.5 and 8.7
// on the quadratic, lsq and logistic, Theorem 8.8 on wavy. Logistic has
// n = 20 terms, not 200: the theorems hold for any n (its L = κ/4 + λ by
// construction), and each build draws the landscape at n terms a point
// (three quarters of the test's time at 200).
func TestTheoremOverlaysHold(t *testing.T) {
	for _, tt := range []struct {
		fn     string
		n      string
		curve  string
		bounds []string
	}{
		{"quadratic", "200", "f−f*", []string{"Thm 8.7 bound", "Thm 8.5 bound"}},
		{fnLSQ.String(), "200", "f−f*", []string{"Thm 8.7 bound", "Thm 8.5 bound"}},
		{fnLogistic.String(), "20", "f−f*", []string{"Thm 8.7 bound", "Thm 8.5 bound"}},
		{fnWavy.String(), "200", "min ‖∇f‖", []string{"Thm 8.8 bound"}},
	} {
		for _, x0 := range []string{"-2.5,1.5", "2.9,-1.9", "0.4,1"} {
			s := simtest.Build(t, GD, map[string]string{"fn": tt.fn, "n": tt.n, "x0": x0}, 0, nil)
			simtest.RunErr(s, 600)
			f := s.Frame()
			c, ok := f.Series(tt.curve)
			if !ok || len(c.Y) < 2 {
				t.Fatalf("%s: no %q series", tt.fn, tt.curve)
			}
			for _, name := range tt.bounds {
				b, ok := f.Series(name)
				if !ok || len(b.Y) != len(c.Y) {
					t.Fatalf("%s x0=%s: %q missing or of another length", tt.fn, x0, name)
				}
				for k := range c.Y {
					if c.Y[k] > b.Y[k]*(1+1e-9)+1e-14 {
						t.Fatalf("%s x0=%s step %d: %s %v above %s %v", tt.fn, x0, k, tt.curve, c.Y[k], name, b.Y[k])
					}
				}
			}
		}
	}
}

// TestSGDNoiseFloorPicture: on lsq the constant-step run settles about the
// drawn noise floor (its late mean within 30%: a thinned, autocorrelated
// sample; the engine's own test pins the floor to 4 standard errors) and
// the 1/k run goes well below it.
func TestSGDNoiseFloorPicture(t *testing.T) {
	s := simtest.Build(t, GD, map[string]string{"fn": fnLSQ.String(), "method": methodSGD.String()}, 0, nil)
	if err := simtest.RunErr(s, 40000); err != nil {
		t.Fatal(err)
	}
	f := s.Frame()
	main, ok1 := f.Series("sgd, constant")
	comp, ok2 := f.Series("1/k")
	floor, ok3 := f.Series("noise floor")
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("series %v %v %v", ok1, ok2, ok3)
	}
	n := len(main.Y)
	late := floats.Sum(main.Y[n/2:]) / float64(n-n/2)
	fl := floor.Y[0]
	if late < 0.7*fl || late > 1.3*fl {
		t.Errorf("constant steps: late mean gap %v, floor %v", late, fl)
	}
	if end := floats.Sum(comp.Y[3*n/4:]) / float64(n-3*n/4); end > fl/3 {
		t.Errorf("1/k steps: late mean gap %v, not well below the floor %v", end, fl)
	}
	if text := strings.Join(f.Text, " "); !strings.Contains(text, "stalls near") || !strings.Contains(text, "m = 1, L = 10") {
		t.Errorf("notes: %q", text)
	}
	if r := s.Result(); r["noise_floor"] != fl || r["companion_schedule"] != "1/k" {
		t.Errorf("result %v", r)
	}
}

// TestNewtonInGD: Newton lands on the quadratic's minimiser in one step and
// then reports convergence.
func TestNewtonInGD(t *testing.T) {
	s := simtest.Build(t, GD, map[string]string{"method": methodNewton.String(), "kappa": "500"}, 0, nil)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if gap, _ := s.Frame().Metric("gap"); gap > 1e-20 {
		t.Errorf("gap after one Newton step: %v", gap)
	}
	if err := s.Step(); !errors.Is(err, algo.ErrConverged) {
		t.Errorf("second step: %v", err)
	}
	if text := strings.Join(s.Frame().Text, " "); !strings.Contains(text, "Newton") {
		t.Errorf("notes %q", text)
	}
}

// TestGDParameterErrors: SGD needs a finite sum and a batch ≤ n.
func TestGDParameterErrors(t *testing.T) {
	for _, tt := range []struct {
		set  map[string]string
		name string
	}{
		{map[string]string{"method": methodSGD.String()}, "method"},
		{map[string]string{"fn": fnLSQ.String(), "method": methodSGD.String(), "batch": "500"}, "batch"},
	} {
		_, err := simtest.BuildErr(GD, tt.set, 1, nil)
		var pe *algo.ParamError
		if !errors.As(err, &pe) || pe.Name != tt.name {
			t.Errorf("%v: %v, want a ParamError naming %s", tt.set, err, tt.name)
		}
	}
}

// TestDefaultStepIsOneOverL: the default step of every problem with a
// known L is 1/L (0.1/L for SGD), so the theorems' hypotheses hold.
// Logistic's L = κ/4 + λ does not depend on n: 20 terms keep its build
// (the landscape, n terms a point) cheap.
func TestDefaultStepIsOneOverL(t *testing.T) {
	for _, tt := range []struct {
		set map[string]string
		lr  float64
	}{
		{map[string]string{"fn": fnLSQ.String(), "kappa": "20"}, 1.0 / 20},
		{map[string]string{"fn": fnLogistic.String(), "n": "20", "kappa": "10", "lambda": "0.5"}, 1 / 3.0},
		{map[string]string{"fn": fnWavy.String()}, 1.0 / 9},
		{map[string]string{"fn": fnLSQ.String(), "method": methodSGD.String()}, 0.01},
	} {
		s := simtest.Build(t, GD, tt.set, 0, nil).(*gdSim)
		if math.Abs(s.lr-tt.lr) > 1e-6*tt.lr {
			t.Errorf("%v: lr %v, want %v", tt.set, s.lr, tt.lr)
		}
	}
}

// BenchmarkFrame: a Frame of gd after 200 steps, default and SGD.
func BenchmarkFrame(b *testing.B) {
	for _, set := range []map[string]string{nil, {"fn": fnLSQ.String(), "method": methodSGD.String()}, {"fn": fnWavy.String()}} {
		b.Run(set["fn"]+set["method"], func(b *testing.B) {
			s := simtest.Build(b, GD, set, 1, nil)
			simtest.RunErr(s, 200)
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Frame()
			}
		})
	}
}
