package assign

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
	"github.com/thelab/lab/algo/ot/lp"
)

// enumerate runs a Monge enumeration to the end, checking that the step
// count is M^N.
func enumerate(t testing.TB, mu, nu, c []float64) *Monge {
	t.Helper()
	g, err := NewMonge(mu, nu, c)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; ; k++ {
		err := g.Step()
		if errors.Is(err, algo.ErrConverged) {
			if k != g.Total() || g.Count() != g.Total() {
				t.Fatalf("ended after %d of %d", k, g.Total())
			}
			return g
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestExercises: Ex 5.1 (i), a unique feasible map T(x1) = y3, T(x2) = y1,
// T(x3) = y2 among 27; Ex 5.1 (ii), none; Ex 5.2, the two bijections
// feasible, both optimal at cost 1; and M > N (Remark 5.1), none.
func TestExercises(t *testing.T) {
	e := ot.Ex51Exists()
	c := ot.GroundCost(e.X, e.Y, 1, 1)
	g := enumerate(t, e.Mu, e.Nu, c)
	if g.FeasibleSeen() != 1 || !slices.Equal(g.Optimal()[0], []int{2, 0, 1}) {
		t.Errorf("Ex 5.1 (i): %d feasible, optimal %v; want the one map (y3, y1, y2)", g.FeasibleSeen(), g.Optimal())
	}
	e = ot.Ex51None()
	if g = enumerate(t, e.Mu, e.Nu, c); g.FeasibleSeen() != 0 || !math.IsInf(g.Best(), 1) || g.Optimal() != nil {
		t.Errorf("Ex 5.1 (ii): %d feasible, best %g; want none", g.FeasibleSeen(), g.Best())
	}
	e = ot.Ex52()
	g = enumerate(t, e.Mu, e.Nu, e.C)
	if g.FeasibleSeen() != 2 || len(g.Optimal()) != 2 || g.Best() != 1 {
		t.Errorf("Ex 5.2: %d feasible, optimal %v at %g; want both bijections at 1", g.FeasibleSeen(), g.Optimal(), g.Best())
	}
	g = enumerate(t, []float64{0.5, 0.5}, []float64{0.2, 0.3, 0.5}, make([]float64, 6))
	if g.FeasibleSeen() != 0 {
		t.Errorf("M > N: %d feasible maps", g.FeasibleSeen())
	}
}

// TestMongeIsKantorovich: when a feasible map exists its best cost is at
// least the LP optimum, and with equal masses on N = M atoms (Example 5.2,
// a vertex of the polytope is a permutation) the two agree; the feasible
// maps are exactly the permutations.
func TestMongeIsKantorovich(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 6; n++ {
		w := ot.Normalised(slices.Repeat([]float64{1}, n), float64(n))
		c := make([]float64, n*n)
		for k := range c {
			c[k] = rng.Float64()
		}
		g := enumerate(t, w, w, c)
		perms := 1
		for k := 2; k <= n; k++ {
			perms *= k
		}
		if g.FeasibleSeen() != perms {
			t.Errorf("n=%d: %d feasible maps, want %d permutations", n, g.FeasibleSeen(), perms)
		}
		s, _ := lp.New(w, w, c)
		for !errors.Is(s.Step(), algo.ErrConverged) {
		}
		algotest.Near(t, fmt.Sprintf("n=%d Monge vs LP", n), g.Best(), s.Cost(), 1e-12)
	}
}

// solveHungarian runs a Hungarian to the end, checking after every step
// that the potentials are dual feasible (u_i + v_j ≤ C_ij + 1e-12) and the
// lower bound never falls, and that there are at most N(N+1)/2 steps.
func solveHungarian(t testing.TB, c []float64) *Hungarian {
	t.Helper()
	h, err := NewHungarian(c)
	if err != nil {
		t.Fatal(err)
	}
	n := h.Size()
	lb := h.LowerBound()
	for k := 1; ; k++ {
		err := h.Step()
		u, v := h.Potentials()
		for i := range n {
			for j := range n {
				if u[i]+v[j] > c[i*n+j]+1e-12 {
					t.Fatalf("step %d: u[%d] + v[%d] = %g > C = %g", k, i, j, u[i]+v[j], c[i*n+j])
				}
			}
		}
		if h.LowerBound() < lb-1e-12 {
			t.Fatalf("step %d: lower bound fell from %g to %g", k, lb, h.LowerBound())
		}
		lb = h.LowerBound()
		if errors.Is(err, algo.ErrConverged) {
			if k > n*(n+1)/2 || h.Matched() != n {
				t.Fatalf("%d steps, %d matched", k, h.Matched())
			}
			return h
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestHungarian: the optimum equals the enumeration's (n ≤ 6) and the
// LP's (n = 40), the matching is a permutation, and at the end the lower
// bound equals the cost (strong duality) with every matched pair tight;
// random costs, integer costs with ties, and negative costs.
func TestHungarian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 5, 6, 40} {
		for _, kind := range []string{"uniform", "ties", "negative"} {
			c := make([]float64, n*n)
			for k := range c {
				switch kind {
				case "uniform":
					c[k] = rng.Float64()
				case "ties":
					c[k] = float64(rng.IntN(3))
				default:
					c[k] = 10*rng.Float64() - 20
				}
			}
			name := fmt.Sprintf("n=%d %s", n, kind)
			h := solveHungarian(t, c)
			sigma := h.Matching(nil)
			if !slices.Equal(slices.Sorted(slices.Values(sigma)), slices.Collect(func(yield func(int) bool) {
				for j := range n {
					if !yield(j) {
						return
					}
				}
			})) {
				t.Fatalf("%s: matching %v is not a permutation", name, sigma)
			}
			u, v := h.Potentials()
			for i, j := range sigma {
				algotest.Near(t, name+" tight pair", u[i]+v[j], c[i*n+j], 1e-12)
			}
			algotest.Near(t, name+" duality", h.LowerBound(), h.Cost(), 1e-12)
			w := ot.Normalised(slices.Repeat([]float64{1}, n), float64(n))
			var want float64
			if n <= 6 {
				want = enumerate(t, w, w, c).Best()
			} else {
				s, _ := lp.New(w, w, c)
				for !errors.Is(s.Step(), algo.ErrConverged) {
				}
				want = s.Cost()
			}
			algotest.Near(t, name+" optimum", h.Cost(), want, 1e-12)
		}
	}
}

// TestHungarianSteps: the record of a run on a 3×3: each step a scan that
// adds a column to the tree, an augmentation ending each row with its
// path, and the optimum 1 + 2 + 2 at (0,1), (1,0), (2,2).
func TestHungarianSteps(t *testing.T) {
	c := []float64{4, 1, 3, 2, 0, 5, 3, 2, 2}
	h, _ := NewHungarian(c)
	augments := 0
	for {
		err := h.Step()
		if h.Last() == Augment {
			augments++
			if len(h.Path()) == 0 {
				t.Fatal("augmentation without a path")
			}
		} else if h.Last() != Scan || h.Row() < 0 || !h.InTree(h.Reached()) {
			t.Fatalf("step %v on row %d reached column %d", h.Last(), h.Row(), h.Reached())
		}
		if errors.Is(err, algo.ErrConverged) {
			break
		}
	}
	if augments != 3 {
		t.Errorf("%d augmentations, want 3", augments)
	}
	algotest.Near(t, "cost", h.Cost(), 5.0/3, 1e-15)
	if got := h.Matching(nil); !slices.Equal(got, []int{1, 0, 2}) {
		t.Errorf("matching %v, want [1 0 2]", got)
	}
}

func TestBadInput(t *testing.T) {
	p := ot.Three()
	_, err := NewMonge([]float64{-1, 2}, p.Nu, p.C)
	algotest.WantParam(t, err, "mu")
	_, err = NewMonge(p.Mu, []float64{0.5, 0.6}, make([]float64, 6))
	algotest.WantParam(t, err, "nu")
	_, err = NewMonge(slices.Repeat([]float64{0.1}, 10), []float64{1}, make([]float64, 10))
	algotest.WantParam(t, err, "mu")
	_, err = NewMonge(p.Mu, p.Nu, []float64{0, 1, math.NaN(), 1, 0, 1, 4, 1, 0})
	algotest.WantParam(t, err, "cost")
	_, err = NewHungarian(make([]float64, 5))
	algotest.WantParam(t, err, "cost")
	_, err = NewHungarian([]float64{0, math.Inf(1), 1, 1})
	algotest.WantParam(t, err, "cost")
}

// TestNoAllocs: a Hungarian step allocates nothing; nor does a Monge step
// that finds no new optimum.
func TestNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := make([]float64, 50*50)
	for k := range c {
		c[k] = rng.Float64()
	}
	h, _ := NewHungarian(c)
	if a := testing.AllocsPerRun(50, func() { _ = h.Step() }); a != 0 {
		t.Errorf("Hungarian: %g allocations per step", a)
	}
	e := ot.Ex51None()
	g, _ := NewMonge(e.Mu, e.Nu, make([]float64, 9))
	if a := testing.AllocsPerRun(20, func() { _ = g.Step() }); a != 0 {
		t.Errorf("Monge: %g allocations per step", a)
	}
}
