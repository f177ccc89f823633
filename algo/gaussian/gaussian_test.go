package gaussian

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/mcmc"
)

var testNormal = func() Normal {
	g, err := New([2]float64{1, -2}, Mat{{4, 1.2}, {1.2, 1}})
	if err != nil {
		panic(err)
	}
	return g
}()

// TestCholesky: LLᵀ = Σ to rounding, L lower triangular with a positive
// diagonal ([A22]'s check).
func TestCholesky(t *testing.T) {
	l := testNormal.L()
	back := l.Mul(l.T())
	for i := range 2 {
		for j := range 2 {
			algotest.Near(t, "LLᵀ", back[i][j], testNormal.Cov[i][j], 1e-15*4)
		}
	}
	if l[0][1] != 0 || !(l[0][0] > 0 && l[1][1] > 0) {
		t.Errorf("L = %v", l)
	}
}

// moments draws n samples of draw and returns their moments.
func moments(n int, draw func() [2]float64) *mcmc.Moments {
	m := mcmc.NewMoments(2)
	for range n {
		x := draw()
		m.Add(x[:])
	}
	return m
}

// checkMoments holds a sample's mean and covariance to the law g within
// 4 standard errors: Var x̄_i = Σ_ii/n, Var S_ij ≈ (Σ_ii Σ_jj + Σ_ij²)/n.
func checkMoments(t *testing.T, what string, m *mcmc.Moments, g Normal) {
	t.Helper()
	n := float64(m.N())
	mean, cov := m.Mean(), m.Cov()
	for i := range 2 {
		if z := (mean[i] - g.Mu[i]) / math.Sqrt(g.Cov[i][i]/n); math.Abs(z) > 4 {
			t.Errorf("%s: mean %d = %g, want %g (z = %.1f)", what, i, mean[i], g.Mu[i], z)
		}
		for j := range 2 {
			se := math.Sqrt((g.Cov[i][i]*g.Cov[j][j] + g.Cov[i][j]*g.Cov[i][j]) / n)
			if z := (cov[i][j] - g.Cov[i][j]) / se; math.Abs(z) > 4 {
				t.Errorf("%s: cov %d%d = %g, want %g (z = %.1f)", what, i, j, cov[i][j], g.Cov[i][j], z)
			}
		}
	}
}

// TestIdentities: Monte Carlo moments of each construction against the
// identity's law, within 4 standard errors (catalogue G0's oracle):
// push-forward sampling, (a) the sum of independent draws, (d) the
// linear-Gaussian marginal; and the sum of DEPENDENT draws (x + x) is
// not (a)'s law (the erratum), by far more than 4 standard errors.
func TestIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 40000
	checkMoments(t, "push-forward", moments(n, func() [2]float64 { return testNormal.Sample(rng) }), testNormal)

	h, _ := New([2]float64{-1, 0.5}, Mat{{0.5, -0.3}, {-0.3, 0.8}})
	sum, err := Sum(testNormal, h)
	if err != nil {
		t.Fatal(err)
	}
	checkMoments(t, "(a) sum", moments(n, func() [2]float64 {
		x, y := testNormal.Sample(rng), h.Sample(rng)
		return [2]float64{x[0] + y[0], x[1] + y[1]}
	}), sum)

	a := Mat{{0.6, -0.8}, {0.8, 0.6}}
	b := [2]float64{1, 0}
	covY := Mat{{0.1, 0}, {0, 0.2}}
	lin, err := testNormal.Linear(a, b, covY)
	if err != nil {
		t.Fatal(err)
	}
	noise, _ := New([2]float64{}, covY)
	checkMoments(t, "(d) linear", moments(n, func() [2]float64 {
		y := a.Apply(testNormal.Sample(rng))
		e := noise.Sample(rng)
		return [2]float64{y[0] + b[0] + e[0], y[1] + b[1] + e[1]}
	}), lin)

	self, _ := Sum(testNormal, testNormal)
	m := moments(4000, func() [2]float64 { x := testNormal.Sample(rng); return [2]float64{2 * x[0], 2 * x[1]} })
	se := math.Sqrt(2 * self.Cov[0][0] * self.Cov[0][0] / 4000)
	if z := (m.Cov()[0][0] - self.Cov[0][0]) / se; z < 10 {
		t.Errorf("x + x: variance %g against (a)'s %g, z = %.1f: the dependent sum should miss it", m.Cov()[0][0], self.Cov[0][0], z)
	}
}

