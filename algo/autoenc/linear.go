// Package autoenc holds autoencoders (seed 000 §3.6–3.6.7, catalogue
// §3.7 and §3.9; seed 002 §6.2.1, F2): the linear autoencoder, whose
// optimum is PCA's subspace at the Eckart–Young floor, a network
// autoencoder on the tape of algo/tensor, denoising or not, and the
// variational autoencoder (vae.go).
package autoenc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Linear is the linear autoencoder x ↦ D E x, E ∈ R^{r×d}, D ∈ R^{d×r},
// trained by gradient descent on
//
//	J(D, E) = (1/N) Σ_i ‖x_i − D E x_i‖²   (seed 000 eq 3.9–3.10)
//
// on centred data. Its minimum is the Eckart–Young floor Σ_{j>r} λ_j, the
// discarded eigenvalues of the (1/N) covariance, reached when DE is the
// orthogonal projector U_r U_rᵀ onto the top-r principal subspace — not
// U_r Σ_r U_rᵀ as L1250 prints (the catalogue's erratum on §3.6): the
// autoencoder recovers the subspace, not the eigenvectors.
type Linear struct {
	X    *mat.Dense // N×d, centred
	E, D *mat.Dense
	lr   float64
	eig  []float64  // eigenvalues of the covariance, decreasing
	U    *mat.Dense // d×r top eigenvectors
	r    int
	// loss, gE, gD and gradSq are J, ∂J/∂E, ∂J/∂D and ‖∇J‖² at the
	// current (D, E), evaluated when they last moved (in NewLinear, then
	// at the end of each Step): the next Step moves along gE and gD, so
	// that a step costs one evaluation and one gradient and what is
	// reported between steps is of the (D, E) that is drawn (issue 28.1).
	loss   float64
	gE, gD *mat.Dense
	gradSq float64
	z, res *mat.Dense // scratch: codes N×r, residuals N×d
	rx     *mat.Dense // scratch: Rᵀ X, d×d
	// The transposes Eᵀ, Dᵀ, Rᵀ, views made once: a view made in a Step
	// is an allocation.
	eT, dT, resT mat.Matrix
	steps        int
}

// NewLinear centres x (N rows of d, copied), draws E and D with entries
// N(0, 0.1²) and prepares steps of size lr.
func NewLinear(x [][]float64, r int, lr float64, rng *rand.Rand) (*Linear, error) {
	n := len(x)
	if n < 2 {
		return nil, algo.BadParam("n", n, "at least 2 points")
	}
	d := len(x[0])
	if d < 1 {
		return nil, algo.BadParam("d", d, "≥ 1")
	}
	if r < 1 || r > d {
		return nil, algo.BadParam("r", r, fmt.Sprintf("in 1..%d (the dimension)", d))
	}
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, algo.BadParam("lr", lr, "> 0")
	}
	X := mat.NewDense(n, d, nil)
	for i, row := range x {
		if len(row) != d || !algo.AllFinite(row) {
			return nil, algo.BadParam("data", fmt.Sprintf("row %d", i), fmt.Sprintf("%d finite numbers", d))
		}
		X.SetRow(i, row)
	}
	for j := range d {
		m := 0.0
		for i := range n {
			m += X.At(i, j)
		}
		m /= float64(n)
		for i := range n {
			X.Set(i, j, X.At(i, j)-m)
		}
	}
	var cov mat.SymDense
	cov.SymOuterK(1/float64(n), X.T())
	var es mat.EigenSym
	if !es.Factorize(&cov, true) {
		return nil, algo.BadParam("data", "covariance", "an eigendecomposition")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	l := &Linear{X: X, lr: lr, r: r, eig: make([]float64, d), U: mat.NewDense(d, r, nil)}
	for j := range d {
		l.eig[j] = vals[d-1-j] // gonum sorts increasing
	}
	for k := range r {
		for i := range d {
			l.U.Set(i, k, vecs.At(i, d-1-k))
		}
	}
	l.E, l.D = mat.NewDense(r, d, nil), mat.NewDense(d, r, nil)
	for _, m := range []*mat.Dense{l.E, l.D} {
		rr, cc := m.Dims()
		for i := range rr {
			for j := range cc {
				m.Set(i, j, 0.1*rng.NormFloat64())
			}
		}
	}
	l.z, l.res = mat.NewDense(n, r, nil), mat.NewDense(n, d, nil)
	l.gE, l.gD = mat.NewDense(r, d, nil), mat.NewDense(d, r, nil)
	l.rx = mat.NewDense(d, d, nil)
	l.eT, l.dT, l.resT = l.E.T(), l.D.T(), l.res.T()
	l.eval()
	return l, nil
}

