package kernel

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// CholeskyCoords is the change of coordinates of seed 000 §4.1.1 (eq 4.3,
// L1443): a symmetric positive-definite M factors as M = UᵀU with U upper
// triangular (the notes' L is this upper factor; gonum's Cholesky returns
// it), and w = Ux, z = Uy turn the scalar product ⟨x, y⟩_M = xᵀMy into the
// Cartesian one: xᵀMy = (Ux)ᵀ(Uy) = ⟨w, z⟩.
type CholeskyCoords struct {
	n int
	m []float64 // M, row-major
	u []float64 // U, row-major (zeros below the diagonal)
}

// NewCholeskyCoords factorises the n×n row-major m (copied), which must be
// symmetric positive definite.
func NewCholeskyCoords(m []float64, n int) (*CholeskyCoords, error) {
	if n < 1 || len(m) != n*n {
		return nil, algo.BadParam("m", len(m), fmt.Sprintf("n×n = %d entries, n ≥ 1", n*n))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if m[i*n+j] != m[j*n+i] {
				return nil, algo.BadParam("m", fmt.Sprintf("M[%d][%d] ≠ M[%d][%d]", i, j, j, i), "a symmetric matrix")
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(n, append([]float64(nil), m...))) {
		return nil, algo.BadParam("m", "not positive definite", "a symmetric positive-definite matrix")
	}
	var u mat.TriDense
	ch.UTo(&u)
	c := &CholeskyCoords{n: n, m: append([]float64(nil), m...), u: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			c.u[i*n+j] = u.At(i, j)
		}
	}
	return c, nil
}

// U returns U_ij.
func (c *CholeskyCoords) U(i, j int) float64 { return c.u[i*c.n+j] }

// Map writes w = Ux into dst (length n) and returns it.
func (c *CholeskyCoords) Map(x, dst []float64) []float64 {
	for i := 0; i < c.n; i++ {
		s := 0.0
		for j := i; j < c.n; j++ {
			s += c.u[i*c.n+j] * x[j]
		}
		dst[i] = s
	}
	return dst
}

// Inner returns ⟨x, y⟩_M = xᵀMy, computed with M itself.
func (c *CholeskyCoords) Inner(x, y []float64) float64 {
	s := 0.0
	for i := 0; i < c.n; i++ {
		s += x[i] * dot(c.m[i*c.n:(i+1)*c.n], y)
	}
	return s
}

// Embed rebuilds points from their Gram matrix (seed 000 §4.2.3, L1473–1487:
// "we can reconstruct the embedding … up to a rotation"): with the
// eigendecomposition K = VΛVᵀ of the n×n row-major PSD matrix k, the rows of
// X̂ = V_d Λ_d^½ (the d largest eigenpairs) satisfy X̂X̂ᵀ = K whenever rank K
// ≤ d. Eigenvalues below zero (rounding) count as zero. This is the notes'
// Cholesky reconstruction made robust: Cholesky needs K invertible, which a
// Gram matrix of more points than dimensions never is ("this is not a
// problem", L1463), while the eigendecomposition does not.
func Embed(k []float64, n, d int) ([][]float64, error) {
	if n < 1 || len(k) != n*n {
		return nil, algo.BadParam("k", len(k), fmt.Sprintf("n×n = %d entries, n ≥ 1", n*n))
	}
	if d < 1 || d > n {
		return nil, algo.BadParam("d", d, fmt.Sprintf("in 1..%d", n))
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), k...)), true) {
		return nil, fmt.Errorf("eigendecomposition of the %d×%d Gram matrix failed", n, n)
	}
	vals := es.Values(nil) // ascending
	var v mat.Dense
	es.VectorsTo(&v)
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, d)
		for c := 0; c < d; c++ {
			col := n - 1 - c
			out[i][c] = v.At(i, col) * math.Sqrt(math.Max(vals[col], 0))
		}
	}
	return out, nil
}

// Procrustes returns the orthogonal d×d Q (row-major rows) minimising
// ‖A − BQ‖_F for n×d point sets A and B (the orthogonal Procrustes
// problem): Q = UVᵀ with BᵀA = UΣVᵀ. When A = BQ₀ for an orthogonal Q₀ it
// returns Q₀ (up to rounding). The notes' (4.9) says "rotation": a Q with
// det −1, a reflection, is as good for the scalar product, and the
// reconstruction of Embed may need one.
func Procrustes(a, b [][]float64) ([][]float64, error) {
	n := len(a)
	if n == 0 || len(b) != n {
		return nil, algo.BadParam("b", len(b), fmt.Sprintf("as many points as a (%d ≥ 1)", n))
	}
	d := len(a[0])
	if d == 0 {
		return nil, algo.BadParam("a", 0, "points of at least one coordinate")
	}
	for i := range a {
		if len(a[i]) != d || len(b[i]) != d {
			return nil, algo.BadParam("b", i, fmt.Sprintf("every point of a and b with %d coordinates", d))
		}
	}
	m := mat.NewDense(d, d, nil) // BᵀA
	for i := range a {
		for r := 0; r < d; r++ {
			for c := 0; c < d; c++ {
				m.Set(r, c, m.At(r, c)+b[i][r]*a[i][c])
			}
		}
	}
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDFull) {
		return nil, fmt.Errorf("SVD of the %d×%d cross-covariance failed", d, d)
	}
	var u, v, q mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	q.Mul(&u, v.T())
	out := make([][]float64, d)
	for r := range out {
		out[r] = make([]float64, d)
		for c := range out[r] {
			out[r][c] = q.At(r, c)
		}
	}
	return out, nil
}

