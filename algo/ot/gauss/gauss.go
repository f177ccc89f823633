// Package gauss holds optimal transport between Gaussian measures (seed
// 002 §5.4, L2189–2197): the Brenier map, which is affine, the closed-form
// W₂², the geodesic between two Gaussians, and an engine that carries
// samples along it.
//
// For μ = N(m_μ, Σ_μ), ν = N(m_ν, Σ_ν) with Σ_μ, Σ_ν positive definite and
// the cost ‖x − y‖², the optimal map is T(x) = m_ν + A(x − m_μ) with
//
//	A = Σ_μ^{−1/2} (Σ_μ^{1/2} Σ_ν Σ_μ^{1/2})^{1/2} Σ_μ^{−1/2},
//
// symmetric positive definite (so T is the gradient of a convex function,
// Theorem 5.1), with A Σ_μ A = Σ_ν, and
//
//	W₂² = ‖m_μ − m_ν‖² + tr(Σ_μ + Σ_ν − 2(Σ_μ^{1/2} Σ_ν Σ_μ^{1/2})^{1/2}).
//
// Brenier's theorem states the cost as ½‖x − y‖² (L2171) and this section
// uses ‖x − y‖² (L2189): the map is the same; W₂² here is for ‖x − y‖², as
// in L2195 (seed-002 catalogue §4). Square roots come from the symmetric
// eigendecomposition (gonum's EigenSym), with products re-symmetrised and
// rounding-level negative eigenvalues clamped to zero (catalogue E4).
package gauss

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// MaxDim bounds the dimension.
const MaxDim = 16

// Gaussian is N(Mean, Cov).
type Gaussian struct {
	Mean []float64
	Cov  *mat.SymDense
}

// New2 returns the 2-D Gaussian with mean (mx, my) and covariance
// [[sxx, sxy], [sxy, syy]].
func New2(mx, my, sxx, sxy, syy float64) Gaussian {
	return Gaussian{Mean: []float64{mx, my}, Cov: mat.NewSymDense(2, []float64{sxx, sxy, sxy, syy})}
}

// check refuses a Gaussian whose mean is not finite, whose dimensions
// disagree or whose covariance is not symmetric positive definite.
func check(name string, g Gaussian) error {
	d := len(g.Mean)
	if d < 1 || d > MaxDim || g.Cov == nil || g.Cov.SymmetricDim() != d {
		return algo.BadParam(name, fmt.Sprintf("a %d-D mean", d), fmt.Sprintf("a mean and covariance of one dimension in 1..%d", MaxDim))
	}
	if !algo.AllFinite(g.Mean) || !algo.AllFinite(g.Cov.RawSymmetric().Data) {
		return algo.BadParam(name, "a non-finite entry", "finite entries")
	}
	var ch mat.Cholesky
	if !ch.Factorize(g.Cov) {
		return algo.BadParam(name, "a covariance that is not positive definite", "a symmetric positive definite covariance")
	}
	return nil
}

// eigen returns the eigenvalues (clamped at 0) and eigenvectors of a.
func eigen(a mat.Symmetric) ([]float64, *mat.Dense, error) {
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		return nil, nil, fmt.Errorf("eigendecomposition failed")
	}
	vals := es.Values(nil)
	for i, v := range vals {
		vals[i] = math.Max(v, 0)
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	return vals, &vecs, nil
}

// fromEigen returns V diag(f(λ)) Vᵀ, symmetrised.
func fromEigen(vals []float64, vecs *mat.Dense, f func(float64) float64) *mat.SymDense {
	d := len(vals)
	out := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			s := 0.0
			for k, l := range vals {
				s += vecs.At(i, k) * f(l) * vecs.At(j, k)
			}
			out.SetSym(i, j, s)
		}
	}
	return out
}

// symProduct returns the symmetric part of a b c (for products that are
// symmetric in exact arithmetic).
func symProduct(a, b, c mat.Matrix) *mat.SymDense {
	var ab, abc mat.Dense
	ab.Mul(a, b)
	abc.Mul(&ab, c)
	d, _ := abc.Dims()
	out := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			out.SetSym(i, j, (abc.At(i, j)+abc.At(j, i))/2)
		}
	}
	return out
}

// SqrtSym returns the symmetric positive semi-definite square root of a
// symmetric positive semi-definite a.
func SqrtSym(a mat.Symmetric) (*mat.SymDense, error) {
	vals, vecs, err := eigen(a)
	if err != nil {
		return nil, err
	}
	return fromEigen(vals, vecs, math.Sqrt), nil
}

// Map is the Brenier map T(x) = m_ν + A(x − m_μ) between two Gaussians,
// with the parts of W₂².
type Map struct {
	From, To Gaussian
	A        *mat.SymDense
	// MeanPart is ‖m_μ − m_ν‖², CovPart the trace term; W2Sq their sum.
	MeanPart, CovPart, W2Sq float64
}

