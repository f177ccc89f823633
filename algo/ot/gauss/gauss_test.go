package gauss

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/mat"
)

func mustMap(t testing.TB, mu, nu Gaussian) *Map {
	t.Helper()
	m, err := NewMap(mu, nu)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// nearSym fails unless a and b agree entrywise within tol.
func nearSym(t testing.TB, what string, a, b mat.Symmetric, tol float64) {
	t.Helper()
	d := a.SymmetricDim()
	for i := range d {
		for j := range d {
			algotest.Near(t, fmt.Sprintf("%s[%d][%d]", what, i, j), a.At(i, j), b.At(i, j), tol)
		}
	}
}

// checkMap: A Σ_μ A = Σ_ν, A symmetric positive definite, and the map
// back is A⁻¹.
func checkMap(t testing.TB, name string, m *Map) {
	t.Helper()
	nearSym(t, name+" AΣμA", symProduct(m.A, m.From.Cov, m.A), m.To.Cov, 1e-12*(1+mat.Norm(m.To.Cov, math.Inf(1))))
	var ch mat.Cholesky
	if !ch.Factorize(m.A) {
		t.Errorf("%s: A is not positive definite", name)
	}
	back := mustMap(t, m.To, m.From)
	var prod mat.Dense
	prod.Mul(m.A, back.A)
	d := len(m.From.Mean)
	for i := range d {
		for j := range d {
			want := 0.0
			if i == j {
				want = 1
			}
			algotest.Near(t, fmt.Sprintf("%s A·A_back[%d][%d]", name, i, j), prod.At(i, j), want, 1e-10)
		}
	}
	algotest.Near(t, name+" symmetric W2²", back.W2Sq, m.W2Sq, 1e-12*(1+m.W2Sq))
}

// TestCatalogue: the seed-002 catalogue's E4 numbers: Σ_μ = diag(4, 1),
// Σ_ν = diag(1, 9), equal means: W₂² = (2 − 1)² + (1 − 3)² = 5; and
// Σ_μ = [[2, .5], [.5, 1]], Σ_ν = [[1, −.3], [−.3, 3]]: covariance part
// 0.929312 (to the 6 digits printed).
func TestCatalogue(t *testing.T) {
	m := mustMap(t, New2(0, 0, 4, 0, 1), New2(0, 0, 1, 0, 9))
	algotest.Near(t, "diagonal W2²", m.W2Sq, 5, 1e-12)
	checkMap(t, "diagonal", m)
	m = mustMap(t, New2(1, -1, 2, 0.5, 1), New2(-2, 3, 1, -0.3, 3))
	algotest.Near(t, "covariance part", m.CovPart, 0.929312, 5e-7)
	algotest.Near(t, "mean part", m.MeanPart, 25, 1e-12)
	checkMap(t, "full", m)
}

// TestCommuting: for commuting (here diagonal) covariances W₂² is
// Σ (√a_i − √b_i)² plus the mean part, and in 1-D it is Ex 5.7's
// (m_μ − m_ν)² + (σ_μ − σ_ν)² with A = σ_ν/σ_μ.
func TestCommuting(t *testing.T) {
	a, b := []float64{0.5, 2, 7}, []float64{3, 0.1, 7}
	mu := Gaussian{Mean: []float64{0, 0, 0}, Cov: mat.NewSymDense(3, []float64{a[0], 0, 0, 0, a[1], 0, 0, 0, a[2]})}
	nu := Gaussian{Mean: []float64{1, 2, 2}, Cov: mat.NewSymDense(3, []float64{b[0], 0, 0, 0, b[1], 0, 0, 0, b[2]})}
	want := 9.0
	for i := range a {
		d := math.Sqrt(a[i]) - math.Sqrt(b[i])
		want += d * d
	}
	m := mustMap(t, mu, nu)
	algotest.Near(t, "diagonal 3-D", m.W2Sq, want, 1e-12)
	checkMap(t, "diagonal 3-D", m)
	one := mustMap(t, Gaussian{[]float64{2}, mat.NewSymDense(1, []float64{4})}, Gaussian{[]float64{-1}, mat.NewSymDense(1, []float64{0.25})})
	algotest.Near(t, "1-D W2²", one.W2Sq, 9+(2-0.5)*(2-0.5), 1e-12)
	algotest.Near(t, "1-D A", one.A.At(0, 0), 0.5/2, 1e-15)
}

// randomSPD returns Q diag(λ) Qᵀ with random orthogonal Q and λ in
// [0.1, 5].
func randomSPD(rng *rand.Rand, d int) *mat.SymDense {
	g := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	l := mat.NewDiagDense(d, nil)
	for i := range d {
		l.SetDiag(i, 0.1+4.9*rng.Float64())
	}
	return symProduct(&q, l, q.T())
}

// TestRandom: the map's identities on random SPD pairs in 2 … 6
// dimensions; W₂²(μ, μ) = 0; and the geodesic starts at μ, ends at ν and
// has constant speed, W₂(μ, μ_s) = s·W₂(μ, ν).
func TestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for d := 2; d <= 6; d++ {
		mean := func() []float64 {
			m := make([]float64, d)
			for i := range m {
				m[i] = rng.NormFloat64()
			}
			return m
		}
		mu, nu := Gaussian{mean(), randomSPD(rng, d)}, Gaussian{mean(), randomSPD(rng, d)}
		name := fmt.Sprintf("d=%d", d)
		m := mustMap(t, mu, nu)
		checkMap(t, name, m)
		self, _ := W2Sq(mu, mu)
		algotest.Near(t, name+" W2²(μ,μ)", self, 0, 1e-12)
		nearSym(t, name+" At(0)", m.At(0).Cov, mu.Cov, 1e-12)
		nearSym(t, name+" At(1)", m.At(1).Cov, nu.Cov, 1e-11)
		for _, s := range []float64{0.25, 0.6} {
			part, _ := W2Sq(mu, m.At(s))
			algotest.Near(t, fmt.Sprintf("%s W2(μ, μ_%g)", name, s), math.Sqrt(part), s*math.Sqrt(m.W2Sq), 1e-7)
		}
	}
}

