// Package assign holds the Monge problem between discrete measures (seed
// 002 §5.2, L2035–2110): every map from sources to targets enumerated one
// candidate at a time, with its feasibility T#μ = ν and its cost; and, for
// N = M atoms of equal mass (the assignment problem, Example 5.2), the
// Hungarian algorithm.
package assign

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
)

// Limits of the enumeration: at most MaxN sources and MaxMaps = M^N
// candidates.
const (
	MaxN    = 8
	MaxMaps = 1 << 20
)

// FeasTol is the tolerance on each target mass in T#μ = ν (the masses are
// normalised to sum to 1).
const FeasTol = 1e-9

// Monge enumerates the maps T : {x_1 … x_N} → {y_1 … y_M}, all M^N of
// them in lexicographic order, one per Step. A map is feasible when it
// pushes μ onto ν (eq 5.2, L2083): ν_j = Σ_{i : T(x_i) = y_j} μ_i for every
// j. Its cost is Σ_i μ_i C_{i,T(i)}, the integral ∫ c(x, T(x)) dμ of (5.4)
// for a discrete μ. (The notes' (5.3), L2089, sums c(x_i, T(x_i)) without
// the weights μ_i; that is the same up to the factor N when the masses are
// equal, as in Example 5.2, but not otherwise, and the weighted sum is what
// Solution 5.2 computes and what makes a Monge map's cost that of its
// Kantorovich plan, Remark 5.4.)
//
// A map cannot split mass, so none may be feasible (Ex 5.1 ii, and any
// M > N with positive masses: Remark 5.1), and several may be optimal
// (Ex 5.2).
type Monge struct {
	n, m      int
	mu, nu, c []float64
	t, next   []int     // the candidate last evaluated; the next one
	push      []float64 // T#μ of t
	count     int       // candidates evaluated
	total     int       // M^N
	feasible  bool
	cost      float64
	nFeasible int
	best      float64 // least cost of a feasible map, +Inf before one
	optimal   []int   // the feasible maps of least cost, N entries each
}

// NewMonge validates μ (N ≤ MaxN), ν and the N×M cost (ot.Validate;
// M^N ≤ MaxMaps) and starts before the first candidate.
func NewMonge(mu, nu, c []float64) (*Monge, error) {
	a, b, err := ot.Validate(mu, nu, c)
	if err != nil {
		return nil, err
	}
	n, m := len(a), len(b)
	if n > MaxN {
		return nil, algo.BadParam("mu", fmt.Sprintf("%d atoms", n), fmt.Sprintf("at most %d atoms (the maps are enumerated)", MaxN))
	}
	total := 1
	for range n {
		total *= m
		if total > MaxMaps {
			return nil, algo.BadParam("nu", fmt.Sprintf("%d atoms", m), fmt.Sprintf("few enough that M^N ≤ %d", MaxMaps))
		}
	}
	return &Monge{n: n, m: m, mu: a, nu: b, c: c, t: make([]int, n), next: make([]int, n),
		push: make([]float64, m), total: total, best: math.Inf(1)}, nil
}

// Step evaluates the next candidate map; it returns algo.ErrConverged with
// the last one (and after it).
func (g *Monge) Step() error {
	if g.count == g.total {
		return algo.ErrConverged
	}
	copy(g.t, g.next)
	clear(g.push)
	g.cost = 0
	for i, j := range g.t {
		g.push[j] += g.mu[i]
		g.cost += g.mu[i] * g.c[i*g.m+j]
	}
	g.feasible = true
	for j, v := range g.push {
		if math.Abs(v-g.nu[j]) > FeasTol {
			g.feasible = false
			break
		}
	}
	if g.feasible {
		g.nFeasible++
		tie := 1e-12 * (1 + math.Abs(g.cost))
		switch {
		case g.nFeasible == 1 || g.cost < g.best-tie:
			g.best = g.cost
			g.optimal = append(g.optimal[:0], g.t...)
		case g.cost <= g.best+tie:
			g.optimal = append(g.optimal, g.t...)
		}
	}
	// the odometer: the last source varies fastest
	for i := g.n - 1; i >= 0; i-- {
		if g.next[i]++; g.next[i] < g.m {
			break
		}
		g.next[i] = 0
	}
	g.count++
	if g.count == g.total {
		return algo.ErrConverged
	}
	return nil
}

// Map is the candidate last evaluated, T(x_i) = y_{Map()[i]} (read-only);
// Push its T#μ; Feasible whether it equals ν; Cost its cost.
func (g *Monge) Map() []int        { return g.t }
func (g *Monge) Push() []float64   { return g.push }
func (g *Monge) Feasible() bool    { return g.feasible }
func (g *Monge) Cost() float64     { return g.cost }
func (g *Monge) Count() int        { return g.count }
func (g *Monge) Total() int        { return g.total }
func (g *Monge) FeasibleSeen() int { return g.nFeasible }

// Best is the least cost of a feasible map so far (+Inf before one), and
// Optimal the maps that reach it, each N entries.
func (g *Monge) Best() float64 { return g.best }
func (g *Monge) Optimal() [][]int {
	var out [][]int
	for k := 0; k < len(g.optimal); k += g.n {
		out = append(out, g.optimal[k:k+g.n:k+g.n])
	}
	return out
}
