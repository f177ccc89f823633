package implicit

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// LPTol is the tolerance below which a primal value or a reduced cost of a
// linear program counts as zero.
const LPTol = 1e-9

// LPSolution is the optimum of the standard-form linear program (eq 1.49)
//
//	min cᵀx  s.t.  Ax = b, x ≥ 0        (dual: max bᵀy s.t. Aᵀy ≤ c, eq 1.50)
//
// with its sensitivity to b from the implicit function theorem applied to
// the KKT conditions (eqs 1.51–1.53):
//
//	F((x, y), b) = [Ax − b ; Diag(x)(Aᵀy − c)] = 0,
//	∂F/∂(x, y) = [[A, 0], [Diag(Aᵀy − c), Diag(x)Aᵀ]],   ∂F/∂b = [−I ; 0],
//
// so d(x, y)/db = (∂F/∂(x, y))⁻¹ [I ; 0]. At a non-degenerate, strictly
// complementary vertex this equals the basis inverse on the basic variables
// and 0 elsewhere, and d(cᵀx*)/db = y*.
type LPSolution struct {
	X     []float64  // x*, n entries
	Y     []float64  // y*, m entries (from B_ᵀy = c_B; simplex gives no duals)
	Obj   float64    // cᵀx*
	Basis []int      // the m basic columns, ascending
	DxDb  *mat.Dense // n×m: ∂x*/∂b
	DyDb  *mat.Dense // m×m: ∂y*/∂b
	KKT   *mat.Dense // (n+m)×(n+m): ∂F/∂(x, y) at the optimum (eq 1.53)
}

// SolveLP solves the program with gonum's simplex, recovers the duals and
// differentiates the solution through the KKT system. A degenerate vertex
// (fewer than m positive x_j) or a solution that is not strictly
// complementary (a non-basic reduced cost c_j − (Aᵀy)_j of 0: several
// optima) makes the KKT Jacobian singular; the error then wraps
// ErrIFTFails and comes with the solution found so far (X and Obj, and Y
// when the basis allows), without its sensitivities.
func SolveLP(c []float64, A mat.Matrix, b []float64) (*LPSolution, error) {
	m, n := A.Dims()
	if m == 0 || n < m {
		return nil, algo.BadParam("A", fmt.Sprintf("%d×%d", m, n), "at least as many columns as rows, and at least one row")
	}
	if len(c) != n {
		return nil, algo.BadParam("c", len(c), fmt.Sprintf("%d entries (the columns of A)", n))
	}
	if len(b) != m {
		return nil, algo.BadParam("b", len(b), fmt.Sprintf("%d entries (the rows of A)", m))
	}
	for _, v := range [][]float64{c, b} {
		if !algo.AllFinite(v) {
			return nil, algo.BadParam("c, b", v, "finite numbers")
		}
	}
	obj, x, err := lp.Simplex(c, A, b, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("simplex: %w", err)
	}
	s := &LPSolution{X: x, Obj: obj}
	for j, v := range x {
		if v > LPTol {
			s.Basis = append(s.Basis, j)
		}
	}
	if len(s.Basis) != m {
		return s, iftFails("degenerate vertex: %d positive variables for %d constraints", len(s.Basis), m)
	}
	// Duals: B_ᵀ y = c_B.
	B := mat.NewDense(m, m, nil)
	cB := mat.NewVecDense(m, nil)
	for k, j := range s.Basis {
		B.SetCol(k, mat.Col(nil, j, A))
		cB.SetVec(k, c[j])
	}
	var y mat.VecDense
	if err := y.SolveVec(B.T(), cB); err != nil {
		return s, iftFails("basis is singular: %v", err)
	}
	s.Y = mat.Col(nil, 0, &y)
	// Reduced costs Aᵀy − c; strict complementarity off the basis.
	var aty mat.VecDense
	aty.MulVec(A.T(), &y)
	red := make([]float64, n)
	for j := range red {
		red[j] = aty.AtVec(j) - c[j]
	}
	basic := make([]bool, n)
	for _, j := range s.Basis {
		basic[j] = true
	}
	for j := range red {
		if !basic[j] && math.Abs(red[j]) <= LPTol {
			return s, iftFails("not strictly complementary: x_%d = 0 with reduced cost 0 (the optimum is not unique)", j+1)
		}
	}
	// The KKT Jacobian (1.53) and the solve for d(x, y)/db.
	K := mat.NewDense(m+n, n+m, nil)
	K.Slice(0, m, 0, n).(*mat.Dense).Copy(A)
	for j := range n {
		K.Set(m+j, j, red[j])
		for i := range m {
			K.Set(m+j, n+i, x[j]*A.At(i, j))
		}
	}
	s.KKT = K
	var lu mat.LU
	lu.Factorize(K)
	if cond := lu.Cond(); !(cond <= MaxCond) {
		return s, iftFails("the KKT Jacobian is singular (condition number %.3g)", cond)
	}
	rhs := mat.NewDense(m+n, m, nil) // −∂F/∂b = [I ; 0]
	for i := range m {
		rhs.Set(i, i, 1)
	}
	var sol mat.Dense
	if err := lu.SolveTo(&sol, false, rhs); err != nil {
		return s, iftFails("%v", err)
	}
	s.DxDb = mat.DenseCopyOf(sol.Slice(0, n, 0, m))
	s.DyDb = mat.DenseCopyOf(sol.Slice(n, n+m, 0, m))
	return s, nil
}
