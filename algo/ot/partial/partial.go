// Package partial solves partial optimal transport exactly (Caffarelli &
// McCann 2010; Figalli 2010; Chapel, Alaya & Gasso 2020, "Partial optimal
// transport with applications on positive-unlabeled learning", §3 and
// Prop 1; POT's ot.partial.partial_wasserstein): between masses a (n) and
// b (m) whose totals may differ, move only a mass s ≤ min(‖a‖₁, ‖b‖₁) at
// least cost,
//
//	PW(s) = min ⟨C, T⟩ over T ≥ 0 with T1 ≤ a, Tᵀ1 ≤ b, 1ᵀT1 = s.
//
// The dummy-point reduction to a balanced problem. Add a dummy target (a
// column that absorbs what each source keeps) of mass ‖a‖₁ − s, and a
// dummy source (a row that feeds what each target does not receive) of
// mass ‖b‖₁ − s; both sides then carry ‖a‖₁ + ‖b‖₁ − s. The
// extended cost is
//
//	C̄ = [ C   0 ]
//	    [ 0ᵀ  A ],
//
// zero between a real point and a dummy, A on the dummy–dummy cell. In a
// balanced plan T̄ of the extended problem with dummy–dummy flow t, the
// real rows carry ‖a‖₁ of which ‖a‖₁ − s − t goes to the dummy column, so
// the real block T has mass s + t, T1 ≤ a and Tᵀ1 ≤ b, and ⟨C̄, T̄⟩ =
// ⟨C, T⟩ + A t. If t > 0, remove a mass t from T (any R with 0 ≤ R ≤ T of
// mass t) and add R1 to the dummy column and Rᵀ1 to the dummy row: the
// plan stays feasible, t becomes 0, and the cost changes by −⟨C, R⟩ − A t
// < 0 whenever A > −min C. So with A > max(0, −min C) every optimal T̄ has
// t = 0, its real block is a feasible partial plan of mass s, and
// conversely every partial plan of mass s extends with t = 0 at the same
// cost: the two optima are equal. (Chapel et al.'s Prop 1 puts a constant
// ξ on the dummy cells and 2ξ + A, A > 0, on the dummy–dummy one; here
// ξ = 0, and POT's code takes A = 2 max C.) This package takes POT's
// A = 2 max C (A = 1 when C = 0), which scales with C: the simplex's
// pivoting tolerance is relative to the largest cost of C̄, so an A that
// did not scale with C (A = 1 + 2 max C, say) would swamp a small C
// (max C = 10⁻⁹) and return plans far from optimal. The extended problem
// is solved with the transportation simplex of algo/ot/lp.
//
// As a function of s, PW is non-decreasing (for C ≥ 0: a plan of mass s
// scaled by s′/s ≤ 1 is feasible for s′) and convex (the value of a
// linear programme as a function of its right-hand side), piecewise
// linear: the cheapest mass moves first.
package partial

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/lp"
)

// MassSlack is the relative slack allowed on the mass s above
// min(‖a‖₁, ‖b‖₁) (rounding in a caller's grid); such an s is clipped.
const MassSlack = 1e-12

// Problem is a partial transport problem: the masses, the cost and the
// extended balanced problem of the dummy-point reduction, whose dummy
// masses Solve sets for each s.
type Problem struct {
	n, m   int
	a, b   []float64 // as given
	c      []float64 // C, n×m (the caller's)
	ta, tb float64   // ‖a‖₁, ‖b‖₁
	big    float64   // A, the dummy–dummy cost
	ea, eb []float64 // the extended masses: a then ‖b‖₁ − s, b then ‖a‖₁ − s
	ec     []float64 // C̄, (n+1)×(m+1)
}