// NewMap computes the Brenier map from mu to nu.
func NewMap(mu, nu Gaussian) (*Map, error) {
	if err := check("mu", mu); err != nil {
		return nil, err
	}
	if err := check("nu", nu); err != nil {
		return nil, err
	}
	d := len(mu.Mean)
	if len(nu.Mean) != d {
		return nil, algo.BadParam("nu", fmt.Sprintf("dimension %d", len(nu.Mean)), fmt.Sprintf("the dimension of mu, %d", d))
	}
	vals, vecs, err := eigen(mu.Cov)
	if err != nil {
		return nil, err
	}
	s := fromEigen(vals, vecs, math.Sqrt)                                              // Σ_μ^{1/2}
	sInv := fromEigen(vals, vecs, func(l float64) float64 { return 1 / math.Sqrt(l) }) // Σ_μ^{−1/2}
	r, err := SqrtSym(symProduct(s, nu.Cov, s))                                        // (Σ_μ^{1/2} Σ_ν Σ_μ^{1/2})^{1/2}
	if err != nil {
		return nil, err
	}
	m := &Map{From: mu, To: nu, A: symProduct(sInv, r, sInv)}
	for i := range d {
		e := mu.Mean[i] - nu.Mean[i]
		m.MeanPart += e * e
	}
	m.CovPart = math.Max(mat.Trace(mu.Cov)+mat.Trace(nu.Cov)-2*mat.Trace(r), 0)
	m.W2Sq = m.MeanPart + m.CovPart
	return m, nil
}

// Apply writes T(x) into dst (allocated when nil) and returns it.
func (m *Map) Apply(dst, x []float64) []float64 {
	d := len(x)
	if cap(dst) < d {
		dst = make([]float64, d)
	}
	dst = dst[:d]
	for i := range d {
		s := m.To.Mean[i]
		for j := range d {
			s += m.A.At(i, j) * (x[j] - m.From.Mean[j])
		}
		dst[i] = s
	}
	return dst
}

// At returns the point at s ∈ [0, 1] of the geodesic from μ to ν,
// ((1 − s) Id + s T)#μ (L2375): N((1 − s)m_μ + s m_ν, B Σ_μ B) with
// B = (1 − s)I + sA. Its W₂ distance to μ is s·W₂(μ, ν).
func (m *Map) At(s float64) Gaussian {
	d := len(m.From.Mean)
	b := mat.NewDense(d, d, nil)
	mean := make([]float64, d)
	for i := range d {
		mean[i] = (1-s)*m.From.Mean[i] + s*m.To.Mean[i]
		for j := range d {
			b.Set(i, j, s*m.A.At(i, j))
		}
		b.Set(i, i, b.At(i, i)+1-s)
	}
	return Gaussian{Mean: mean, Cov: symProduct(b, m.From.Cov, b.T())}
}

// W2Sq returns W₂²(mu, nu) (NewMap's).
func W2Sq(mu, nu Gaussian) (float64, error) {
	m, err := NewMap(mu, nu)
	if err != nil {
		return 0, err
	}
	return m.W2Sq, nil
}

// Transport carries n samples of μ along the geodesic to ν, one time step
// per Step: at step k, s = k/steps and each point is (1 − s)x + s T(x).
// The samples are drawn once (x = m_μ + L z, L the Cholesky factor of Σ_μ,
// z standard normal), so the picture is of the same points moving; at s = 1
// they are samples of ν.
type Transport struct {
	m        *Map
	d, n     int
	steps, k int
	x, tx    []float64 // the samples and their images, n×d
	pos      []float64 // the present positions
}

// NewTransport draws n samples (1..100000) and starts at s = 0 with steps
// (1..10000) steps to go.
func NewTransport(m *Map, rng *rand.Rand, n, steps int) (*Transport, error) {
	if m == nil {
		return nil, algo.BadParam("map", "nil", "a map")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	if n < 1 || n > 100000 {
		return nil, algo.BadParam("n", n, "in 1..100000")
	}
	if steps < 1 || steps > 10000 {
		return nil, algo.BadParam("steps", steps, "in 1..10000")
	}
	d := len(m.From.Mean)
	var ch mat.Cholesky
	ch.Factorize(m.From.Cov) // checked positive definite by NewMap
	var l mat.TriDense
	ch.LTo(&l)
	t := &Transport{m: m, d: d, n: n, steps: steps, x: make([]float64, n*d), tx: make([]float64, n*d)}
	z := make([]float64, d)
	for i := range n {
		for k := range z {
			z[k] = rng.NormFloat64()
		}
		xi := t.x[i*d : (i+1)*d]
		for r := range d {
			s := m.From.Mean[r]
			for c := 0; c <= r; c++ {
				s += l.At(r, c) * z[c]
			}
			xi[r] = s
		}
		m.Apply(t.tx[i*d:(i+1)*d], xi)
	}
	t.pos = append([]float64(nil), t.x...)
	return t, nil
}

// Step advances s by 1/steps; it returns algo.ErrConverged on reaching ν.
func (t *Transport) Step() error {
	if t.k >= t.steps {
		return algo.ErrConverged
	}
	t.k++
	s := float64(t.k) / float64(t.steps)
	for i, x := range t.x {
		t.pos[i] = (1-s)*x + s*t.tx[i]
	}
	if t.k == t.steps {
		return algo.ErrConverged
	}
	return nil
}

// S is the present time s ∈ [0, 1].
func (t *Transport) S() float64 { return float64(t.k) / float64(t.steps) }

// Points are the present positions (n×d, read-only); Samples the samples
// of μ and Images their images T(x).
func (t *Transport) Points() []float64  { return t.pos }
func (t *Transport) Samples() []float64 { return t.x }
func (t *Transport) Images() []float64  { return t.tx }

// Law is the exact law of the points at the present time (Map.At).
func (t *Transport) Law() Gaussian { return t.m.At(t.S()) }
