package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// Center returns the centred Gram matrix K̃ = K − 1_N K − K 1_N + 1_N K 1_N,
// 1_N the N×N matrix of 1/N: K̃_ij = K_ij − r_i − r_j + s with r the row
// means and s the grand mean (seed 000 eq 4.60, L1816). It is the Gram
// matrix of the features centred in feature space.
func Center(gram []float64, n int) []float64 {
	r := make([]float64, n)
	s := 0.0
	for i := 0; i < n; i++ {
		for _, v := range gram[i*n : (i+1)*n] {
			r[i] += v
		}
		s += r[i]
		r[i] /= float64(n)
	}
	s /= float64(n * n)
	out := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			out[i*n+j] = gram[i*n+j] - r[i] - r[j] + s
		}
	}
	return out
}

// KPCA is kernel PCA (seed 000 §4.8.3, Algorithms 2 and 3): the centred
// Gram matrix K̃ (4.60) has eigenpairs K̃u_k = λ̃_k u_k; the k-th component
// has variance λ̃_k/N (the nonzero eigenvalues of the feature covariance
// (1/N)Φ̃Φ̃ᵀ; Algorithm 2 step 5, L1781, writes (1/N)K̃K̃ᵀ ∈ R^{h×h}, with
// the wrong dimensions: erratum of the seed-000 catalogue), and training
// point j projects to y_k(x_j) = Σ_i (α_k)_i K̃_ij = √λ̃_k (u_k)_j with
// α_k = u_k/√λ̃_k (4.61, 4.62).
//
// The exact spectrum comes from a symmetric eigendecomposition at
// construction. The engine then finds the leading components the way a
// large problem would, by subspace iteration with Rayleigh–Ritz: one Step
// multiplies the current orthonormal block Q (n×q) by K̃, re-orthonormalises
// it (modified Gram–Schmidt) and rotates it to the eigenvectors of QᵀK̃Q.
// The block converges to the top eigenvectors at the rate λ̃_{q+1}/λ̃_k; the
// run ends (ErrConverged) when the residual ‖K̃u − λ̃u‖ of each of the first
// Components Ritz pairs is at most Tol·λ̃_1.
type KPCA struct {
	n, q, c int
	tol     float64
	kc      []float64 // K̃, n×n
	exact   []float64 // eigenvalues of K̃, descending
	qm      []float64 // Q, n×q row-major
	z       []float64 // scratch n×q
	h       *mat.SymDense
	eig     mat.EigenSym
	vecs    mat.Dense
	ritz    []float64 // Ritz values, descending
	resid   []float64 // residual norms of the Ritz pairs, relative to λ̃_1
	vals    []float64 // scratch: eigenvalues of H, ascending
	row     []float64 // scratch rows of Q V and K̃Q V
	zrow    []float64
	k       int
}

// KPCAFootprint is the bytes NewKPCA holds for n points and that many
// components: K̃, the exact spectrum, the block Q and its scratch (the
// components and four guard vectors each), and the eigensolver's pooled
// workspace (eigenWork). The Gram matrix is the caller's, garbage once
// centred.
func KPCAFootprint(n, components int) int64 {
	q := int64(min(n, components+4))
	return 8*int64(n)*int64(n) + 8*int64(n)*(1+2*q) + eigenWork(n)
}

// NewKPCA centres the Gram matrix (n×n row-major, not kept), computes its
// exact spectrum and starts subspace iteration for components leading
// eigenpairs from a random block (rng). The block carries a few guard
// vectors beyond components, which speeds convergence.
func NewKPCA(gram []float64, n, components int, tol float64, rng *rand.Rand) (*KPCA, error) {
	if n < 2 {
		return nil, algo.BadParam("data", n, "at least 2 points")
	}
	if len(gram) != n*n {
		return nil, algo.BadParam("gram", len(gram), fmt.Sprintf("an %d×%d matrix", n, n))
	}
	if components < 1 || components > n {
		return nil, algo.BadParam("components", components, fmt.Sprintf("in 1..%d", n))
	}
	if !(tol > 0) {
		return nil, algo.BadParam("tol", tol, "> 0")
	}
	q := min(n, components+4)
	p := &KPCA{
		n: n, q: q, c: components, tol: tol,
		kc: Center(gram, n),
		qm: make([]float64, n*q), z: make([]float64, n*q),
		h:    mat.NewSymDense(q, nil),
		ritz: make([]float64, q), resid: make([]float64, q),
		vals: make([]float64, q), row: make([]float64, q), zrow: make([]float64, q),
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, append([]float64(nil), p.kc...)), false) {
		return nil, fmt.Errorf("kernel PCA: eigendecomposition failed")
	}
	ev := eig.Values(nil)
	p.exact = make([]float64, n)
	for i, v := range ev {
		p.exact[n-1-i] = v
	}
	for i := range p.qm {
		p.qm[i] = rng.NormFloat64()
	}
	orthonormalise(p.qm, n, q)
	p.rayleighRitz()
	return p, nil
}

