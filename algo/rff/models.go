package rff

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Features is the random Fourier feature map of a fixed set of points,
// grown one frequency at a time (seed 004 L49, L77):
//
//	φ_m(x) = m^{−½}(cos w_1ᵀx, sin w_1ᵀx, …, cos w_mᵀx, sin w_mᵀx) ∈ R^{2m},
//
// so that φ_m(x)ᵀφ_m(z) = K̂_m(x, z) = (1/m)Σ_l cos w_lᵀ(x − z), the RFF
// estimate of the Gaussian kernel of the sampler. A model on these features
// is a linear model in R^{2m}, and its kernel twin uses K̂_m (the cross-seed
// items X1–X3 of the seed-003/004 catalogue).
type Features struct {
	s    *Sampler
	x    [][]float64
	raw  [][]float64 // per point, (cos, sin) pairs unscaled, capacity 2·mMax
	w    []float64
	m    int
	mMax int
}

// FeaturesFootprint is the bytes NewFeatures allocates for n points in d
// dimensions with at most mMax frequencies.
func FeaturesFootprint(n, d, mMax int) int64 {
	return int64(n)*(24+16*int64(mMax)) + 8*int64(d)
}

// NewFeatures maps the points x (not copied) with frequencies from s, up
// to mMax of them.
func NewFeatures(x [][]float64, s *Sampler, mMax int) (*Features, error) {
	if len(x) == 0 {
		return nil, algo.BadParam("points", 0, "at least one point")
	}
	if s == nil {
		return nil, algo.BadParam("sampler", nil, "a frequency sampler")
	}
	if mMax < 1 {
		return nil, algo.BadParam("m_max", mMax, "≥ 1")
	}
	for i, p := range x {
		if len(p) != s.d {
			return nil, algo.BadParam("d", len(p), fmt.Sprintf("the sampler's dimension %d (point %d)", s.d, i))
		}
	}
	f := &Features{s: s, x: x, raw: make([][]float64, len(x)), w: make([]float64, s.d), mMax: mMax}
	for i := range f.raw {
		f.raw[i] = make([]float64, 0, 2*mMax)
	}
	return f, nil
}

// Add draws one more frequency; it returns algo.ErrConverged at mMax. It
// does not allocate.
func (f *Features) Add() error {
	if f.m >= f.mMax {
		return algo.ErrConverged
	}
	f.s.Next(f.w)
	for i, p := range f.x {
		t := dot(f.w, p)
		f.raw[i] = append(f.raw[i], math.Cos(t), math.Sin(t))
	}
	f.m++
	return nil
}

// M is the number of frequencies.
func (f *Features) M() int { return f.m }

// Phi writes φ_m(x_i) (length 2m) into dst and returns it.
func (f *Features) Phi(i int, dst []float64) []float64 {
	dst = dst[:2*f.m]
	c := 1 / math.Sqrt(float64(f.m))
	for j, v := range f.raw[i] {
		dst[j] = c * v
	}
	return dst
}

// Kernel returns K̂_m(x_i, x_j) = φ_m(x_i)ᵀφ_m(x_j).
func (f *Features) Kernel(i, j int) float64 {
	return dot(f.raw[i], f.raw[j]) / float64(f.m)
}

// WeightSpaceGP is Bayesian linear regression on the features, the weight
// space view of a GP (seed 003 L840–874, with the RFF map of seed 004 L77;
// catalogue X1): prior θ ~ N(0, I_{2m}), so that Cov f = ΦΦᵀ = K̂_m, noise
// y = φ(x)ᵀθ + ε, ε ~ N(0, σ²) (σ² a variance: erratum 1 of the catalogue,
// seed 003's 1/σ² on the diagonal, is avoided). With A = ΦᵀΦ + σ²I_{2m},
//
//	mean f(x*) = φ(x*)ᵀA⁻¹Φᵀy,  var f(x*) = σ²φ(x*)ᵀA⁻¹φ(x*),
//
// which equal the function-space posterior k̂ᵀ(K̂ + σ²I)⁻¹y and
// K̂(x*, x*) − k̂ᵀ(K̂ + σ²I)⁻¹k̂ with the kernel K̂_m exactly (push-through
// identity), in O(nm² + m³) instead of O(n³): the m^{−½} approximation
// of the exact-kernel GP. The points of f are the n training points
// followed by the test points.
type WeightSpaceGP struct {
	f      *Features
	n      int
	y      []float64
	noise  float64
	mean   []float64 // at the test points
	vr     []float64
	phi    []float64 // 2m scratch
	rhs    []float64
	aData  []float64 // A, then its Cholesky factor U (A = UᵀU) in place
	solVec []float64
	xs     []float64 // 2m × n_test: U⁻ᵀ applied to the test features
}

