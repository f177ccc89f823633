package lp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
)

// solve runs the simplex to optimality, checking after every pivot that
// the cost does not rise and that the pivot's cycle is a cycle.
func solve(t testing.TB, mu, nu, c []float64) *Simplex {
	t.Helper()
	s, err := New(mu, nu, c)
	if err != nil {
		t.Fatal(err)
	}
	prev := s.Cost()
	for range 1_000_000 {
		err := s.Step()
		if s.Pivots() > 0 {
			checkCycle(t, s.Last())
		}
		if s.Cost() > prev+1e-12 {
			t.Fatalf("pivot %d raised the cost from %g to %g", s.Pivots(), prev, s.Cost())
		}
		prev = s.Cost()
		if errors.Is(err, algo.ErrConverged) {
			return s
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no convergence")
	return nil
}

// checkCycle: the cycle starts at the entering cell, alternates between
// sharing a column and sharing a row, closes on the entering cell's row,
// and the leaving cell is one of the losing (odd) cells.
func checkCycle(t testing.TB, p Pivot) {
	t.Helper()
	c := p.Cycle
	if len(c) < 4 || len(c)%2 != 0 || c[0] != p.Enter {
		t.Fatalf("cycle %v for entering %v", c, p.Enter)
	}
	for k := 1; k < len(c); k++ {
		if k%2 == 1 && c[k].J != c[k-1].J || k%2 == 0 && c[k].I != c[k-1].I {
			t.Fatalf("cycle %v: step %d does not alternate column, row", c, k)
		}
	}
	if c[len(c)-1].I != c[0].I {
		t.Fatalf("cycle %v does not close", c)
	}
	for k := 1; k < len(c); k += 2 {
		if c[k] == p.Leave {
			return
		}
	}
	t.Fatalf("leaving %v not a losing cell of %v", p.Leave, c)
}

// checkOptimal: marginals to 1e-12, at most n + m − 1 nonzeros, the
// potentials dual feasible and their value the cost (strong duality) —
// which certify optimality — and, for small problems (gonum's dense
// simplex is slow), the cost that of gonum's simplex.
func checkOptimal(t testing.TB, name string, s *Simplex, c []float64) {
	t.Helper()
	mu, nu := s.Mu(), s.Nu()
	n, m := len(mu), len(nu)
	rows, cols := ot.MarginalError(s.Plan(), mu, nu)
	algotest.Near(t, name+" row marginals", rows, 0, 1e-12)
	algotest.Near(t, name+" column marginals", cols, 0, 1e-12)
	if nz := s.Nonzeros(); nz > n+m-1 {
		t.Errorf("%s: %d nonzeros > n + m − 1 = %d", name, nz, n+m-1)
	}
	for _, v := range s.Plan() {
		if v < 0 {
			t.Fatalf("%s: negative flow %g", name, v)
		}
	}
	u, v := s.Potentials()
	dual := 0.0
	for i := range n {
		dual += mu[i] * u[i]
		for j := range m {
			if r := s.Reduced(i, j); r < -1e-9 {
				t.Fatalf("%s: reduced cost %g at (%d,%d) at the optimum", name, r, i, j)
			}
		}
	}
	for j := range m {
		dual += nu[j] * v[j]
	}
	algotest.Near(t, name+" duality gap", dual, s.Cost(), 1e-10)
	algotest.Near(t, name+" cost vs ⟨C,P⟩", s.Cost(), ot.PlanCost(c, s.Plan()), 1e-12)
	if n*m <= 150 {
		_, ref, err := Reference(mu, nu, c)
		if err != nil {
			t.Fatalf("%s: gonum: %v", name, err)
		}
		algotest.Near(t, name+" cost vs gonum", s.Cost(), ref, 1e-9)
	}
}

// TestWorkedExamples: the catalogue's 2×2 (Ex 5.4 instance, optimum 2.5)
// and 3×3 (optimum 0.1) with their plans, by both solvers.
func TestWorkedExamples(t *testing.T) {
	for _, tt := range []struct {
		p    *ot.Problem
		cost float64
		plan []float64
	}{
		{ot.Ex54(), 2.5, []float64{0.1, 0.6, 0.3, 0}},
		{ot.Three(), 0.1, []float64{0.4, 0.1, 0, 0, 0.3, 0, 0, 0, 0.2}},
	} {
		s := solve(t, tt.p.Mu, tt.p.Nu, tt.p.C)
		checkOptimal(t, tt.p.Name, s, tt.p.C)
		algotest.Near(t, tt.p.Name+" cost", s.Cost(), tt.cost, 1e-12)
		plan, cost, err := Reference(tt.p.Mu, tt.p.Nu, tt.p.C)
		if err != nil {
			t.Fatal(err)
		}
		algotest.Near(t, tt.p.Name+" gonum cost", cost, tt.cost, 1e-12)
		for k, want := range tt.plan {
			algotest.Near(t, fmt.Sprintf("%s P[%d]", tt.p.Name, k), s.Plan()[k], want, 1e-12)
			algotest.Near(t, fmt.Sprintf("%s gonum P[%d]", tt.p.Name, k), plan[k], want, 1e-9)
		}
	}
}

// TestEx54ClosedForm: on random 2×2 problems the optimum is Ex 5.4's
// P(p*) with p* the lower end of [max(0, ν1 − μ2), min(μ1, ν1)] when
// Δ = c11 − c12 − c21 + c22 > 0 and the upper end when Δ < 0.
func TestEx54ClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 54))
	for k := range 200 {
		m1, n1 := rng.Float64(), rng.Float64()
		mu, nu := []float64{m1, 1 - m1}, []float64{n1, 1 - n1}
		c := []float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()}
		delta := c[0] - c[1] - c[2] + c[3]
		p := math.Max(0, n1-mu[1])
		if delta < 0 {
			p = math.Min(m1, n1)
		}
		want := []float64{p, m1 - p, n1 - p, mu[1] - n1 + p}
		s := solve(t, mu, nu, c)
		name := fmt.Sprintf("case %d (Δ = %.3g)", k, delta)
		algotest.Near(t, name+" cost", s.Cost(), ot.PlanCost(c, want), 1e-12)
		if math.Abs(delta) > 1e-9 {
			for q, w := range want {
				algotest.Near(t, fmt.Sprintf("%s P[%d]", name, q), s.Plan()[q], w, 1e-12)
			}
		}
	}
}