// eval fills the codes Z = X Eᵀ and the residuals R = X − Z Dᵀ at the
// current (D, E), and from them J = ‖R‖²/N and its gradient
// ∂J/∂D = −(2/N) Rᵀ Z, ∂J/∂E = −(2/N) Dᵀ Rᵀ X.
func (l *Linear) eval() {
	l.z.Mul(l.X, l.eT)
	l.res.Mul(l.z, l.dT)
	l.res.Sub(l.X, l.res)
	n, _ := l.X.Dims()
	f := mat.Norm(l.res, 2)
	l.loss = f * f / float64(n)
	c := -2 / float64(n)
	l.gD.Mul(l.resT, l.z)
	l.rx.Mul(l.resT, l.X)
	l.gE.Mul(l.dT, l.rx)
	// Scaled in place on the raw blocks (mat's Scale of a matrix into
	// itself takes a workspace).
	gD, gE := l.gD.RawMatrix().Data, l.gE.RawMatrix().Data
	floats.Scale(c, gD)
	floats.Scale(c, gE)
	g1, g2 := floats.Norm(gD, 2), floats.Norm(gE, 2)
	l.gradSq = g1*g1 + g2*g2
}

// Step is one gradient step on (D, E) along the gradient at (D, E) kept
// from the last evaluation, D ← D − η ∂J/∂D, E ← E − η ∂J/∂E; then J and
// its gradient at the new (D, E), which Loss and GradNorm report and the
// next Step follows.
func (l *Linear) Step() error {
	// All four from mat.NewDense, each one block of its own.
	floats.AddScaled(l.D.RawMatrix().Data, -l.lr, l.gD.RawMatrix().Data)
	floats.AddScaled(l.E.RawMatrix().Data, -l.lr, l.gE.RawMatrix().Data)
	l.steps++
	l.eval()
	if !algo.Finite(l.loss) || !algo.Finite(l.gradSq) {
		return algo.Diverged("the linear autoencoder's loss is not finite at step %d: lower lr below 1/λ₁ = %.3g", l.steps, 1/l.eig[0])
	}
	return nil
}

// Loss is J at the current (D, E).
func (l *Linear) Loss() float64 { return l.loss }

// GradNorm is ‖∇J‖ in (D, E) at the current (D, E).
func (l *Linear) GradNorm() float64 { return math.Sqrt(l.gradSq) }

// Steps is the number of steps taken.
func (l *Linear) Steps() int { return l.steps }

// Floor is the Eckart–Young floor Σ_{j>r} λ_j.
func (l *Linear) Floor() float64 {
	s := 0.0
	for _, v := range l.eig[l.r:] {
		s += v
	}
	return s
}

// Eigenvalues are the covariance's, decreasing.
func (l *Linear) Eigenvalues() []float64 { return append([]float64(nil), l.eig...) }

// PrincipalAngles returns the principal angles (radians, increasing)
// between the column space of D and the top-r principal subspace: the
// arccos of the singular values of Q_Dᵀ U_r.
func (l *Linear) PrincipalAngles() []float64 {
	return PrincipalAngles(l.D, l.U)
}

// PrincipalAngles is the angles between the column spaces of a and b
// (both d×r of full rank), increasing. With orthonormal bases Q_a, Q_b,
// the cosines are the singular values of Q_aᵀQ_b and the sines those of
// Q_b − Q_a(Q_aᵀQ_b), the part of b's basis outside a's span. An angle
// below π/4 is taken from its sine, one above from its cosine (Knyazev
// and Argentati 2002): the arccos of a cosine near 1 is only good to
// √ε ≈ 1.5e-8, so an autoencoder converging onto PCA's subspace would
// stall at 1.5e-8 rad while its sine goes on falling to rounding level.
func PrincipalAngles(a, b mat.Matrix) []float64 {
	var qa, qb mat.QR
	qa.Factorize(a)
	qb.Factorize(b)
	d, r := a.Dims()
	var A, B mat.Dense
	qa.QTo(&A)
	qb.QTo(&B)
	Aq, Bq := A.Slice(0, d, 0, r), B.Slice(0, d, 0, r)
	var m mat.Dense
	m.Mul(Aq.T(), Bq)
	var outside mat.Dense
	outside.Mul(Aq, &m)
	outside.Sub(Bq, &outside)
	var cs, sn mat.SVD
	if !cs.Factorize(&m, mat.SVDNone) || !sn.Factorize(&outside, mat.SVDNone) {
		return nil
	}
	cos, sin := cs.Values(nil), sn.Values(nil) // both decreasing: angles increasing, decreasing
	out := make([]float64, r)
	for i := range out {
		c, s := cos[i], sin[r-1-i] // the i-th smallest angle's cosine and sine
		if s < math.Sqrt2/2 {
			out[i] = math.Asin(s)
		} else {
			out[i] = math.Acos(math.Min(1, c))
		}
	}
	return out
}

// Projector is DE (d×d): at the optimum, the projector U_r U_rᵀ.
func (l *Linear) Projector() *mat.Dense {
	var p mat.Dense
	p.Mul(l.D, l.E)
	return &p
}