// MaxPolyFeatures bounds the dimension of a PolyMap.
const MaxPolyFeatures = 60000

// PolyDim is ℓ = C(n+d−1, d), the number of monomials of degree d in n
// variables: the dimension of the feature space of k(x, y) = (xᵀy)^d on Rⁿ
// (seed 000 §4.4, L1536). It is a float64 so that it can run past int's
// range; the product is exact while it stays below 2⁵³.
func PolyDim(n, d int) float64 {
	c := 1.0
	for i := 1; i <= d; i++ { // C(n−1+i, i) = C(n−2+i, i−1)·(n−1+i)/i
		c = c * float64(n-1+i) / float64(i)
	}
	return math.Round(c)
}

// PolyMap is the explicit feature map of the homogeneous polynomial kernel
// k(x, y) = (xᵀy)^d on Rⁿ (seed 000 eq 4.16, L1534): one coordinate per
// exponent vector a ∈ Nⁿ with |a| = d,
//
//	φ_a(x) = √(d!/(a₁!⋯a_n!)) x₁^a₁ ⋯ x_n^a_n,
//
// so that ⟨φ(x), φ(y)⟩ = Σ_a (d; a) (x⊙y)^a = (xᵀy)^d by the multinomial
// theorem. For n = d = 2 it is (x₁², √2x₁x₂, x₂²), eq 4.2 (L1425).
type PolyMap struct {
	n, d int
	exps []uint8   // Dim()·n exponents
	coef []float64 // √ of the multinomial coefficients
}

// NewPolyMap enumerates the monomials of degree d ≥ 0 in n ≥ 1 variables,
// at most MaxPolyFeatures of them.
func NewPolyMap(n, d int) (*PolyMap, error) {
	if n < 1 {
		return nil, algo.BadParam("n", n, "≥ 1")
	}
	if d < 0 || d > 255 {
		return nil, algo.BadParam("d", d, "in 0..255")
	}
	dim := PolyDim(n, d)
	if dim > MaxPolyFeatures {
		return nil, algo.BadParam("d", d, fmt.Sprintf("C(n+d−1, d) ≤ %d (it is %g)", MaxPolyFeatures, dim))
	}
	p := &PolyMap{n: n, d: d}
	a := make([]uint8, n)
	lfd, _ := math.Lgamma(float64(d + 1))
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == n-1 {
			a[i] = uint8(left)
			p.exps = append(p.exps, a...)
			l := lfd
			for _, e := range a {
				g, _ := math.Lgamma(float64(e) + 1)
				l -= g
			}
			p.coef = append(p.coef, math.Sqrt(math.Round(math.Exp(l))))
			return
		}
		for e := left; e >= 0; e-- {
			a[i] = uint8(e)
			rec(i+1, left-e)
		}
	}
	rec(0, d)
	return p, nil
}

// Dim is the number of coordinates (monomials) enumerated.
func (p *PolyMap) Dim() int { return len(p.coef) }

// Exponents returns monomial j's exponent vector (a view).
func (p *PolyMap) Exponents(j int) []uint8 { return p.exps[j*p.n : (j+1)*p.n] }

// Coef returns monomial j's coefficient √(d!/∏a_i!).
func (p *PolyMap) Coef(j int) float64 { return p.coef[j] }

// Map writes φ(x) into dst (length Dim) and returns it.
func (p *PolyMap) Map(x, dst []float64) []float64 {
	for j, c := range p.coef {
		v := c
		for i, e := range p.exps[j*p.n : (j+1)*p.n] {
			v *= powi(x[i], int(e))
		}
		dst[j] = v
	}
	return dst
}

// GaussAngle is the angle between φ(x) and φ(y) in the RKHS of the
// Gaussian kernel k(x, y) = exp(−‖x − y‖²/(2σ²)) (seed 000 eq 4.19, L1559)
// given k: every φ(x) has unit norm since k(x, x) = 1, so cos θ = k(x, y)
// (L1565), and θ = arccos exp(−r²/2) for r = ‖x − y‖/σ. It tends to π/2,
// orthogonal, as r grows (L1575), and θ ≈ r for small r (eq 4.22, L1573).
// The chord ‖φ(x) − φ(y)‖_H = √(2 − 2k) is the second value: (4.22) writes
// θ = ‖φ(x) − φ(y)‖_H, which holds only to first order in r.
func GaussAngle(kxy, kxx, kyy float64) (theta, chord float64) {
	c := kxy / math.Sqrt(kxx*kyy)
	c = math.Max(-1, math.Min(1, c))
	return math.Acos(c), math.Sqrt(math.Max(kxx+kyy-2*kxy, 0))
}

// GaussTaylor is the Gaussian kernel's expansion (4.20, L1563) truncated at
// degree deg: e^{−‖x‖²/2σ²} Σ_{j≤deg} (xᵀy)^j/(j! σ^{2j}) e^{−‖y‖²/2σ²}, a
// sum of polynomial kernels of every degree: the feature space is
// infinite-dimensional.
func GaussTaylor(x, y []float64, sigma float64, deg int) float64 {
	s2 := sigma * sigma
	u := dot(x, y) / s2
	term, sum := 1.0, 1.0
	for j := 1; j <= deg; j++ {
		term *= u / float64(j)
		sum += term
	}
	return math.Exp(-dot(x, x)/(2*s2)) * sum * math.Exp(-dot(y, y)/(2*s2))
}
