package optim

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
)

// TestTheorem87 checks the oracle of seed 001 §8: on the m-strongly convex,
// L-smooth quadratic, GD with step t ≤ 2/(m+L) satisfies
// f(x_k) − f* ≤ γ^k (L/2)‖x0 − x*‖² at every k, with γ = 1 − 2tmL/(m+L).
// Checked at t = 1/L (the case) and t = 2/(m+L) (γ = ((κ−1)/(κ+1))²),
// for several condition numbers and starts.
func TestTheorem87(t *testing.T) {
	for _, kappa := range []float64{1, 2, 10, 100, 1000} {
		for _, frac := range []float64{0.5, 1} { // t = frac·2/(m+L) or 1/L
			p := NewProblem("quadratic", kappa)
			for _, tt := range []struct {
				name string
				t    float64
			}{
				{"1/L", 1 / p.L},
				{"2/(m+L)·frac", frac * 2 / (p.M + p.L)},
			} {
				gamma, ok := StronglyConvexRate(p.M, p.L, tt.t)
				if !ok {
					t.Fatalf("κ=%g t=%s: rate refused", kappa, tt.name)
				}
				for _, x0 := range [][]float64{{-2.5, 1.5}, {3, 3}, {0.1, -7}} {
					d, err := NewDescent(p, x0, DescentConfig{Method: GD, LR: tt.t})
					if err != nil {
						t.Fatal(err)
					}
					r0 := floats.Dot(x0, x0)
					f0 := p.Func(x0)
					for k := 1; k <= 300; k++ {
						if err := d.Step(); err != nil {
							break // converged to the tolerance 0: f is exactly 0
						}
						bound := math.Pow(gamma, float64(k)) * p.L / 2 * r0
						// Floating-point slack: 1e-12 relative to the bound, and
						// 1e-15·f(x0) absolute for γ = 0 (κ = 1, t = 1/L lands
						// on x* in one step, up to rounding).
						if gap := d.F() - p.FStar; gap > bound*(1+1e-12)+1e-15*f0 {
							t.Fatalf("κ=%g t=%s x0=%v k=%d: f−f* = %.6g > bound %.6g (γ=%.6g)",
								kappa, tt.name, x0, k, gap, bound, gamma)
						}
					}
				}
			}
		}
	}
}

// TestRateAtOptimalStep checks the closed form of γ at t = 2/(m+L) quoted
// in the catalogue: ((L−m)/(L+m))², 0.669421 for κ = 10 (§D item 7).
func TestRateAtOptimalStep(t *testing.T) {
	g, ok := StronglyConvexRate(1, 10, 2.0/11)
	if !ok || math.Abs(g-0.669421) > 1e-6 || math.Abs(g-math.Pow(9.0/11, 2)) > 1e-15 {
		t.Errorf("γ(κ=10, t=2/11) = %v, %v", g, ok)
	}
	if _, ok := StronglyConvexRate(1, 10, 0.2); ok {
		t.Error("t = 0.2 > 2/(m+L) accepted")
	}
}

// TestDivergenceBeyondTwoOverL: GD on a quadratic diverges for t > 2/L
// (the catalogue's "t = 2.1/L, ‖x‖ = 117 after 50 steps").
func TestDivergenceBeyondTwoOverL(t *testing.T) {
	p := NewProblem("quadratic", 10)
	d, _ := NewDescent(p, []float64{-2.5, 1.5}, DescentConfig{Method: GD, LR: 2.1 / p.L})
	var err error
	for k := 0; k < 10000 && err == nil; k++ {
		err = d.Step()
	}
	if !errors.Is(err, algo.ErrDiverged) {
		t.Fatalf("t = 2.1/L: %v", err)
	}
}

