package partial

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/lp"
)

// potX, potY, potA and potB are the problem of TestPOT.
var (
	potX = []float64{0, 0, 1, 0, 0, 1, 3, 3, 2, -1}
	potY = []float64{0.5, 0.2, 0.1, 0.9, 1.2, 1.1, -1, 2}
	potA = []float64{0.3, 0.2, 0.25, 0.15, 0.1}
	potB = []float64{0.4, 0.35, 0.25, 0.2}
)

// TestPOT: the optimal costs of POT 0.8.2 (Debian's python3-pot), from
//
//	M = ot.dist(x, y)  # squared Euclidean, x, y, a, b as potX, potY, potA, potB
//	T = ot.partial.partial_wasserstein(a, b, M, m=s); (T * M).sum()
//
// for s = 0.2, 0.5, 0.8 and 1 (‖a‖₁ = 1, ‖b‖₁ = 1.2).
func TestPOT(t *testing.T) {
	c := ot.GroundCost(potX, potY, 2, 2)
	p, err := New(potA, potB, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ s, cost float64 }{
		{0.2, 0.004000000000000003}, {0.5, 0.0775}, {0.8, 0.43550000000000016}, {1, 1.6954999999999998},
	} {
		sol, err := p.Solve(tc.s)
		if err != nil {
			t.Fatal(err)
		}
		algotest.Near(t, "cost", sol.Cost, tc.cost, 1e-12)
		checkPlan(t, sol, potA, potB, 1e-12)
	}
}

// checkPlan checks a plan's mass, its marginals below a and b, its
// entries ≥ 0 and the dummy–dummy flow 0.
func checkPlan(t *testing.T, sol Solution, a, b []float64, tol float64) {
	t.Helper()
	rows, cols := Marginals(sol.Plan, len(a), len(b))
	total := 0.0
	for i, r := range rows {
		total += r
		if r > a[i]+tol {
			t.Errorf("s = %g: row %d carries %g > a = %g", sol.Mass, i, r, a[i])
		}
	}
	for j, v := range cols {
		if v > b[j]+tol {
			t.Errorf("s = %g: column %d carries %g > b = %g", sol.Mass, j, v, b[j])
		}
	}
	for k, v := range sol.Plan {
		if v < 0 {
			t.Errorf("s = %g: T[%d] = %g < 0", sol.Mass, k, v)
		}
	}
	algotest.Near(t, "mass", total, sol.Mass, tol)
	algotest.Near(t, "dummy flow", sol.Dummy, 0, tol)
}

// TestFullMassIsBalanced: with ‖a‖₁ = ‖b‖₁ and s the full mass, the
// partial cost is the balanced optimum of the transportation simplex on
// (a, b, C) itself, to rounding, on random clouds.
func TestFullMassIsBalanced(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for _, sz := range [][2]int{{1, 1}, {3, 5}, {12, 9}, {20, 20}} {
		n, m := sz[0], sz[1]
		x, y := cloud(rng, n), cloud(rng, m)
		a, b := weights(rng, n), weights(rng, m)
		c := ot.GroundCost(x, y, 2, 2)
		p, err := New(a, b, c)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := p.Solve(1)
		if err != nil {
			t.Fatal(err)
		}
		s, err := lp.New(a, b, c)
		if err != nil {
			t.Fatal(err)
		}
		for err == nil {
			err = s.Step()
		}
		if !errors.Is(err, algo.ErrConverged) {
			t.Fatal(err)
		}
		algotest.Near(t, "cost", sol.Cost, s.Cost(), 1e-12*math.Max(1, s.Cost()))
		checkPlan(t, sol, a, b, 1e-12)
		// the full-mass plan's marginals are a and b themselves
		rows, cols := ot.MarginalError(sol.Plan, a, b)
		algotest.Near(t, "marginal error", rows+cols, 0, 1e-12)
	}
}

func cloud(rng *rand.Rand, k int) []float64 {
	x := make([]float64, 2*k)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// weights is k positive weights summing to 1.
func weights(rng *rand.Rand, k int) []float64 {
	w := make([]float64, k)
	s := 0.0
	for i := range w {
		w[i] = 0.1 + rng.Float64()
		s += w[i]
	}
	for i := range w {
		w[i] /= s
	}
	return w
}

// TestConvexNonDecreasing: over a grid of 21 masses from 0 to the most
// that can move, PW(s) is non-decreasing and its second differences are
// ≥ 0 (convex), PW(0) = 0, on clouds with different totals.
func TestConvexNonDecreasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	for trial := range 4 {
		n, m := 6+2*trial, 9-trial
		x, y := cloud(rng, n), cloud(rng, m)
		a, b := weights(rng, n), weights(rng, m)
		for j := range b {
			b[j] *= 0.7 + 0.2*float64(trial) // ‖b‖₁ ≠ ‖a‖₁
		}
		p, err := New(a, b, ot.GroundCost(x, y, 2, 1))
		if err != nil {
			t.Fatal(err)
		}
		const k = 20
		cost := make([]float64, k+1)
		for q := range cost {
			sol, err := p.Solve(p.MaxMass() * float64(q) / k)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, sol, a, b, 1e-12)
			cost[q] = sol.Cost
		}
		algotest.Near(t, "PW(0)", cost[0], 0, 1e-15)
		for q := 1; q <= k; q++ {
			if cost[q] < cost[q-1]-1e-12 {
				t.Errorf("trial %d: PW falls from %g to %g at step %d", trial, cost[q-1], cost[q], q)
			}
			if q < k && cost[q+1]-2*cost[q]+cost[q-1] < -1e-12 {
				t.Errorf("trial %d: second difference %g < 0 at step %d", trial, cost[q+1]-2*cost[q]+cost[q-1], q)
			}
		}
	}
}