// randomProblem: n and m points in the unit square with random masses
// (some zero when zeros is set) and the squared-distance cost.
func randomProblem(rng *rand.Rand, n, m int, zeros bool) (mu, nu, c []float64) {
	x, y := make([]float64, 2*n), make([]float64, 2*m)
	for i := range x {
		x[i] = rng.Float64()
	}
	for i := range y {
		y[i] = rng.Float64()
	}
	w := func(k int) []float64 {
		out, s := make([]float64, k), 0.0
		for i := range out {
			out[i] = rng.Float64()
			if zeros && rng.IntN(4) == 0 && i > 0 {
				out[i] = 0
			}
			s += out[i]
		}
		return ot.Normalised(out, s)
	}
	return w(n), w(m), ot.GroundCost(x, y, 2, 2)
}

// TestRandom: optimality certificates on random problems of many shapes,
// with empty atoms, with uniform masses on n = m (assignment: the most
// degenerate vertices) and with integer costs full of ties.
func TestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, sz := range [][2]int{{1, 1}, {1, 6}, {6, 1}, {2, 3}, {7, 3}, {12, 12}, {20, 30}, {45, 40}} {
		n, m := sz[0], sz[1]
		for rep := range 3 {
			mu, nu, c := randomProblem(rng, n, m, rep == 1)
			checkOptimal(t, fmt.Sprintf("%dx%d #%d", n, m, rep), solve(t, mu, nu, c), c)
		}
		uni := func(k int) []float64 { return ot.Normalised(slices.Repeat([]float64{1}, k), float64(k)) }
		_, _, c := randomProblem(rng, n, n, false)
		checkOptimal(t, fmt.Sprintf("%dx%d uniform", n, n), solve(t, uni(n), uni(n), c), c)
		ci := make([]float64, n*m)
		for k := range ci {
			ci[k] = float64(rng.IntN(3))
		}
		mu, nu, _ := randomProblem(rng, n, m, false)
		checkOptimal(t, fmt.Sprintf("%dx%d ties", n, m), solve(t, mu, nu, ci), ci)
	}
}