// TestGradients compares every analytic gradient with central differences.
func TestGradients(t *testing.T) {
	for _, name := range classicProblems {
		p := NewProblem(name, 7)
		for _, x := range [][]float64{{0.3, -0.7}, {1.1, 0.4}, {-1.5, 2.2}, p.Start} {
			want := make([]float64, 2)
			fd.Gradient(want, p.Func, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			got := make([]float64, 2)
			p.Grad(got, x)
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-5*math.Max(1, math.Abs(want[i])) {
					t.Errorf("%s at %v: ∂%d = %v, finite difference %v", name, x, i, got[i], want[i])
				}
			}
		}
	}
}

// TestMinima checks f = f* and ∇f = 0 at every listed minimiser.
func TestMinima(t *testing.T) {
	g := make([]float64, 2)
	for _, name := range classicProblems {
		p := NewProblem(name, 7)
		for _, m := range p.Minima {
			p.Grad(g, m)
			if f := p.Func(m); math.Abs(f-p.FStar) > 1e-12 || floats.Norm(g, 2) > 1e-6 {
				t.Errorf("%s at %v: f = %v, ‖∇f‖ = %v", name, m, f, floats.Norm(g, 2))
			}
		}
	}
}

// TestMethodsConverge runs every method on every function at the sim's
// default step sizes and checks it ends at a listed minimiser.
func TestMethodsConverge(t *testing.T) {
	lr := map[Function]float64{"quadratic": 0.1, "rosenbrock": 0.001, "beale": 0.01, "himmelblau": 0.01}
	for _, name := range classicProblems {
		p := NewProblem(name, 10)
		for _, m := range methods {
			step := lr[name]
			if m == Adam {
				step = 0.05
			}
			if name == "rosenbrock" && m == GD {
				continue // converges, but needs ~10⁵ steps: not a unit test
			}
			d, err := NewDescent(p, p.Start, DescentConfig{Method: m, LR: step, Beta: 0.9, Tol: 1e-8})
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 50000; k++ {
				if err = d.Step(); err != nil {
					break
				}
			}
			if !errors.Is(err, algo.ErrConverged) {
				t.Errorf("%s/%s: %v after %d steps, f = %v", name, m, err, d.Iter(), d.F())
				continue
			}
			near := false
			for _, min := range p.Minima {
				near = near || math.Hypot(d.X()[0]-min[0], d.X()[1]-min[1]) < 1e-5
			}
			if !near {
				t.Errorf("%s/%s: ended at %v, not a minimiser", name, m, d.X())
			}
		}
	}
}

func TestDescentValidation(t *testing.T) {
	p := NewProblem("quadratic", 10)
	tests := []struct {
		cfg  DescentConfig
		x0   []float64
		want string
	}{
		{DescentConfig{Method: "sgd", LR: 0.1}, []float64{0, 0}, "method"},
		{DescentConfig{Method: GD, LR: 0}, []float64{0, 0}, "lr"},
		{DescentConfig{Method: GD, LR: math.Inf(1)}, []float64{0, 0}, "lr"},
		{DescentConfig{Method: GD, LR: 0.1, Beta: 1}, []float64{0, 0}, "beta"},
		{DescentConfig{Method: GD, LR: 0.1, Tol: -1}, []float64{0, 0}, "tol"},
		{DescentConfig{Method: GD, LR: 0.1}, []float64{math.NaN(), 0}, "x0"},
	}
	for _, tt := range tests {
		_, err := NewDescent(p, tt.x0, tt.cfg)
		var pe *algo.ParamError
		if !errors.As(err, &pe) || pe.Name != tt.want || !strings.Contains(err.Error(), "must be") {
			t.Errorf("%+v: %v, want a ParamError naming %s", tt.cfg, err, tt.want)
		}
	}
}

func BenchmarkDescentStep(b *testing.B) {
	for _, m := range methods {
		b.Run(m.String(), func(b *testing.B) {
			p := NewProblem("rosenbrock", 1)
			d, _ := NewDescent(p, p.Start, DescentConfig{Method: m, LR: 1e-4, Beta: 0.9})
			b.ReportAllocs()
			for b.Loop() {
				_ = d.Step()
			}
		})
	}
}
