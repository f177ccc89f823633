// Package ot holds what the optimal-transport engines of seed 002 chapter 5
// share: discrete transport problems, ground costs, the validation of
// masses, weights and costs, the built-in data and the rules for user data.
// The engines live in sub-packages: assign (Monge maps by enumeration, the
// Hungarian algorithm), lp (the Kantorovich linear programme: the
// transportation simplex and gonum's simplex), oned (1-D OT by quantile
// functions, geodesics, barycenters, distances), gauss (OT between
// Gaussians) and sinkhorn (entropic OT, plain and log-domain, and 2-D
// barycenters).
//
// Conventions. μ = Σ_i μ_i δ_{x_i} and ν = Σ_j ν_j δ_{y_j} (eq 5.1, L2059),
// C_ij = c(x_i, y_j), and a plan P is an n×m matrix stored row-major:
// P_ij at P[i*m+j], with P 1 = μ and Pᵀ 1 = ν (eq 5.5). Masses are
// validated, never silently rescaled: the two totals must agree within
// MassTol; they are then divided by their own sums so that both are
// probability vectors to rounding (the catalogue's E2 advice).
//
// The entropic regularisation is written with ε, the weight of the entropy
// in ⟨C, π⟩ − ε H(π). The notes' (5.11) write the same problem as
// ⟨C, π⟩ − (1/λ) H(π) with K = exp(−λC) (L2286–2302): λ multiplies the
// cost, and ε = 1/λ (seed-002 catalogue §4, L2302).
package ot

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// MassTol is the relative tolerance on the totals of the two sides: a
// problem is accepted when |Σμ − Σν| ≤ MassTol·max(Σμ, Σν), and refused
// otherwise with both sums in the message.
const MassTol = 1e-6

// CheckWeights returns the total of w, or a *algo.ParamError naming name
// when w is empty, holds a negative or non-finite weight, or sums to zero.
func CheckWeights(name string, w []float64) (float64, error) {
	if len(w) == 0 {
		return 0, algo.BadParam(name, "no atoms", "at least one atom")
	}
	s := 0.0
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return 0, algo.BadParam(name, fmt.Sprintf("%s[%d] = %g", name, i, v), "finite weights ≥ 0")
		}
		s += v
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return 0, algo.BadParam(name, fmt.Sprintf("total mass %g", s), "a finite positive total mass")
	}
	return s, nil
}

// Unbalanced reports whether two totals differ by more than MassTol
// relative to the larger.
func Unbalanced(a, b float64) bool {
	return math.Abs(a-b) > MassTol*math.Max(a, b)
}

// Marginals checks μ and ν (CheckWeights, naming "mu" and "nu") and that
// their totals agree within MassTol, and returns copies divided by their
// own totals. The refusal of unequal totals names "nu" and shows both sums.
func Marginals(mu, nu []float64) (a, b []float64, err error) {
	sa, err := CheckWeights("mu", mu)
	if err != nil {
		return nil, nil, err
	}
	sb, err := CheckWeights("nu", nu)
	if err != nil {
		return nil, nil, err
	}
	if Unbalanced(sa, sb) {
		return nil, nil, algo.BadParam("nu", fmt.Sprintf("total mass %.10g", sb),
			fmt.Sprintf("the total mass of mu, %.10g, within a relative %g (masses are not rescaled to force it)", sa, MassTol))
	}
	return Normalised(mu, sa), Normalised(nu, sb), nil
}

// Validate checks a discrete problem's marginals (Marginals, which
// returns them normalised) and its n×m cost (CheckCost): what every
// engine's constructor checks first.
func Validate(mu, nu, c []float64) (a, b []float64, err error) {
	if a, b, err = Marginals(mu, nu); err != nil {
		return nil, nil, err
	}
	if err := CheckCost(c, len(a), len(b)); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// Normalised returns a copy of w divided by sum.
func Normalised(w []float64, sum float64) []float64 {
	out := make([]float64, len(w))
	for i, v := range w {
		out[i] = v / sum
	}
	return out
}

// CheckCost returns a *algo.ParamError naming "cost" unless c is an n×m
// matrix of finite numbers.
func CheckCost(c []float64, n, m int) error {
	if len(c) != n*m {
		return algo.BadParam("cost", fmt.Sprintf("%d entries", len(c)), fmt.Sprintf("an %d×%d matrix (%d entries)", n, m, n*m))
	}
	for k, v := range c {
		if !algo.Finite(v) {
			return algo.BadParam("cost", fmt.Sprintf("C[%d][%d] = %g", k/m, k%m, v), "finite numbers")
		}
	}
	return nil
}

// PlanCost returns ⟨C, P⟩ = Σ_ij C_ij P_ij (eq 5.6).
func PlanCost(c, p []float64) float64 {
	s := 0.0
	for k, v := range p {
		if v != 0 {
			s += c[k] * v
		}
	}
	return s
}

// MarginalError returns ‖P 1 − μ‖₁ and ‖Pᵀ 1 − ν‖₁ for an n×m plan P.
func MarginalError(p, mu, nu []float64) (rows, cols float64) {
	n, m := len(mu), len(nu)
	for i := range n {
		s := 0.0
		for _, v := range p[i*m : (i+1)*m] {
			s += v
		}
		rows += math.Abs(s - mu[i])
	}
	for j := range m {
		s := 0.0
		for i := range n {
			s += p[i*m+j]
		}
		cols += math.Abs(s - nu[j])
	}
	return rows, cols
}
