package optim

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestTheorem85RankDeficient (catalogue [A13], "Checks"): on the convex,
// rank-deficient quadratic diag(4, 0.5, 0), x0 = (3, −2, 5), whose nearest
// minimiser is x* = (0, 0, 5), GD with t = 1/L and t = 0.5/L satisfies
// f(x_k) ≤ ‖x0 − x*‖²/(2tk) for k ≤ 200; the largest ratio of f to the
// bound is 0.053 and 0.103 (the catalogue's values, to ±0.001).
func TestTheorem85RankDeficient(t *testing.T) {
	q := DiagQuadratic{A: []float64{4, 0.5, 0}}
	L := 4.0
	x0 := []float64{3, -2, 5}
	r0 := 13.0 // ‖(3, −2, 0)‖²
	for _, tt := range []struct{ frac, ratio float64 }{{1, 0.053}, {0.5, 0.103}} {
		step := tt.frac / L
		d, _ := NewDescent(q, x0, DescentConfig{Method: GD, LR: step})
		worst := 0.0
		for k := 1; k <= 200; k++ {
			if err := d.Step(); err != nil {
				t.Fatal(err)
			}
			bound, ok := ConvexBound(L, step, r0, k)
			if !ok {
				t.Fatal("bound refused")
			}
			if d.F() > bound {
				t.Fatalf("t=%g/L k=%d: f = %v > %v", tt.frac, k, d.F(), bound)
			}
			worst = math.Max(worst, d.F()/bound)
		}
		if math.Abs(worst-tt.ratio) > 0.001 {
			t.Errorf("t=%g/L: largest f/bound %v, catalogue %v", tt.frac, worst, tt.ratio)
		}
	}
	if _, ok := ConvexBound(4, 0.3, 1, 1); ok {
		t.Error("t > 1/L accepted")
	}
}

// TestTheorem87Diagonal (catalogue [A13]): on diag(1, 3, 10) with
// t = 2/(m+L) = 2/11, f(x_k) ≤ γ^k (L/2)‖x0 − x*‖², γ = (9/11)², for
// k ≤ 100; and every step contracts the distance to x* by at least
// (L − m)/(L + m) = √γ, with equality in the limit (the rate is exact).
func TestTheorem87Diagonal(t *testing.T) {
	q := DiagQuadratic{A: []float64{1, 3, 10}}
	m, L := 1.0, 10.0
	step := 2 / (m + L)
	gamma, ok := StronglyConvexRate(m, L, step)
	if !ok || math.Abs(gamma-81.0/121) > 1e-15 {
		t.Fatalf("γ = %v", gamma)
	}
	x0 := []float64{1, -2, 0.5}
	r0 := floats.Dot(x0, x0)
	d, _ := NewDescent(q, x0, DescentConfig{Method: GD, LR: step})
	rho := (L - m) / (L + m)
	prev := math.Sqrt(r0)
	var ratio float64
	for k := 1; k <= 100; k++ {
		if err := d.Step(); err != nil {
			t.Fatal(err)
		}
		if f := d.F(); f > math.Pow(gamma, float64(k))*L/2*r0*(1+1e-12) {
			t.Fatalf("k=%d: f = %v above the bound", k, f)
		}
		dist := floats.Norm(d.X(), 2)
		ratio = dist / prev
		if ratio > rho*(1+1e-12) {
			t.Fatalf("k=%d: distance ratio %v > %v", k, ratio, rho)
		}
		prev = dist
	}
	if math.Abs(ratio-rho) > 1e-9 {
		t.Errorf("asymptotic contraction %v, want (L−m)/(L+m) = %v", ratio, rho)
	}
}

// TestContractionAtOneOverL: GD on the rotated quadratic with t = 1/L
// contracts ‖x − x*‖ by exactly 1 − m/L per step asymptotically (the slow
// eigendirection), below Theorem 8.7's √γ.
func TestContractionAtOneOverL(t *testing.T) {
	for _, kappa := range []float64{4, 10, 50} {
		p := NewProblem("quadratic", kappa)
		d, _ := NewDescent(p, p.Start, DescentConfig{Method: GD, LR: 1 / p.L})
		prev := floats.Norm(p.Start, 2)
		var ratio float64
		for k := 0; k < 200; k++ {
			d.Step()
			dist := floats.Norm(d.X(), 2)
			ratio, prev = dist/prev, dist
		}
		gamma, _ := StronglyConvexRate(p.M, p.L, 1/p.L)
		if want := 1 - p.M/p.L; math.Abs(ratio-want) > 1e-9 || ratio > math.Sqrt(gamma) {
			t.Errorf("κ=%g: contraction %v, want 1 − m/L = %v ≤ √γ = %v", kappa, ratio, want, math.Sqrt(gamma))
		}
	}
}

// TestTheorem88Wavy: on the non-convex f = Σ ½x² + 4 sin²x (L = 9, f* = 0)
// GD with t = 1/L satisfies min_{i≤k} ‖∇f(x_i)‖ ≤ √(2(f(x0) − f*)/(t(k+1)))
// at every k, from a grid of starts, and the descent lemma (★) every step.
// Some starts end in a local minimum (f = 4.3635 per coordinate): the
// theorem promises stationarity only.
func TestTheorem88Wavy(t *testing.T) {
	p := NewProblem("wavy", 0)
	step := 1 / p.L
	local := 0
	for _, a := range []float64{-4, -2.5, -1, 0.3, 1.7, 3.9} {
		for _, b := range []float64{-3, -0.5, 1.5, 2.8} {
			x0 := []float64{a, b}
			d, _ := NewDescent(p, x0, DescentConfig{Method: GD, LR: step})
			gap0 := p.Func(x0) - p.FStar
			best := d.GradNorm()
			for k := 1; k <= 300; k++ {
				f0, g0 := d.F(), d.GradNorm()
				if err := d.Step(); err != nil {
					break
				}
				if d.F() > DescentLemma(f0, step, g0*g0)+1e-12 {
					t.Fatalf("x0=%v k=%d: descent lemma fails", x0, k)
				}
				best = math.Min(best, d.GradNorm())
				bound, ok := NonConvexBound(p.L, step, gap0, k)
				if !ok || best > bound*(1+1e-12) {
					t.Fatalf("x0=%v k=%d: min ‖∇f‖ = %v > %v", x0, k, best, bound)
				}
			}
			if d.F() > 4 {
				local++
			}
		}
	}
	if local == 0 {
		t.Error("no start ended in a local minimum: the test function is not showing non-convexity")
	}
	if f := (Wavy{A: 4}).Func([]float64{2.7607, 0}); math.Abs(f-4.3635) > 1e-3 {
		t.Errorf("f(2.7607, 0) = %v, catalogue 4.3635", f)
	}
}

// TestWavyCurvature: ‖∇²f‖ ≤ L = 1 + 2a everywhere on a fine grid, with
// equality at 0.
func TestWavyCurvature(t *testing.T) {
	w := Wavy{A: WavyA}
	h := mat.NewSymDense(2, nil)
	worst := 0.0
	for x := -6.0; x <= 6; x += 0.01 {
		w.Hess(h, []float64{x, -x / 2})
		worst = math.Max(worst, math.Max(math.Abs(h.At(0, 0)), math.Abs(h.At(1, 1))))
	}
	if worst > 1+2*WavyA+1e-12 || worst < 1+2*WavyA-1e-6 {
		t.Errorf("max |f″| = %v, L = %v", worst, 1+2*WavyA)
	}
}