// TestTransport: the carried points are the exact affine images of the
// samples, (1 − s)x + sT(x) (so their empirical covariance at s = 1 is
// A Ĉ A for the samples' Ĉ, to 1e-10), and Ĉ is within 5 standard errors
// of Σ_μ, se(Ĉ_ij) = √((Σ_ii Σ_jj + Σ_ij²)/n).
func TestTransport(t *testing.T) {
	m := mustMap(t, New2(1, -1, 2, 0.5, 1), New2(-2, 3, 1, -0.3, 3))
	const n = 4000
	tr, err := NewTransport(m, rand.New(rand.NewPCG(3, 4)), n, 10)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; ; k++ {
		err := tr.Step()
		if errors.Is(err, algo.ErrConverged) {
			if k != 10 || tr.S() != 1 {
				t.Fatalf("converged at step %d, s = %g", k, tr.S())
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	cov := func(p []float64) *mat.SymDense {
		var mx, my float64
		for i := range n {
			mx += p[2*i] / n
			my += p[2*i+1] / n
		}
		var sxx, sxy, syy float64
		for i := range n {
			dx, dy := p[2*i]-mx, p[2*i+1]-my
			sxx, sxy, syy = sxx+dx*dx/n, sxy+dx*dy/n, syy+dy*dy/n
		}
		return mat.NewSymDense(2, []float64{sxx, sxy, sxy, syy})
	}
	c := cov(tr.Samples())
	nearSym(t, "pushed covariance", cov(tr.Points()), symProduct(m.A, c, m.A), 1e-10)
	s := m.From.Cov
	for i := range 2 {
		for j := range 2 {
			se := math.Sqrt((s.At(i, i)*s.At(j, j) + s.At(i, j)*s.At(i, j)) / n)
			algotest.Near(t, fmt.Sprintf("sample Σμ[%d][%d]", i, j), c.At(i, j), s.At(i, j), 5*se)
		}
	}
}

func TestBadInput(t *testing.T) {
	good := New2(0, 0, 1, 0, 1)
	for _, tt := range []struct {
		name   string
		mu, nu Gaussian
		param  string
	}{
		{"not PD", New2(0, 0, 1, 2, 1), good, "mu"},
		{"NaN mean", good, New2(math.NaN(), 0, 1, 0, 1), "nu"},
		{"dimensions", good, Gaussian{[]float64{0}, mat.NewSymDense(1, []float64{1})}, "nu"},
		{"nil cov", Gaussian{Mean: []float64{0, 0}}, good, "mu"},
	} {
		_, err := NewMap(tt.mu, tt.nu)
		algotest.WantParam(t, err, tt.param)
	}
	m := mustMap(t, good, good)
	_, err := NewTransport(m, rand.New(rand.NewPCG(1, 1)), 0, 10)
	algotest.WantParam(t, err, "n")
	_, err = NewTransport(m, nil, 10, 10)
	algotest.WantParam(t, err, "rng")
}
