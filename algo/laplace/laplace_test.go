package laplace

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mathext"
)

func run(t *testing.T, m Model, z0 []float64) *Newton {
	t.Helper()
	n, err := NewNewton(m, z0, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if err := n.Step(); errors.Is(err, algo.ErrConverged) {
			return n
		} else if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("%s from %v: not converged after 100 iterations", m.Name(), z0)
	return nil
}

// TestChiSquareLaplace is the catalogue's oracle for C7: the Laplace
// approximation of χ²(10) is N(8, 16) exactly — from any start, including
// ones where the full Newton step leaves the support (z0 = 20, 50) and
// backtracking is needed. From z0 = 1 no step is damped and the iterates
// follow the closed-form Newton map z ↦ 2z − z²/8.
func TestChiSquareLaplace(t *testing.T) {
	c, err := NewChiSquare(10)
	if err != nil {
		t.Fatal(err)
	}
	for _, z0 := range []float64{1, 0.01, 7.9, 8, 20, 50, 200} {
		n := run(t, c, []float64{z0})
		cov, ok := n.Laplace()
		if !ok || math.Abs(n.Z()[0]-8) > 1e-9 || math.Abs(cov[0][0]-16) > 1e-7 {
			t.Errorf("z0 = %g: q = N(%.12g, %.12g), want N(8, 16)", z0, n.Z()[0], cov[0][0])
		}
		if h := n.Hess()[0]; !(h < 0) {
			t.Errorf("z0 = %g: Hessian %g at the mode, want < 0", z0, h)
		}
	}
	n, _ := NewNewton(c, []float64{1}, 1e-10)
	z := 1.0
	for range 6 {
		n.Step()
		z = 2*z - z*z/8
		if math.Abs(n.Z()[0]-z) > 1e-12 || n.StepLength() != 1 {
			t.Errorf("iterate %d: %.15g, Newton map %.15g (t = %g)", n.Iter(), n.Z()[0], z, n.StepLength())
		}
	}
	// A start where the full step jumps below 0: damped.
	n, _ = NewNewton(c, []float64{20}, 1e-10)
	n.Step()
	if n.StepLength() >= 1 || !(n.Z()[0] > 0) {
		t.Errorf("from 20: step length %g to %g, want a damped step inside the support", n.StepLength(), n.Z()[0])
	}
}

// TestChiSquareKL checks the grid's divergences against closed forms:
// KL(χ²_k ‖ N(k−2, 2(k−2))) = −H(χ²_k) + ½ log(2π·2(k−2)) + (2k + 4)/(4(k−2)),
// with the entropy H(χ²_k) = k/2 + log(2Γ(k/2)) + (1 − k/2)ψ(k/2), and
// KL(q‖p) = ∞ because q puts mass Φ(−√((k−2)/2)) on z ≤ 0.
func TestChiSquareKL(t *testing.T) {
	for _, k := range []float64{4, 10, 30} {
		c, _ := NewChiSquare(k)
		n := run(t, c, []float64{1})
		cov, _ := n.Laplace()
		mode, v := n.Z()[0], cov[0][0]
		lo, hi := c.Bounds()
		lo[0] = mode - 9*math.Sqrt(v)
		g := NewGrid(c, lo, hi, 20000)
		lg, _ := math.Lgamma(k / 2)
		h := k/2 + math.Ln2 + lg + (1-k/2)*mathext.Digamma(k/2)
		// E_p[(z − (k−2))²] = Var + (mean − mode)² = 2k + 4.
		want := -h + 0.5*math.Log(2*math.Pi*v) + (2*k+4)/(2*v)
		kl := g.KL([]float64{mode}, cov)
		if math.Abs(kl.PQ-want) > 1e-5 {
			t.Errorf("k = %g: KL(p‖q) = %.7f, closed form %.7f", k, kl.PQ, want)
		}
		if !math.IsInf(kl.QP, 1) {
			t.Errorf("k = %g: KL(q‖p) = %g, want +Inf", k, kl.QP)
		}
		if out := 0.5 * math.Erfc(math.Sqrt((k-2)/2)/math.Sqrt2); math.Abs(kl.QOutside-out) > 5e-4 { // within a cell at z = 0
			t.Errorf("k = %g: q's mass where p = 0 is %.5f, want Φ(−√((k−2)/2)) = %.5f", k, kl.QOutside, out)
		}
		mean, vr := g.Moments()
		if math.Abs(mean[0]-k) > 1e-4 || math.Abs(vr[0][0]-2*k) > 1e-3 {
			t.Errorf("k = %g: grid mean %.5f, variance %.5f, want %g and %g", k, mean[0], vr[0][0], k, 2*k)
		}
	}
}

// TestExample34 checks Newton on the notes' Example 3.4 against the
// catalogue's measured iterates (C7 [M]: 0.7458, 1.0753, 1.1937, 1.2053,
// 1.20534628 from w = 0; Laplace variance 0.56095), the gradient (3.4) and
// Hessian (3.5) against finite differences, and quadratic convergence:
// |g_{k+1}| ≤ C|g_k|² near the mode.
func TestExample34(t *testing.T) {
	m, err := Example34(2)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := NewNewton(m, []float64{0}, 1e-12)
	want := []float64{0.7458, 1.0753, 1.1937, 1.2053, 1.20534628}
	grads := []float64{n.GradNorm()}
	for k, w := range want {
		if err := n.Step(); err != nil {
			t.Fatal(err)
		}
		tol := 5e-5
		if k == len(want)-1 {
			tol = 5e-9
		}
		if math.Abs(n.Z()[0]-w) > tol {
			t.Errorf("iterate %d: %.9f, catalogue %g", k+1, n.Z()[0], w)
		}
		grads = append(grads, n.GradNorm())
	}
	for k := 2; k+1 < len(grads); k++ {
		if grads[k+1] > 2*grads[k]*grads[k] {
			t.Errorf("|g| %.3g → %.3g: not quadratic", grads[k], grads[k+1])
		}
	}
	cov, _ := n.Laplace()
	if math.Abs(cov[0][0]-0.56095) > 5e-6 {
		t.Errorf("Laplace variance %.7f, catalogue 0.56095", cov[0][0])
	}
	checkDerivatives(t, m, [][]float64{{-1.3}, {0.4}, {2.2}})
}

// checkDerivatives compares Grad and Hess with central differences.
func checkDerivatives(t *testing.T, m Model, pts [][]float64) {
	t.Helper()
	d := m.Dim()
	g, h := make([]float64, d), make([]float64, d*d)
	gp, gm := make([]float64, d), make([]float64, d)
	for _, z := range pts {
		m.Grad(g, z)
		m.Hess(h, z)
		for i := range d {
			const e = 1e-5
			zi := z[i]
			z[i] = zi + e
			fp := m.LogP(z)
			m.Grad(gp, z)
			z[i] = zi - e
			fm := m.LogP(z)
			m.Grad(gm, z)
			z[i] = zi
			if fd := (fp - fm) / (2 * e); math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s at %v: ∂%d = %.9g, finite difference %.9g", m.Name(), z, i, g[i], fd)
			}
			for j := range d {
				if fd := (gp[j] - gm[j]) / (2 * e); math.Abs(fd-h[j*d+i]) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s at %v: ∂²%d%d = %.9g, finite difference %.9g", m.Name(), z, j, i, h[j*d+i], fd)
				}
			}
		}
	}
}

