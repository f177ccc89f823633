package implicit

import (
	"fmt"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ad"
	"gonum.org/v1/gonum/mat"
)

// MaxCond is the condition number of ∂₁F beyond which it is treated as
// singular and the implicit function theorem as failing.
const MaxCond = 1e12

// Implicit holds what the implicit JVP and VJP of w*(λ), defined by
// F(w*, λ) = 0 with w ∈ Rⁿ and λ ∈ Rᵖ, need (§1.8.1): one LU factorisation
// of ∂₁F = ∂F/∂w (n×n) and ∂₂F = ∂F/∂λ (n×p), both at the solution.
//
//	JVP  t_k = −(∂₁F)⁻¹ ∂₂F t_{k−1}        (eqs 1.44–1.46: L y = ∂₂F t, U z = y, t_k = −z)
//	VJP  r_{k−1} = −(∂₂F)ᵀ (∂₁F)⁻ᵀ r_k     (eqs 1.47–1.48: (∂₁F)ᵀ y = r_k, r_{k−1} = −(∂₂F)ᵀ y)
//
// The notes set A = −∂₁F for the JVP and A = ∂₁F for the VJP; one factor
// of ∂₁F serves both, the sign moved onto the result. Once built, every
// JVP and VJP is a pair of triangular solves against the same factors
// ("A is fixed and the linear system can be solved efficiently for each
// JVP by using the LU decomposition of A", L603); Solves counts them and
// the factorisation is never repeated.
type Implicit struct {
	lu     mat.LU
	b      *mat.Dense
	n, p   int
	solves int
	tmp    *mat.VecDense
	rhs    *mat.VecDense
}

// NewImplicit factorises dF1 = ∂₁F (n×n) and keeps dF2 = ∂₂F (n×p). An
// ill-conditioned ∂₁F (condition number above MaxCond) is an error wrapping
// ErrIFTFails.
func NewImplicit(dF1, dF2 mat.Matrix) (*Implicit, error) {
	n, c := dF1.Dims()
	if n == 0 || n != c {
		return nil, algo.BadParam("∂₁F", fmt.Sprintf("%d×%d", n, c), "a non-empty square matrix")
	}
	r, p := dF2.Dims()
	if r != n || p == 0 {
		return nil, algo.BadParam("∂₂F", fmt.Sprintf("%d×%d", r, p), fmt.Sprintf("%d rows and at least one column", n))
	}
	im := &Implicit{n: n, p: p, b: mat.DenseCopyOf(dF2), tmp: mat.NewVecDense(n, nil), rhs: mat.NewVecDense(n, nil)}
	im.lu.Factorize(dF1)
	if cond := im.lu.Cond(); !(cond <= MaxCond) {
		return nil, iftFails("∂₁F is singular (condition number %.3g)", cond)
	}
	return im, nil
}

// Solves is the number of triangular-solve pairs used so far.
func (im *Implicit) Solves() int { return im.solves }

// JVP writes −(∂₁F)⁻¹ ∂₂F t into dst (len n); t has len p.
func (im *Implicit) JVP(dst, t []float64) error {
	if len(t) != im.p || len(dst) != im.n {
		return algo.BadParam("t", len(t), fmt.Sprintf("%d entries, into %d", im.p, im.n))
	}
	im.rhs.MulVec(im.b, mat.NewVecDense(im.p, t))
	if err := im.lu.SolveVecTo(im.tmp, false, im.rhs); err != nil {
		return iftFails("%v", err)
	}
	im.solves++
	for i := range dst {
		dst[i] = -im.tmp.AtVec(i)
	}
	return nil
}

// VJP writes −(∂₂F)ᵀ (∂₁F)⁻ᵀ r into dst (len p); r has len n.
func (im *Implicit) VJP(dst, r []float64) error {
	if len(r) != im.n || len(dst) != im.p {
		return algo.BadParam("r", len(r), fmt.Sprintf("%d entries, into %d", im.n, im.p))
	}
	if err := im.lu.SolveVecTo(im.tmp, true, mat.NewVecDense(im.n, r)); err != nil {
		return iftFails("%v", err)
	}
	im.solves++
	out := mat.NewVecDense(im.p, dst)
	out.MulVec(im.b.T(), im.tmp)
	out.ScaleVec(-1, out)
	return nil
}

// Partials splits the Jacobian of a scalar graph whose outputs are
// F_1..F_n and whose first nw inputs are w (the rest λ) into ∂₁F (n×nw) and
// ∂₂F (n×(inputs − nw)), by reverse mode (one VJP per output), at the
// graph's current input values.
func Partials(g *ad.Graph, nw int) (dF1, dF2 *mat.Dense, err error) {
	n, in := len(g.Outputs()), len(g.Inputs())
	if nw < 1 || nw >= in {
		return nil, nil, algo.BadParam("nw", nw, fmt.Sprintf("in 1..%d (the rest are parameters)", in-1))
	}
	jac, err := ad.NewJacobian(g, ad.ReverseMode)
	if err != nil {
		return nil, nil, err
	}
	J, err := jac.Run()
	if err != nil {
		return nil, nil, err
	}
	return mat.DenseCopyOf(J.Slice(0, n, 0, nw)), mat.DenseCopyOf(J.Slice(0, n, nw, in)), nil
}
