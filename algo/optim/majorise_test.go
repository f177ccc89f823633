package optim

import (
	"errors"
	"math"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// TestQuadModelArgmin: x⁺ = x − t f′(x) is the minimiser of g in closed
// form: g′(x⁺) = 0, g″ = 1/t > 0, and g(x⁺) is the descent lemma's bound.
func TestQuadModelArgmin(t *testing.T) {
	for _, q := range []QuadModel{{X: 3, F: 5, D: 2, T: 0.1}, {X: -1, F: 0.3, D: -4, T: 1}, {X: 0.5, F: 2, D: 0, T: 7}} {
		xp := q.Argmin()
		algotest.Near(t, "x⁺", xp, q.X-q.T*q.D, 0)
		h := 1e-5
		algotest.Near(t, "g′(x⁺)", (q.At(xp+h)-q.At(xp-h))/(2*h), 0, 1e-8)
		for _, dy := range []float64{-1, -1e-3, 1e-3, 2} {
			if q.At(xp+dy) <= q.At(xp) {
				t.Errorf("%+v: g(x⁺%+g) = %v ≤ g(x⁺) = %v", q, dy, q.At(xp+dy), q.At(xp))
			}
		}
		algotest.Near(t, "g(x⁺)", q.At(xp), q.Min(), 1e-12)
		algotest.Near(t, "g(x⁺)", q.Min(), q.F-q.T/2*q.D*q.D, 1e-12)
	}
}

// TestScalarDerivatives compares the 1-D problems' (and the scaled Wavy's
// and DiagQuadratic's) gradients and Hessians with finite differences.
func TestScalarDerivatives(t *testing.T) {
	objs := map[string]TwiceDifferentiable{
		"wavy scaled": Wavy{A: 4, Beta: []float64{1, 3, 0.5}},
		"logcosh":     LogCosh{},
		"diag":        DiagQuadratic{A: []float64{4, 0.5, 0}},
	}
	for _, name := range []Scalar{ScalarQuadratic, ScalarLogCosh, ScalarWavy} {
		objs[name.String()] = NewScalarProblem(name, 1.5).Objective.(TwiceDifferentiable)
	}
	for name, f := range objs {
		for _, x := range [][]float64{{0.3, -0.7, 2.9}, {1.1, 0.4, -3.3}, {-20, 8, 0.01}} {
			if name == "quadratic" || name == "wavy" || name == "logcosh" && len(x) == 1 {
				x = x[:1]
			}
			n := len(x)
			want := make([]float64, n)
			fd.Gradient(want, f.Func, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			got := make([]float64, n)
			f.Grad(got, x)
			wh := mat.NewSymDense(n, nil)
			fd.Hessian(wh, f.Func, x, &fd.Settings{Formula: fd.Central, Step: 1e-4})
			gh := mat.NewSymDense(n, nil)
			f.Hess(gh, x)
			for i := range got {
				algotest.Near(t, name+" ∂f", got[i], want[i], 1e-5*math.Max(1, math.Abs(want[i])))
				for j := range got {
					algotest.Near(t, name+" ∂²f", gh.At(i, j), wh.At(i, j), 1e-4*math.Max(1, math.Abs(wh.At(i, j))))
				}
			}
		}
	}
	// log cosh far out: stable, ≈ |x| − log 2.
	algotest.Near(t, "logcosh(800)", LogCosh{}.Func([]float64{800}), 800-math.Ln2, 1e-9)
}

// TestMajorisation (seed 001 §8 L773–L785, Defs 8.3, 8.4): for t ≤ 1/L the
// model g lies above f on a dense grid at every iterate and the descent
// lemma holds at every step; for convex f the tangent lies below f; for
// the non-convex wavy f it rises above f somewhere.
func TestMajorisation(t *testing.T) {
	tests := []struct {
		fn     Scalar
		c, x0  float64
		convex bool
	}{
		{"quadratic", 2, 3, true},
		{"logcosh", 0, 3, true},
		{"logcosh", 0, -4, true},
		{"wavy", 4, 3, false},
		{"wavy", 2, -4, false},
		{"wavy", 0.25, 4, true},
	}
	for _, tt := range tests {
		p := NewScalarProblem(tt.fn, tt.c)
		if p.Convex != tt.convex {
			t.Fatalf("%s c=%g: Convex = %v", tt.fn, tt.c, p.Convex)
		}
		for _, frac := range []float64{1, 0.5, 0.1} {
			m, err := NewMajorise(p, tt.x0, frac/p.L, -6, 6, 1e-12)
			if err != nil {
				t.Fatal(err)
			}
			sawCross := false
			for k := 0; k < 300; k++ {
				if ok, gap, at := m.Majorises(); !ok {
					t.Fatalf("%s c=%g t=%g/L k=%d: g − f = %g < 0 at %g", tt.fn, tt.c, frac, k, gap, at)
				}
				below, _, _ := m.TangentBelow()
				if tt.convex && !below {
					t.Fatalf("%s: convex but the tangent rises above f at k=%d", tt.fn, k)
				}
				sawCross = sawCross || !below
				err := m.Step()
				if errors.Is(err, algo.ErrConverged) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if !m.LemmaHeld() {
					fx, b := m.Lemma()
					t.Fatalf("%s t=%g/L k=%d: f(x⁺) = %v > %v", tt.fn, frac, k, fx, b)
				}
			}
			if !tt.convex && !sawCross {
				t.Errorf("%s c=%g: non-convex yet the tangent never crossed f", tt.fn, tt.c)
			}
			if m.LemmaFailures() != 0 {
				t.Errorf("%s: %d lemma failures", tt.fn, m.LemmaFailures())
			}
		}
	}
}

// TestMajoriseBreaks: with t > 1/L the model fails to majorise f somewhere
// (on the quadratic g − f = (1/t − c)(y − x)²/2 < 0 away from x), and
// beyond 2/L GD diverges on the quadratic.
func TestMajoriseBreaks(t *testing.T) {
	p := NewScalarProblem("quadratic", 2)
	m, _ := NewMajorise(p, 3, 1.5/p.L, -6, 6, 1e-12)
	ok, gap, at := m.Majorises()
	if ok {
		t.Fatal("t = 1.5/L: g majorises the quadratic")
	}
	want := (1/m.t - 2) * (at - 3) * (at - 3) / 2
	algotest.Near(t, "g − f", gap, want, 1e-9)
	// f(x⁺) still falls (t < 2/L) but by less than the lemma's guarantee.
	if err := m.Step(); err != nil {
		t.Fatal(err)
	}
	if m.LemmaHeld() {
		fx, b := m.Lemma()
		t.Errorf("t = 1.5/L: lemma held, %v ≤ %v", fx, b)
	}

	m, _ = NewMajorise(p, 3, 2.1/p.L, -6, 6, 1e-12)
	var err error
	for k := 0; k < 10000 && err == nil; k++ {
		err = m.Step()
	}
	if !errors.Is(err, algo.ErrDiverged) {
		t.Errorf("t = 2.1/L: %v, want divergence", err)
	}
}

// TestWavyLocalMinimum (catalogue [A13]): with a = 4 (L = 9), GD from x0 = 3
// at t = 1/L stops at the local minimum 2.7607 where f = 4.3635, and
// Theorem 8.8's bound holds for min_{i≤k}|f′(x_i)| at every k.
func TestWavyLocalMinimum(t *testing.T) {
	p := NewScalarProblem("wavy", 4)
	m, _ := NewMajorise(p, 3, 1/p.L, -6, 6, 1e-12)
	gap0 := m.FX() - p.FStar
	best := math.Abs(m.Model().D)
	for k := 0; ; k++ {
		b, ok := NonConvexBound(p.L, 1/p.L, gap0, k)
		if !ok || best > b {
			t.Fatalf("k=%d: min|f′| = %v > bound %v", k, best, b)
		}
		err := m.Step()
		if errors.Is(err, algo.ErrConverged) {
			break
		}
		if err != nil || k > 1000 {
			t.Fatalf("k=%d: %v", k, err)
		}
		best = math.Min(best, math.Abs(m.Model().D))
	}
	algotest.Near(t, "x*", m.X(), 2.7607, 5e-5)
	algotest.Near(t, "f(x*)", m.FX(), 4.3635, 5e-5)
}

func TestMajoriseValidation(t *testing.T) {
	p := NewScalarProblem("logcosh", 0)
	_, err := NewMajorise(p, 1, 0, -1, 1, 0)
	algotest.WantParam(t, err, "lr")
	_, err = NewMajorise(p, math.NaN(), 1, -1, 1, 0)
	algotest.WantParam(t, err, "x0")
	_, err = NewMajorise(p, 1, 1, 1, -1, 0)
	algotest.WantParam(t, err, "window")
	_, err = NewMajorise(nil, 1, 1, -1, 1, 0)
	algotest.WantParam(t, err, "fn")
	if NewScalarProblem("quadratic", 0) != nil || NewScalarProblem("nope", 1) != nil {
		t.Error("bad scalar problems accepted")
	}
}

func BenchmarkMajoriseStep(b *testing.B) {
	p := NewScalarProblem("wavy", 4)
	m, _ := NewMajorise(p, 3, 1/p.L, -6, 6, 0)
	b.ReportAllocs()
	for b.Loop() {
		if m.Step() != nil {
			m, _ = NewMajorise(p, 3, 1/p.L, -6, 6, 0)
		}
	}
}