// TestConditional: (c) against brute force — the draws whose x₁ falls
// in a thin slice have x₂'s mean and variance within 4 standard errors
// of the formula — and against the closed form of the density ratio:
// p(x₂ | x₁) = p(x₁, x₂)/p(x₁) at a few points.
func TestConditional(t *testing.T) {
	g := testNormal
	rng := rand.New(rand.NewPCG(3, 4))
	const xb, h = 2.0, 0.05
	mean, variance := g.Conditional(1, xb)
	var in []float64
	for range 400000 {
		x := g.Sample(rng)
		if math.Abs(x[0]-xb) < h {
			in = append(in, x[1])
		}
	}
	n := float64(len(in))
	s, ss := 0.0, 0.0
	for _, v := range in {
		s += v
	}
	m := s / n
	for _, v := range in {
		ss += (v - m) * (v - m)
	}
	v := ss / (n - 1)
	if z := (m - mean) / math.Sqrt(variance/n); math.Abs(z) > 4 {
		t.Errorf("slice mean %g, formula %g (z = %.1f, %d draws)", m, mean, z, len(in))
	}
	if z := (v - variance) / (variance * math.Sqrt(2/n)); math.Abs(z) > 4 {
		t.Errorf("slice variance %g, formula %g (z = %.1f)", v, variance, z)
	}
	m1, v1 := g.Marginal(0)
	for _, x2 := range []float64{-4, -2, 0, 1.5} {
		joint := g.LogPdf([2]float64{xb, x2})
		marg := -0.5*math.Log(2*math.Pi*v1) - (xb-m1)*(xb-m1)/(2*v1)
		cond := -0.5*math.Log(2*math.Pi*variance) - (x2-mean)*(x2-mean)/(2*variance)
		algotest.Near(t, "log p(x₂|x₁) = log p(x₁,x₂) − log p(x₁)", joint-marg, cond, 1e-13)
	}
}

// TestEllipse: every point of the k-contour is at Mahalanobis distance k,
// (x − μ)ᵀΣ⁻¹(x − μ) = k² with Σ⁻¹ the 2×2 inverse (not through L), and
// the log density there is −log 2π − ½ log det Σ − k²/2.
func TestEllipse(t *testing.T) {
	const k = 2.0
	g := testNormal
	xs, ys := make([]float64, 33), make([]float64, 33)
	g.Ellipse(k, xs, ys)
	a, b, d := g.Cov[0][0], g.Cov[0][1], g.Cov[1][1]
	det := a*d - b*b
	for i := range xs {
		u, v := xs[i]-g.Mu[0], ys[i]-g.Mu[1]
		maha := (d*u*u - 2*b*u*v + a*v*v) / det
		algotest.Near(t, "(x − μ)ᵀΣ⁻¹(x − μ) on the 2σ contour", maha, k*k, 1e-13)
		want := -math.Log(2*math.Pi) - 0.5*math.Log(det) - k*k/2
		algotest.Near(t, "log density on the 2σ contour", g.LogPdf([2]float64{xs[i], ys[i]}), want, 1e-13)
	}
	algotest.Near(t, "closed", xs[0], xs[32], 1e-15)
}

func TestValidation(t *testing.T) {
	for _, c := range []struct {
		mu  [2]float64
		cov Mat
		bad string
	}{
		{[2]float64{math.NaN(), 0}, Mat{{1, 0}, {0, 1}}, "mu"},
		{[2]float64{}, Mat{{1, 0.5}, {0.4, 1}}, "cov"},
		{[2]float64{}, Mat{{1, 1}, {1, 1}}, "cov"},
		{[2]float64{}, Mat{{-1, 0}, {0, 1}}, "cov"},
	} {
		_, err := New(c.mu, c.cov)
		algotest.WantParam(t, err, c.bad)
	}
	// An asymmetric noise covariance in (d) is refused, not symmetrised.
	_, err := testNormal.Linear(Mat{{1, 0}, {0, 1}}, [2]float64{}, Mat{{1, 0.5}, {0.1, 1}})
	algotest.WantParam(t, err, "cov")
}
