package lp

import (
	"github.com/thelab/lab/algo/ot"
	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
)

// Reference solves the same problem with gonum's general simplex
// (optimize/convex/lp.Simplex, a black box with no pivot callback):
// Algorithm 4 of the notes with "any generic LP solver". The variables are
// the n·m entries of P (row-major); the equalities are the n row sums and
// the first m − 1 column sums. The last column sum is dropped: the n + m
// marginal rows have rank n + m − 1 (they sum to the same total), and
// gonum requires a full row rank — with every row it fails with "lp: A is
// singular" (seed-002 catalogue E2 and §5). The inputs are checked as
// ot.Validate does. The dense
// constraint matrix has (n + m − 1)·n·m entries.
func Reference(mu, nu, c []float64) (plan []float64, cost float64, err error) {
	a, b, err := ot.Validate(mu, nu, c)
	if err != nil {
		return nil, 0, err
	}
	n, m := len(a), len(b)
	rows := n + m - 1
	A := mat.NewDense(rows, n*m, nil)
	rhs := make([]float64, rows)
	for i := range n {
		for j := range m {
			A.Set(i, i*m+j, 1)
			if j < m-1 {
				A.Set(n+j, i*m+j, 1)
			}
		}
		rhs[i] = a[i]
	}
	copy(rhs[n:], b[:m-1])
	cost, plan, err = gonumlp.Simplex(c, A, rhs, 1e-10, nil)
	return plan, cost, err
}