// TestCheapestFirst: two Diracs of mass 1 at 0 and 2 against one of mass
// 1.5 at 1.5 on the line with C = |x − y|² (costs 2.25 and 0.25): the
// near source moves first, PW(s) = 0.25 s up to s = 1, then the far one,
// PW(s) = 0.25 + 2.25 (s − 1) up to 1.5.
func TestCheapestFirst(t *testing.T) {
	a, b := []float64{1, 1}, []float64{1.5}
	c := ot.GroundCost([]float64{0, 2}, []float64{1.5}, 1, 2)
	p, err := New(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "max mass", p.MaxMass(), 1.5, 0)
	for _, s := range []float64{0, 0.1, 0.5, 1, 1.2, 1.5} {
		sol, err := p.Solve(s)
		if err != nil {
			t.Fatal(err)
		}
		near, far := math.Min(s, 1), math.Max(s-1, 0)
		algotest.Near(t, "T near", sol.Plan[1], near, 1e-15)
		algotest.Near(t, "T far", sol.Plan[0], far, 1e-15)
		algotest.Near(t, "PW", sol.Cost, 0.25*near+2.25*far, 1e-14)
		checkPlan(t, sol, a, b, 1e-15)
	}
}

// TestScaleInvariance: PW_{λC}(s) = λ PW_C(s) for every λ > 0, to 1e-10
// relative, from λ = 10⁻¹² to 10⁶, on random clouds with unequal totals.
// It failed when the dummy–dummy cost was 1 + 2 max C: with C scaled by
// 10⁻⁹ or 10⁻¹², A ≈ 1 set the simplex's tolerance far above the costs
// and the plans returned cost up to 5 times the optimum.
func TestScaleInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for range 4 {
		n, m := 15, 12
		x, y := cloud(rng, n), cloud(rng, m)
		a, b := weights(rng, n), weights(rng, m)
		for j := range b {
			b[j] *= 0.8
		}
		c := ot.GroundCost(x, y, 2, 2)
		p, err := New(a, b, c)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := p.Solve(0.5)
		if err != nil {
			t.Fatal(err)
		}
		for _, lambda := range []float64{1e-12, 1e-9, 1e-3, 1e6} {
			cs := make([]float64, len(c))
			for k, v := range c {
				cs[k] = lambda * v
			}
			q, err := New(a, b, cs)
			if err != nil {
				t.Fatal(err)
			}
			sol, err := q.Solve(0.5)
			if err != nil {
				t.Fatal(err)
			}
			algotest.Near(t, "PW_{λC}/λ", sol.Cost/lambda, ref.Cost, 1e-10*ref.Cost)
			checkPlan(t, sol, a, b, 1e-12)
		}
	}
}

func TestValidation(t *testing.T) {
	ok := []float64{0.5, 0.5}
	c := []float64{0, 1, 1, 0}
	for _, tc := range []struct {
		name    string
		a, b, c []float64
	}{
		{"mu", nil, ok, c},
		{"mu", []float64{-1, 2}, ok, c},
		{"nu", ok, []float64{0, 0}, c},
		{"nu", ok, []float64{math.NaN(), 1}, c},
		{"cost", ok, ok, []float64{0, 1, 1}},
		{"cost", ok, ok, []float64{0, 1, math.Inf(1), 0}},
		{"cost", ok, ok, []float64{0, -1, 1, 0}},
	} {
		_, err := New(tc.a, tc.b, tc.c)
		algotest.WantParam(t, err, tc.name)
	}
	p, err := New(ok, []float64{0.25, 0.25}, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{-0.1, 0.6, math.NaN(), math.Inf(1)} {
		_, err := p.Solve(s)
		algotest.WantParam(t, err, "mass")
	}
	if _, err := p.Solve(0.5 * (1 + 1e-13)); err != nil {
		t.Errorf("a mass above the most by rounding: %v", err)
	}
}
