package robust

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// problem draws Sparse's regression (noise 1) from a seed.
func problem(seed uint64, n, d int) ([]float64, []float64) {
	return Sparse(rand.New(rand.NewPCG(seed, 1)), n, d, 1)
}

func solve(t *testing.T, s *SqrtLasso) {
	t.Helper()
	for range 5000 {
		if s.Step() < 1e-13 {
			return
		}
	}
	t.Fatalf("no convergence at λ = %g", s.Lambda())
}

// TestWorstCaseAttains checks the derived proof of [A34]: at any w the
// perturbation z_j = λ sgn(w_j) r/‖r‖ gives exactly ‖r‖ + λ‖w‖₁, and no
// random feasible Z exceeds it (also at r = 0 and with zero coefficients).
func TestWorstCaseAttains(t *testing.T) {
	x, y := problem(1, 30, 5)
	s, err := NewSqrtLasso(x, 30, 5, y, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	z := make([][]float64, 5)
	for j := range z {
		z[j] = make([]float64, 30)
	}
	for trial := range 50 {
		w := make([]float64, 5)
		for j := range w {
			if trial%3 != 0 || j%2 == 0 {
				w[j] = rng.NormFloat64() * 2
			}
		}
		bound := s.Perturbed(zeros(5, 30), w) + 0.7*floats.Norm(w, 1)
		algotest.Near(t, "worst-case loss", s.Perturbed(s.WorstCase(w), w), bound, 1e-12*bound)
		for range 20 {
			s.RandomFeasible(z, rng)
			if v := s.Perturbed(z, w); v > bound*(1+1e-12) {
				t.Fatalf("random feasible Z gives %g > ‖r‖ + λ‖w‖₁ = %g", v, bound)
			}
		}
	}
	// r = 0: y = Xw exactly; the bound is λ‖w‖₁ and is attained.
	w := []float64{1, -2, 0, 0.5, 0}
	yy := make([]float64, 30)
	for i := range yy {
		for j := range w {
			yy[i] += x[i*5+j] * w[j]
		}
	}
	s0, _ := NewSqrtLasso(x, 30, 5, yy, 0.7)
	algotest.Near(t, "worst case at r = 0", s0.Perturbed(s0.WorstCase(w), w), 0.7*3.5, 1e-12)
}

func zeros(d, n int) [][]float64 {
	z := make([][]float64, d)
	for j := range z {
		z[j] = make([]float64, n)
	}
	return z
}

// TestSqrtLassoOptimality checks each sweep never increases F, the
// solution's subgradient conditions (|x_jᵀr|/‖r‖ ≤ λ at zeros, = λ sgn w_j
// elsewhere), exact zeros for a large λ, w = 0 from λ_max on, and OLS at
// λ = 0.
func TestSqrtLassoOptimality(t *testing.T) {
	const n, d = 60, 8
	x, y := problem(3, n, d)
	s, err := NewSqrtLasso(x, n, d, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	lmax := s.LambdaMax()
	for _, frac := range []float64{1.0001, 0.5, 0.2, 0.05} {
		lam := frac * lmax
		if err := s.SetLambda(lam); err != nil {
			t.Fatal(err)
		}
		prev := s.Objective()
		for range 5000 {
			ch := s.Step()
			if f := s.Objective(); f > prev*(1+1e-14) {
				t.Fatalf("λ = %g: F rose from %g to %g", lam, prev, f)
			} else {
				prev = f
			}
			if ch < 1e-13 {
				break
			}
		}
		r := s.Residual()
		nr := floats.Norm(r, 2)
		zerosSeen := 0
		for j := range d {
			c := make([]float64, n)
			for i := range n {
				c[i] = x[i*d+j]
			}
			g := floats.Dot(c, r) / nr // ∂‖Xw − y‖/∂w_j, r = Xw − y
			if w := s.W()[j]; w == 0 {
				zerosSeen++
				if math.Abs(g) > lam*(1+1e-8) {
					t.Errorf("λ = %g: w_%d = 0 but |x_jᵀr|/‖r‖ = %g > λ", lam, j, math.Abs(g))
				}
			} else {
				algotest.Near(t, "stationarity", g, -lam*math.Copysign(1, w), 1e-7*lmax)
			}
		}
		if frac > 1 && zerosSeen != d {
			t.Errorf("λ > λ_max: %d zeros, want all %d", zerosSeen, d)
		}
		if frac == 0.5 && zerosSeen == 0 {
			t.Errorf("λ = λ_max/2: no exact zeros")
		}
	}
	// λ = 0: ordinary least squares.
	_ = s.SetLambda(0)
	solve(t, s)
	var ols mat.VecDense
	if err := ols.SolveVec(mat.NewDense(n, d, x), mat.NewVecDense(n, y)); err != nil {
		t.Fatal(err)
	}
	for j := range d {
		algotest.Near(t, "OLS coefficient", s.W()[j], ols.AtVec(j), 1e-9)
	}
}

// TestHuberMoreau checks the envelope against brute-force minimisation
// over s (the catalogue's values: t = 0.3 → 0.045, t = 2 → 1.5 where the
// erratum E28 gives 0, t = −3 → 2.5), its continuity and C¹ join at
// |t| = η, and the clipped loss against a brute-force minimum over η.
func TestHuberMoreau(t *testing.T) {
	for _, tt := range []struct{ t, eta, want float64 }{{0.3, 1, 0.045}, {2, 1, 1.5}, {-3, 1, 2.5}} {
		algotest.Near(t, "Huber", Huber(tt.t, tt.eta), tt.want, 1e-15)
	}
	for _, eta := range []float64{0.25, 1, 2.5} {
		for k := -40; k <= 40; k++ {
			tv := float64(k) / 8
			best := math.Inf(1)
			for i := -50000; i <= 50000; i++ {
				sv := float64(i) * 1e-4
				best = math.Min(best, (sv-tv)*(sv-tv)/2+eta*math.Abs(sv))
			}
			algotest.Near(t, "envelope vs brute force", Huber(tv, eta), best, 2e-9) // grid error ≤ h²/8
			sv := SoftThreshold(tv, eta)
			algotest.Near(t, "minimiser", (sv-tv)*(sv-tv)/2+eta*math.Abs(sv), Huber(tv, eta), 1e-15)
		}
		const h = 1e-7
		algotest.Near(t, "continuous at η", Huber(eta+h, eta), Huber(eta-h, eta), 1e-6)
		algotest.Near(t, "slope at η", (Huber(eta+h, eta)-Huber(eta-h, eta))/(2*h), eta, 1e-6)
	}
	for _, l := range []float64{0, 0.3, 1, 4} {
		best := math.Inf(1)
		for i := 0; i <= 1000; i++ {
			e := float64(i) / 1000
			best = math.Min(best, e*l+2*(1-e))
		}
		algotest.Near(t, "clipped", Clipped(l, 2), best, 1e-12)
	}
}

func TestSqrtLassoValidation(t *testing.T) {
	x, y := problem(1, 5, 2)
	_, err := NewSqrtLasso(x, 5, 2, y, -1)
	algotest.WantParam(t, err, "lambda")
	_, err = NewSqrtLasso(x, 5, 0, y, 1)
	algotest.WantParam(t, err, "d")
	_, err = NewSqrtLasso(make([]float64, 10), 5, 2, y, 1)
	algotest.WantParam(t, err, "x")
	x[0] = math.NaN()
	_, err = NewSqrtLasso(x, 5, 2, y, 1)
	algotest.WantParam(t, err, "x")
}