// TestSortedIn1D: with equal masses on n = m points of the line and cost
// |x − y|^p (p ≥ 1), the LP optimum is the sorted matching (Corollary 1,
// Fig 5.7).
func TestSortedIn1D(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for _, p := range []float64{1, 2, 3} {
		n := 25
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.NormFloat64(), 2+0.5*rng.NormFloat64()
		}
		c := ot.GroundCost(x, y, 1, p)
		w := ot.Normalised(slices.Repeat([]float64{1}, n), float64(n))
		s := solve(t, w, w, c)
		xs, ys := slices.Sorted(slices.Values(x)), slices.Sorted(slices.Values(y))
		want := 0.0
		for i := range xs {
			want += math.Pow(math.Abs(xs[i]-ys[i]), p) / float64(n)
		}
		algotest.Near(t, fmt.Sprintf("p=%g", p), s.Cost(), want, 1e-12)
	}
}

// TestBland: with Bland's rule brought in after every degenerate pivot
// (blandAfter = 1; by default it waits for n + m of them in a row, which
// these problems never reach) the degenerate assignment problems still
// end at the optimum, with the same cost as Dantzig's rule.
func TestBland(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{5, 20} {
		w := ot.Normalised(slices.Repeat([]float64{1}, n), float64(n))
		for _, ties := range []bool{false, true} {
			c := make([]float64, n*n)
			for k := range c {
				c[k] = rng.Float64()
				if ties {
					c[k] = float64(rng.IntN(2))
				}
			}
			s, _ := New(w, w, c)
			s.blandAfter = 1
			blandPivots := 0
			for {
				err := s.Step()
				if s.Bland() {
					blandPivots++
				}
				if errors.Is(err, algo.ErrConverged) {
					break
				}
			}
			name := fmt.Sprintf("n=%d ties=%v", n, ties)
			if blandPivots == 0 {
				t.Errorf("%s: Bland's rule never used", name)
			}
			checkOptimal(t, name, s, c)
			algotest.Near(t, name+" vs Dantzig", s.Cost(), solve(t, w, w, c).Cost(), 1e-12)
		}
	}
}

func TestBadInput(t *testing.T) {
	p := ot.Three()
	for _, tt := range []struct {
		name   string
		mu, nu []float64
		c      []float64
		param  string
	}{
		{"negative", []float64{0.6, -0.1, 0.5}, p.Nu, p.C, "mu"},
		{"empty", nil, p.Nu, p.C, "mu"},
		{"unequal", p.Mu, []float64{0.4, 0.4, 0.3}, p.C, "nu"},
		{"NaN cost", p.Mu, p.Nu, []float64{0, 1, 4, 1, math.NaN(), 1, 4, 1, 0}, "cost"},
		{"Inf cost", p.Mu, p.Nu, []float64{0, 1, 4, 1, math.Inf(1), 1, 4, 1, 0}, "cost"},
	} {
		_, err := New(tt.mu, tt.nu, tt.c)
		algotest.WantParam(t, err, tt.param)
		_, _, err = Reference(tt.mu, tt.nu, tt.c)
		algotest.WantParam(t, err, tt.param)
	}
}

// TestNoAllocs: a pivot allocates nothing.
func TestNoAllocs(t *testing.T) {
	mu, nu, c := randomProblem(rand.New(rand.NewPCG(6, 7)), 40, 40, false)
	s, _ := New(mu, nu, c)
	if a := testing.AllocsPerRun(20, func() { _ = s.Step() }); a != 0 {
		t.Errorf("%g allocations per pivot", a)
	}
}