// New checks the masses a (n) and b (m), whose totals may differ (finite,
// ≥ 0, a positive total each: ot.CheckWeights), and the n×m cost C
// (row-major, finite, ≥ 0: the reduction and the monotonicity in s need
// it), and builds the extended problem.
func New(a, b, c []float64) (*Problem, error) {
	ta, err := ot.CheckWeights("mu", a)
	if err != nil {
		return nil, err
	}
	tb, err := ot.CheckWeights("nu", b)
	if err != nil {
		return nil, err
	}
	n, m := len(a), len(b)
	if err := ot.CheckCost(c, n, m); err != nil {
		return nil, err
	}
	mx := 0.0
	for k, v := range c {
		if v < 0 {
			return nil, algo.BadParam("cost", fmt.Sprintf("C[%d][%d] = %g", k/m, k%m, v), "costs ≥ 0")
		}
		mx = math.Max(mx, v)
	}
	p := &Problem{n: n, m: m, a: append([]float64(nil), a...), b: append([]float64(nil), b...), c: c,
		ta: ta, tb: tb, big: dummyCost(mx),
		ea: make([]float64, n+1), eb: make([]float64, m+1), ec: make([]float64, (n+1)*(m+1))}
	copy(p.ea, a)
	copy(p.eb, b)
	for i := range n {
		copy(p.ec[i*(m+1):i*(m+1)+m], c[i*m:(i+1)*m])
	}
	p.ec[len(p.ec)-1] = p.big
	return p, nil
}

// dummyCost is A = 2 max C, or 1 when C = 0 (A > 0 is all the reduction
// needs, and A must scale with C for the simplex's relative tolerance).
func dummyCost(maxC float64) float64 {
	if maxC == 0 {
		return 1
	}
	return math.Min(2*maxC, math.MaxFloat64) // finite for any finite C
}

// Footprint is the bytes New and a Solve allocate for n and m atoms: the
// extended cost, the simplex on it and the plan returned.
func Footprint(n, m int) int64 {
	return 8*int64(n+1)*int64(m+1) + lp.Footprint(n+1, m+1) + 8*int64(n)*int64(m) + 16*int64(n+m+2)
}

// MaxMass is min(‖a‖₁, ‖b‖₁), the most mass a plan can move.
func (p *Problem) MaxMass() float64 { return math.Min(p.ta, p.tb) }

// Totals are ‖a‖₁ and ‖b‖₁.
func (p *Problem) Totals() (float64, float64) { return p.ta, p.tb }

// DummyCost is A, the cost of the dummy–dummy cell.
func (p *Problem) DummyCost() float64 { return p.big }

// Solution is an optimal partial plan.
type Solution struct {
	Mass float64   // s
	Plan []float64 // T, n×m row-major, of mass s
	Cost float64   // ⟨C, T⟩
	// Dummy is the flow t on the dummy–dummy cell of the extended plan:
	// 0 by the reduction's argument (up to rounding).
	Dummy  float64
	Pivots int // simplex pivots the extended problem took
}

// Solve returns an optimal plan of mass s, 0 ≤ s ≤ MaxMass (an s above it
// by at most a relative MassSlack is clipped), by the transportation
// simplex on the extended problem. It allocates the simplex and the plan.
func (p *Problem) Solve(s float64) (Solution, error) {
	mx := p.MaxMass()
	if s > mx && s <= mx*(1+MassSlack) {
		s = mx
	}
	if !(s >= 0 && s <= mx) {
		return Solution{}, algo.BadParam("mass", s, fmt.Sprintf("in [0, min(‖a‖₁, ‖b‖₁)] = [0, %.10g]", mx))
	}
	p.ea[p.n] = math.Max(p.tb-s, 0)
	p.eb[p.m] = math.Max(p.ta-s, 0)
	// lp.New divides both sides by their totals, equal here: ‖a‖₁ + ‖b‖₁ − s.
	total := 0.0
	for _, v := range p.ea {
		total += v
	}
	x, err := lp.New(p.ea, p.eb, p.ec)
	if err != nil {
		return Solution{}, err
	}
	for err == nil {
		err = x.Step()
	}
	if !errors.Is(err, algo.ErrConverged) {
		return Solution{}, err
	}
	ext := x.Plan()
	plan := make([]float64, p.n*p.m)
	m1 := p.m + 1
	for i := range p.n {
		for j := range p.m {
			plan[i*p.m+j] = total * ext[i*m1+j]
		}
	}
	return Solution{Mass: s, Plan: plan, Cost: ot.PlanCost(p.c, plan), Dummy: total * ext[len(ext)-1], Pivots: x.Pivots()}, nil
}

// Marginals returns the row sums T1 and column sums Tᵀ1 of an n×m plan.
func Marginals(plan []float64, n, m int) (rows, cols []float64) {
	rows, cols = make([]float64, n), make([]float64, m)
	for i := range n {
		for j, v := range plan[i*m : (i+1)*m] {
			rows[i] += v
			cols[j] += v
		}
	}
	return rows, cols
}