// mulK sets dst = K̃ src for n×q row-major blocks.
func (p *KPCA) mulK(dst, src []float64) {
	n, q := p.n, p.q
	for i := 0; i < n; i++ {
		row := p.kc[i*n : (i+1)*n]
		out := dst[i*q : (i+1)*q]
		for c := range out {
			out[c] = 0
		}
		for j, v := range row {
			if v == 0 {
				continue
			}
			s := src[j*q : (j+1)*q]
			for c := range out {
				out[c] += v * s[c]
			}
		}
	}
}

// orthonormalise makes the q columns of the n×q row-major block a
// orthonormal by modified Gram–Schmidt (a column that vanishes is left
// zero).
func orthonormalise(a []float64, n, q int) {
	for c := 0; c < q; c++ {
		for pc := 0; pc < c; pc++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += a[i*q+c] * a[i*q+pc]
			}
			for i := 0; i < n; i++ {
				a[i*q+c] -= s * a[i*q+pc]
			}
		}
		norm := 0.0
		for i := 0; i < n; i++ {
			norm += a[i*q+c] * a[i*q+c]
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			a[i*q+c] /= norm
		}
	}
}

// rayleighRitz rotates Q to the eigenvectors of H = QᵀK̃Q, sets the Ritz
// values and the residuals ‖K̃u − θu‖, and fixes each vector's sign so that
// its largest entry is positive.
func (p *KPCA) rayleighRitz() {
	n, q := p.n, p.q
	p.mulK(p.z, p.qm)
	for a := 0; a < q; a++ {
		for b := a; b < q; b++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += p.qm[i*q+a] * p.z[i*q+b]
			}
			p.h.SetSym(a, b, s)
		}
	}
	if !p.eig.Factorize(p.h, true) {
		return
	}
	vals := p.eig.Values(p.vals)
	p.eig.VectorsTo(&p.vecs)
	// New Q = Q V and K̃Q V, with the columns in descending order.
	row, zrow := p.row, p.zrow
	for i := 0; i < n; i++ {
		for c := 0; c < q; c++ {
			src := q - 1 - c
			s, t := 0.0, 0.0
			for b := 0; b < q; b++ {
				v := p.vecs.At(b, src)
				s += p.qm[i*q+b] * v
				t += p.z[i*q+b] * v
			}
			row[c], zrow[c] = s, t
		}
		copy(p.qm[i*q:], row)
		copy(p.z[i*q:], zrow)
	}
	for c := 0; c < q; c++ {
		p.ritz[c] = vals[q-1-c]
	}
	top := math.Max(math.Abs(p.exact[0]), 1e-300)
	for c := 0; c < q; c++ {
		big, r := 0.0, 0.0
		for i := 0; i < n; i++ {
			u := p.qm[i*q+c]
			if math.Abs(u) > math.Abs(big) {
				big = u
			}
			d := p.z[i*q+c] - p.ritz[c]*u
			r += d * d
		}
		p.resid[c] = math.Sqrt(r) / top
		if big < 0 {
			for i := 0; i < n; i++ {
				p.qm[i*q+c] = -p.qm[i*q+c]
				p.z[i*q+c] = -p.z[i*q+c]
			}
		}
	}
}

// Step takes one subspace iteration. It returns ErrConverged (before
// moving) once the first Components residuals are at most Tol·λ̃_1.
func (p *KPCA) Step() error {
	if p.Residual() <= p.tol {
		return algo.ErrConverged
	}
	p.mulK(p.z, p.qm)
	p.qm, p.z = p.z, p.qm
	orthonormalise(p.qm, p.n, p.q)
	p.rayleighRitz()
	p.k++
	return nil
}

// Residual is the largest relative residual of the first Components Ritz
// pairs.
func (p *KPCA) Residual() float64 {
	r := 0.0
	for c := 0; c < p.c; c++ {
		r = math.Max(r, p.resid[c])
	}
	return r
}

// Iter is the number of steps taken.
func (p *KPCA) Iter() int { return p.k }

// Exact returns the eigenvalues λ̃ of K̃ in descending order (a view).
func (p *KPCA) Exact() []float64 { return p.exact }

// Ritz returns the current estimates of the leading eigenvalues of K̃
// (Components of them, descending; a fresh slice).
func (p *KPCA) Ritz() []float64 { return append([]float64(nil), p.ritz[:p.c]...) }

// Project returns the current coordinates of the training points on
// component c (0-based, < Components): y_c(x_j) = √λ̃_c (u_c)_j, a fresh
// slice.
func (p *KPCA) Project(c int) []float64 {
	s := math.Sqrt(math.Max(p.ritz[c], 0))
	out := make([]float64, p.n)
	for j := range out {
		out[j] = s * p.qm[j*p.q+c]
	}
	return out
}