// WeightSpaceGPFootprint is the bytes NewWeightSpaceGP allocates at mMax
// for nTest test points, besides its Features: A (factorised in place),
// U⁻ᵀΦ*ᵀ and vectors. Refit allocates nothing.
func WeightSpaceGPFootprint(nTest, mMax int) int64 {
	p := int64(2 * mMax)
	return 8*p*p + 8*(3*p+2*int64(nTest)) + 8*p*int64(nTest)
}

// NewWeightSpaceGP conditions on y at the first len(y) points of f (the
// rest are test points) with noise variance noise > 0.
func NewWeightSpaceGP(f *Features, y []float64, noise float64) (*WeightSpaceGP, error) {
	if f == nil {
		return nil, algo.BadParam("features", nil, "a feature map")
	}
	n := len(y)
	if n == 0 || n > len(f.x) {
		return nil, algo.BadParam("y", n, fmt.Sprintf("1..%d targets", len(f.x)))
	}
	if !(noise > 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite variance > 0")
	}
	p := 2 * f.mMax
	g := &WeightSpaceGP{
		f: f, n: n, y: y, noise: noise,
		mean: make([]float64, len(f.x)-n), vr: make([]float64, len(f.x)-n),
		phi: make([]float64, p), rhs: make([]float64, p), aData: make([]float64, p*p), solVec: make([]float64, p),
		xs: make([]float64, p*(len(f.x)-n)),
	}
	return g, nil
}

// Step adds one frequency and recomputes the posterior at the test points.
func (g *WeightSpaceGP) Step() error {
	if err := g.f.Add(); err != nil {
		return err
	}
	return g.Refit()
}

// Refit recomputes the posterior for the features as they are (after
// frequencies added to the Features directly), in O(nm² + m³ + n_test m²).
func (g *WeightSpaceGP) Refit() error {
	p := 2 * g.f.m
	a := g.aData[:p*p]
	for i := range a {
		a[i] = 0
	}
	rhs := g.rhs[:p]
	for i := range rhs {
		rhs[i] = 0
	}
	for i := 0; i < g.n; i++ {
		phi := g.f.Phi(i, g.phi)
		for r, u := range phi {
			rhs[r] += u * g.y[i]
			row := a[r*p : (r+1)*p]
			for c := r; c < p; c++ {
				row[c] += u * phi[c]
			}
		}
	}
	for r := 0; r < p; r++ {
		a[r*p+r] += g.noise
		for c := r + 1; c < p; c++ {
			a[c*p+r] = a[r*p+c]
		}
	}
	u, ok := lapack64.Potrf(blas64.Symmetric{N: p, Stride: p, Uplo: blas.Upper, Data: a})
	if !ok {
		return fmt.Errorf("ΦᵀΦ + σ²I not positive definite at m = %d", g.f.m)
	}
	theta := g.solVec[:p]
	copy(theta, rhs)
	blas64.Trsv(blas.Trans, u, blas64.Vector{N: p, Inc: 1, Data: theta})   // Uᵀz = Φᵀy
	blas64.Trsv(blas.NoTrans, u, blas64.Vector{N: p, Inc: 1, Data: theta}) // Uθ = z
	// Variances: X = U⁻ᵀΦ*ᵀ by one triangular solve with all test points
	// as columns (A = UᵀU), var_t = σ²‖X_t‖².
	nt := len(g.mean)
	xs := g.xs[:p*nt]
	for t := 0; t < nt; t++ {
		phi := g.f.Phi(g.n+t, g.phi)
		g.mean[t] = dot(phi, g.solVec[:p])
		for r, u := range phi {
			xs[r*nt+t] = u
		}
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, u, blas64.General{Rows: p, Cols: nt, Stride: nt, Data: xs})
	for t := range g.vr {
		g.vr[t] = 0
	}
	for r := 0; r < p; r++ {
		for t, v := range xs[r*nt : (r+1)*nt] {
			g.vr[t] += v * v
		}
	}
	for t := range g.vr {
		g.vr[t] *= g.noise
	}
	return nil
}

// Theta returns the posterior mean of the weights, A⁻¹Φᵀy (a view of 2m).
func (g *WeightSpaceGP) Theta() []float64 { return g.solVec[:2*g.f.m] }

// Mean returns the posterior mean at the test points (a view).
func (g *WeightSpaceGP) Mean() []float64 { return g.mean }

// Var returns the posterior latent variance at the test points (a view).
func (g *WeightSpaceGP) Var() []float64 { return g.vr }

// M is the number of frequencies.
func (g *WeightSpaceGP) M() int { return g.f.m }