// TestLogistic2D: a two-parameter posterior (intercept and slope) on
// seeded data: derivatives, convergence to a zero gradient with a
// negative-definite Hessian, and the Laplace covariance symmetric positive
// definite; the posterior is skewed, so KL(p‖q) is small but not zero.
func TestLogistic2D(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var phi [][]float64
	var y []float64
	for range 30 {
		x := 1.5 * rng.NormFloat64()
		phi = append(phi, []float64{1, x})
		if rng.Float64() < 1/(1+math.Exp(-(0.5+1.5*x))) {
			y = append(y, 1)
		} else {
			y = append(y, 0)
		}
	}
	m, err := NewLogistic("logistic", phi, y, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkDerivatives(t, m, [][]float64{{0.3, -0.2}, {1.1, 2.4}, {-2, 0.5}})
	n := run(t, m, []float64{0, 0})
	cov, ok := n.Laplace()
	if !ok || n.GradNorm() > 1e-10 || cov[0][1] != cov[1][0] || cov[0][0]*cov[1][1]-cov[0][1]*cov[0][1] <= 0 {
		t.Errorf("mode %v, |g| %g, covariance %v", n.Z(), n.GradNorm(), cov)
	}
	lo, hi := m.Bounds()
	g := NewGrid(m, lo, hi, 300)
	kl := g.KL(n.Z(), cov)
	t.Logf("mode %.4f, cov %.4f, KL(p‖q) %.5f, KL(q‖p) %.5f", n.Z(), cov, kl.PQ, kl.QP)
	if !(kl.PQ > 1e-4 && kl.PQ < 0.2) || !(kl.QP > 1e-4 && kl.QP < 0.2) || kl.QOutside > 1e-6 {
		t.Errorf("divergences %+v", kl)
	}
	mean, _ := g.Moments()
	if mean[1] <= n.Z()[1] {
		t.Errorf("posterior mean of the slope %.4f not above its mode %.4f (right skew expected)", mean[1], n.Z()[1])
	}
}

// TestGaussianIsExact: on a Gaussian log-density Newton lands on the mean
// in one step and the divergences vanish (the grid and KL are right).
func TestGaussianIsExact(t *testing.T) {
	m := Gaussian{M: []float64{1, -2}, S: []float64{0.5, 2}}
	n, _ := NewNewton(m, []float64{7, 7}, 1e-12)
	n.Step()
	if z := n.Z(); math.Abs(z[0]-1) > 1e-12 || math.Abs(z[1]+2) > 1e-12 || !errors.Is(n.Step(), algo.ErrConverged) {
		t.Errorf("after one step %v", z)
	}
	cov, _ := n.Laplace()
	lo, hi := m.Bounds()
	kl := NewGrid(m, lo, hi, 400).KL(n.Z(), cov)
	if math.Abs(kl.PQ) > 1e-9 || math.Abs(kl.QP) > 1e-9 {
		t.Errorf("divergences %+v, want 0", kl)
	}
	// Against a different Gaussian: the closed form for N(1, 0.25) vs N(0, 1)
	// in 1-D, ½(σ₀²/σ₁² + (μ₁−μ₀)²/σ₁² − 1 + log(σ₁²/σ₀²)).
	m1 := Gaussian{M: []float64{1}, S: []float64{0.5}}
	lo, hi = []float64{-8}, []float64{8}
	got := NewGrid(m1, lo, hi, 20000).KL([]float64{0}, [][]float64{{1}}).PQ
	want := 0.5 * (0.25 + 1 - 1 + math.Log(4))
	if math.Abs(got-want) > 1e-7 {
		t.Errorf("KL(N(1, ¼)‖N(0, 1)) = %.9f, closed form %.9f", got, want)
	}
}

func TestLaplaceBadParams(t *testing.T) {
	c, _ := NewChiSquare(10)
	cases := []struct {
		name string
		err  error
	}{
		{"k", func() error { _, err := NewChiSquare(2); return err }()},
		{"k", func() error { _, err := NewChiSquare(math.NaN()); return err }()},
		{"z0", func() error { _, err := NewNewton(c, []float64{-1}, 0); return err }()},
		{"z0", func() error { _, err := NewNewton(c, []float64{1, 2}, 0); return err }()},
		{"tol", func() error { _, err := NewNewton(c, []float64{1}, -1); return err }()},
		{"model", func() error { _, err := NewNewton(nil, []float64{1}, 0); return err }()},
		{"tau", func() error { _, err := Example34(0); return err }()},
		{"labels", func() error { _, err := NewLogistic("l", [][]float64{{1}}, []float64{2}, 1); return err }()},
		{"data", func() error { _, err := NewLogistic("l", nil, nil, 1); return err }()},
	}
	for _, c := range cases {
		var pe *algo.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.name {
			t.Errorf("got %v, want a ParamError naming %s", c.err, c.name)
		}
	}
}

func TestNewtonStepDoesNotAllocate(t *testing.T) {
	m, _ := Example34(2)
	n, _ := NewNewton(m, []float64{0}, 0)
	if a := testing.AllocsPerRun(20, func() { _ = n.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

// TestChiSquareBoundsMass: the mass of χ²(k) beyond Bounds' upper end,
// Q(k/2, hi/2) by gonum's regularised incomplete gamma function, is below
// 6e-12 for every k the model takes (5.1e-12 as k → 2) and below 1e-12
// from k = 4 on, as Bounds says.
func TestChiSquareBoundsMass(t *testing.T) {
	for _, k := range []float64{2 + 1e-9, 2.5, 3, 3.9, 4, 5, 10, 100, 1000} {
		c, err := NewChiSquare(k)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := c.Bounds()
		tail := mathext.GammaIncRegComp(k/2, hi[0]/2)
		if lo[0] != 0 || tail >= 6e-12 || k >= 4 && tail >= 1e-12 {
			t.Errorf("k = %g: bounds [%g, %g] leave %.2g of the mass", k, lo[0], hi[0], tail)
		}
	}
}
