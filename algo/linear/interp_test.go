package linear

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/dataset"
)

// lagrange evaluates the Lagrange interpolating polynomial through (x_i,
// y_i) at t by its product formula: an oracle independent of any basis or
// factorisation.
func lagrange(x, y []float64, t float64) float64 {
	s := 0.0
	for i := range x {
		l := 1.0
		for j := range x {
			if j != i {
				l *= (t - x[j]) / (x[i] - x[j])
			}
		}
		s += y[i] * l
	}
	return s
}

// curvePoints draws a preset of seed 1.
func curvePoints(t *testing.T, truth dataset.Curve, layout dataset.Layout, n int, noise float64) (x, y []float64) {
	t.Helper()
	l, err := dataset.OnCurve(rand.New(rand.NewPCG(1, 2)), truth, layout, n, noise)
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.X {
		x = append(x, l.X[i][0])
	}
	return x, l.Y
}

func runAll(t *testing.T, e *Interp) {
	t.Helper()
	for {
		err := e.Step()
		if errors.Is(err, algo.ErrConverged) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// condSane is the bound on cond₂(Φ) under which the tests hold the
// interpolant to 1e-9: a backward-stable solve leaves a residual of about
// ε·cond·‖y‖ ≈ 2e-10·‖y‖ at cond = 1e6.
const condSane = 1e6

// TestInterpExact: Theorem 3.2 at every k: while cond(Φ) ≤ 1e6 the
// degree-(k−1) fit reproduces the k targets to 1e-9 relative, and it equals
// the Lagrange polynomial through them at 101 test points (to 1e-9 of the
// largest |y|, times cond/1e3 when that is larger: the coefficients carry
// the conditioning).
func TestInterpExact(t *testing.T) {
	cases := []struct {
		basis   Basis
		truth   dataset.Curve
		layout  dataset.Layout
		n       int
		checked int // at least this many k have cond ≤ condSane and are checked: the test is not vacuous
	}{
		{Chebyshev, "runge", "random", 20, 8},
		{Chebyshev, "sin", "equispaced", 30, 15},
		{Chebyshev, "runge", "chebyshev", 40, 30},
		{Legendre, "sin", "equispaced", 25, 15},
		{Monomial, "runge", "equispaced", 14, 10},
	}
	for _, c := range cases {
		x, y := curvePoints(t, c.truth, c.layout, c.n, 0.05)
		e, err := NewInterp(InterpConfig{X: x, Y: y, Basis: c.basis, Degree: -1, Lambda: 1e-3})
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for {
			k := e.K()
			if !e.Interpolates() {
				t.Fatalf("%s: k = %d with p = %d", c.basis, k, e.P())
			}
			if e.Cond() <= condSane {
				checked++
				ymax := 0.0
				for i := 0; i < k; i++ {
					ymax = math.Max(ymax, math.Abs(y[i]))
				}
				for i := 0; i < k; i++ {
					if r := math.Abs(e.InterpAt(x[i]) - y[i]); r > 1e-9*ymax {
						t.Fatalf("%s %s k=%d: |p(x_%d) − y| = %.3g (cond %.3g)", c.basis, c.layout, k, i, r, e.Cond())
					}
				}
				tol := 1e-9 * ymax * math.Max(1, e.Cond()/1e3)
				for j := 0; j <= 100; j++ {
					tt := -1 + 2*float64(j)/100
					want := lagrange(x[:k], y[:k], tt)
					if d := math.Abs(e.InterpAt(tt) - want); d > tol*math.Max(1, math.Abs(want)) {
						t.Fatalf("%s %s k=%d: p(%g) = %.12g, Lagrange %.12g", c.basis, c.layout, k, tt, e.InterpAt(tt), want)
					}
				}
				if tr, _ := e.TrainMSE(); tr > 1e-18*ymax*ymax {
					t.Errorf("%s k=%d: train MSE of the interpolant %.3g", c.basis, k, tr)
				}
			}
			if err := e.Step(); errors.Is(err, algo.ErrConverged) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if checked < c.checked {
			t.Errorf("%s %s: only %d of %d steps had cond(Φ) ≤ %g", c.basis, c.layout, checked, c.n, condSane)
		}
	}
}

// TestInterpChebyshevNodes: at the n Chebyshev nodes Φ has orthogonal
// columns, ΦᵀΦ = diag(n, n/2, …, n/2), so cond₂(Φ) = √2 exactly (the
// reason for the default basis); the Vandermonde matrix on the same nodes
// is ill-conditioned.
func TestInterpChebyshevNodes(t *testing.T) {
	x, y := curvePoints(t, "runge", "chebyshev", 40, 0)
	cheb, err := NewInterp(InterpConfig{X: x, Y: y, Basis: Chebyshev, Degree: -1, Lambda: 1})
	if err != nil {
		t.Fatal(err)
	}
	runAll(t, cheb)
	algotest.Near(t, "cond(Φ) at the Chebyshev nodes", cheb.Cond(), math.Sqrt2, 1e-10)
	mono, _ := NewInterp(InterpConfig{X: x, Y: y, Basis: Monomial, Degree: -1, Lambda: 1})
	runAll(t, mono)
	if mono.Cond() < 1e8 {
		t.Errorf("Vandermonde cond at 40 Chebyshev nodes = %.3g, want ≫ 1", mono.Cond())
	}
	// Runge's function: the Chebyshev-node interpolant converges.
	worst := 0.0
	for j := 0; j <= 200; j++ {
		tt := -1 + 2*float64(j)/200
		worst = math.Max(worst, math.Abs(cheb.InterpAt(tt)-dataset.Curves["runge"](tt)))
	}
	if worst > 1e-2 {
		t.Errorf("max error of the Chebyshev-node interpolant of Runge's function, n = 40: %.3g", worst)
	}
}

// TestInterpRidgeLimits: ridge equals the Cholesky normal-equation
// solution of LeastSquares (Definition 3.4, bias unpenalised) on the
// same features — the QR of the augmented data of Remark 3.6 against an
// independent solver — to 1e-8 relative; the ridge gradient is zero; and
// ridge tends to the interpolant as λ → 0 (the gap shrinks with λ).
func TestInterpRidgeLimits(t *testing.T) {
	x, y := curvePoints(t, "sin", "random", 12, 0.1)
	for _, lam := range []float64{1e-4, 1e-2, 1} {
		e, err := NewInterp(InterpConfig{X: x, Y: y, Basis: Chebyshev, Degree: 6, Lambda: lam})
		if err != nil {
			t.Fatal(err)
		}
		runAll(t, e)
		p := e.P()
		rows := make([][]float64, len(x))
		phi := make([]float64, p)
		for i, xi := range x {
			Chebyshev.Fill(phi, xi)
			rows[i] = append([]float64(nil), phi[1:]...)
		}
		d, err := NewDesign(rows, true)
		if err != nil {
			t.Fatal(err)
		}
		ls, err := NewLeastSquares(d, y, lam)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := ls.Solve()
		if err != nil {
			t.Fatal(err)
		}
		r := e.RidgeCoef()
		scale := 0.0
		for _, c := range r {
			scale = math.Max(scale, math.Abs(c))
		}
		algotest.Near(t, "ridge θ_0 (bias)", r[0], sol.Theta[p-1], 1e-8*scale)
		for j := 1; j < p; j++ {
			algotest.Near(t, "ridge θ_j", r[j], sol.Theta[j-1], 1e-8*scale)
		}
		// Fermat (Theorem 3.3): the gradient of the ridge objective is 0.
		theta := append(append([]float64(nil), r[1:]...), r[0])
		g := make([]float64, p)
		ls.Grad(g, theta)
		for _, gj := range g {
			algotest.Near(t, "∇f_ridge", gj, 0, 1e-9*math.Max(1, scale))
		}
	}
	// λ → 0: ridge → the interpolant (10 equispaced points, degree 9,
	// cond(Φ) ≈ 2e3): the largest gap on [−1, 1], relative to the
	// interpolant's largest value, falls with λ and is below 1e-6 at 1e-10.
	x, y = curvePoints(t, "sin", "equispaced", 10, 0.1)
	prev := math.Inf(1)
	for _, lam := range []float64{1e-2, 1e-4, 1e-6, 1e-8, 1e-10} {
		e, _ := NewInterp(InterpConfig{X: x, Y: y, Basis: Chebyshev, Degree: -1, Lambda: lam})
		runAll(t, e)
		gap, top := 0.0, 0.0
		for j := 0; j <= 100; j++ {
			tt := -1 + 2*float64(j)/100
			gap = math.Max(gap, math.Abs(e.RidgeAt(tt)-e.InterpAt(tt)))
			top = math.Max(top, math.Abs(e.InterpAt(tt)))
		}
		gap /= top
		if gap >= prev {
			t.Errorf("λ = %g: max |ridge − interpolant| = %.3g, not below %.3g", lam, gap, prev)
		}
		prev = gap
		if lam == 1e-10 && gap > 1e-6 {
			t.Errorf("λ = 1e-10: ridge is %.3g from the interpolant", gap)
		}
	}
}

// TestInterpOverfits: on Runge's function with random points the
// interpolant's test error dwarfs ridge's (the picture of the sim).
func TestInterpOverfits(t *testing.T) {
	x, y := curvePoints(t, "runge", "random", 16, 0.05)
	tx, ty := curvePoints(t, "runge", "random", 200, 0)
	e, err := NewInterp(InterpConfig{X: x, Y: y, TestX: tx, TestY: ty, Basis: Chebyshev, Degree: -1, Lambda: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	runAll(t, e)
	ti, tr := e.TestMSE()
	if !(ti > 10*tr) {
		t.Errorf("test MSE interpolant %.3g, ridge %.3g", ti, tr)
	}
	if _, r := e.TrainMSE(); r <= 0 {
		t.Errorf("ridge train MSE %v, want > 0", r)
	}
}

// TestInterpBadInput: duplicate inputs are refused with a message naming
// them and Theorem 3.2; bad parameters name themselves.
func TestInterpBadInput(t *testing.T) {
	_, err := NewInterp(InterpConfig{X: []float64{0.1, -0.5, 0.1}, Y: []float64{1, 2, 3}, Basis: Chebyshev, Degree: -1, Lambda: 1})
	if err == nil || !strings.Contains(err.Error(), "points 1 and 3") || !strings.Contains(err.Error(), "Theorem 3.2") {
		t.Errorf("duplicate x: %v", err)
	}
	ok := InterpConfig{X: []float64{0, 0.5}, Y: []float64{1, 2}, Basis: Chebyshev, Degree: -1, Lambda: 1}
	for _, c := range []struct {
		name string
		edit func(*InterpConfig)
	}{
		{"basis", func(c *InterpConfig) { c.Basis = "fourier" }},
		{"degree", func(c *InterpConfig) { c.Degree = -2 }},
		{"degree", func(c *InterpConfig) { c.Degree = MaxInterpDegree + 1 }},
		{"lambda", func(c *InterpConfig) { c.Lambda = 0 }},
		{"lambda", func(c *InterpConfig) { c.Lambda = math.NaN() }},
		{"x", func(c *InterpConfig) { c.X = []float64{0, 1.5} }},
		{"n", func(c *InterpConfig) { c.X, c.Y = nil, nil }},
	} {
		cfg := ok
		c.edit(&cfg)
		_, err := NewInterp(cfg)
		algotest.WantParam(t, err, c.name)
	}
}

// BenchmarkInterpStep: one refit (SVD of the k×k Φ and QR of the augmented
// data) at k = 30 points.
func BenchmarkInterpStep(b *testing.B) {
	l, _ := dataset.OnCurve(rand.New(rand.NewPCG(1, 2)), "runge", "random", 30, 0.05)
	x := make([]float64, 30)
	for i := range x {
		x[i] = l.X[i][0]
	}
	e, err := NewInterp(InterpConfig{X: x, Y: l.Y, Basis: Chebyshev, Degree: -1, Lambda: 1e-3})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := e.fit(30); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDuplicateTolMeansSingular measures DuplicateTol's doc comment: two
// inputs a hair further apart than DuplicateTol (1.01e-12, and 2e-12) are
// accepted, and leave Φ singular or nearly so in double precision — cond(Φ)
// above 10¹² and the interpolant off its own targets by a training MSE of
// at least 10⁻⁹ (well-separated inputs leave rounding), in every basis at 2 to
// 16 points; at 16 points and 1.01e-12 the numerical rank is 15. Inputs
// DuplicateTol apart are refused.
func TestDuplicateTolMeansSingular(t *testing.T) {
	for _, gap := range []float64{1.01e-12, 2e-12} {
		for _, k := range []int{2, 3, 4, 8, 16} {
			for _, b := range []Basis{Chebyshev, Legendre, Monomial} {
				x, y := make([]float64, k), make([]float64, k)
				for i := range x {
					x[i], y[i] = -0.9+1.8*float64(i)/float64(k), float64(i%2)
				}
				x[k-1] = x[k-2] + gap
				e, err := NewInterp(InterpConfig{X: x, Y: y, Basis: b, Degree: -1, Lambda: 1e-3})
				if err != nil {
					t.Fatalf("gap %g, %d points, %s: %v", gap, k, b, err)
				}
				for e.Step() == nil {
				}
				mse, _ := e.TrainMSE()
				if e.Cond() <= 1e12 || mse < 1e-9 || k == 16 && gap < 2e-12 && e.Rank() != 15 {
					t.Errorf("gap %g, %d points, %s: cond %.3g, training MSE %.2g, rank %d", gap, k, b, e.Cond(), mse, e.Rank())
				}
			}
		}
	}
	if _, err := NewInterp(InterpConfig{X: []float64{0.25, 0.25 + DuplicateTol}, Y: []float64{0, 1}, Basis: Chebyshev, Degree: -1, Lambda: 1}); err == nil {
		t.Error("inputs DuplicateTol apart accepted")
	}
}
