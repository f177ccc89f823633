package mcmc

import (
	"math"

	"github.com/thelab/lab/algo"
)

// FiniteKernel builds the Metropolis–Hastings transition matrix on the
// finite state space {0, ..., n−1} for an unnormalised target p (p_i > 0)
// and a proposal matrix q (q_ij = π(j | i), rows summing to one):
//
//	T_ij = q_ij · min(1, p_j q_ji / (p_i q_ij))   for j ≠ i with q_ij > 0,
//	T_ij = 0                                        for j ≠ i with q_ij = 0,
//	T_ii = 1 − Σ_{j≠i} T_ij                         (rejections stay put).
//
// This is eq 3.2 (seed 002 L1078) with the Hastings correction, so the
// kernel satisfies detailed balance p_i T_ij = p_j T_ji (eq 3.1, Remark 3.3)
// for any proposal with q_ij > 0 ⇔ q_ji > 0, and hence pT = p: the
// catalogue's oracle (i) for C4 (seed-002-catalog). With a symmetric q it is
// the Metropolis kernel of Remark 3.4.
//
// It returns a ParamError naming "p" or "q" when p is not positive and
// finite, q is not square of p's size with non-negative rows summing to one
// (within 1e-12), or q_ij > 0 while q_ji = 0 (the Hastings ratio would be
// undefined).
func FiniteKernel(p []float64, q [][]float64) ([][]float64, error) {
	n := len(p)
	if n == 0 {
		return nil, algo.BadParam("p", p, "a non-empty vector of positive finite numbers")
	}
	for _, pi := range p {
		if !(pi > 0) || math.IsInf(pi, 0) {
			return nil, algo.BadParam("p", p, "a non-empty vector of positive finite numbers")
		}
	}
	const rowsSum = "an n×n matrix with non-negative rows summing to 1 and q_ij > 0 ⇔ q_ji > 0"
	if len(q) != n {
		return nil, algo.BadParam("q", q, rowsSum)
	}
	for i, row := range q {
		if len(row) != n {
			return nil, algo.BadParam("q", q, rowsSum)
		}
		s := 0.0
		for j, qij := range row {
			if !(qij >= 0) || math.IsInf(qij, 0) || (qij > 0) != (q[j][i] > 0) {
				return nil, algo.BadParam("q", q, rowsSum)
			}
			s += qij
		}
		if math.Abs(s-1) > 1e-12 {
			return nil, algo.BadParam("q", q, rowsSum)
		}
	}
	t := make([][]float64, n)
	for i := range t {
		t[i] = make([]float64, n)
		stay := 1.0
		for j := range t[i] {
			if j == i || q[i][j] == 0 {
				continue
			}
			alpha := math.Min(1, p[j]*q[j][i]/(p[i]*q[i][j]))
			t[i][j] = q[i][j] * alpha
			stay -= t[i][j]
		}
		t[i][i] = stay
	}
	return t, nil
}
