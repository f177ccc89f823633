package gromov

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

// potX (8 points in the plane) and potY (7 points in space) are the
// clouds of TestPOT.
var (
	potX = []float64{0, 0, 1, 0.2, 0.3, 1.1, 2, 1.5, 1.7, -0.4, 0.8, 0.9, -0.5, 0.6, 1.1, 2.0}
	potY = []float64{0.1, 0, 0.3, 1, 0.5, -0.2, 0.4, 1.2, 0.8, 2.1, 1.0, 0.5, 1.5, -0.3, 1.0, 0.2, 0.7, -0.6, -0.8, 0.4, 0.1}
)

// normalised divides a matrix by its largest entry.
func normalised(c []float64) []float64 {
	mx := slices.Max(c)
	out := make([]float64, len(c))
	for k, v := range c {
		out[k] = v / mx
	}
	return out
}

func uniform(k int) []float64 {
	w := make([]float64, k)
	for i := range w {
		w[i] = 1 / float64(k)
	}
	return w
}

// run steps g to convergence within steps outer iterations.
func run(t *testing.T, g *GW, steps int) {
	t.Helper()
	for range steps {
		err := g.Step()
		if errors.Is(err, algo.ErrConverged) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("no convergence in %d outer iterations (change %g)", steps, g.Change())
}

// TestPOT: the entropic GW objective at POT's fixed point. POT 0.8.2
// (Debian's python3-pot), with C1 and C2 the Euclidean distance matrices
// of potX and potY (scipy's cdist) each divided by its maximum and
// uniform masses:
//
//	T, log = ot.gromov.entropic_gromov_wasserstein(C1, C2, ot.unif(8), ot.unif(7),
//	    'square_loss', eps, max_iter=1000, tol=1e-13, log=True)
//	log['gw_dist'], T.argmax(axis=1)
//
// gives 0.05512379360823538, [6 1 0 3 2 1 6 4] at ε = 0.05 and
// 0.0439105407043547, [2 1 0 4 3 1 5 6] at ε = 0.01 (and its exact
// conditional-gradient gromov_wasserstein stops at 0.0521: GW is not
// convex, and these are stationary points from p qᵀ). POT's inner Sinkhorn
// stops at a marginal error of 1e-9, hence the tolerance.
func TestPOT(t *testing.T) {
	c1, c2 := normalised(Distances(potX, 2)), normalised(Distances(potY, 3))
	for _, tc := range []struct {
		eps, gw float64
		argmax  []int
	}{
		{0.05, 0.05512379360823538, []int{6, 1, 0, 3, 2, 1, 6, 4}},
		{0.01, 0.0439105407043547, []int{2, 1, 0, 4, 3, 1, 5, 6}},
	} {
		g, err := New(c1, c2, uniform(8), uniform(7), Config{Eps: tc.eps, Tol: 1e-12, InnerTol: 1e-13, InnerIters: 100000})
		if err != nil {
			t.Fatal(err)
		}
		run(t, g, 2000)
		algotest.Near(t, "GW objective", g.Objective(), tc.gw, 1e-8)
		for i, want := range tc.argmax {
			row := g.Plan()[i*7 : (i+1)*7]
			if got := argmax(row); got != want {
				t.Errorf("ε = %g: row %d's largest entry at %d, POT's at %d", tc.eps, i, got, want)
			}
		}
	}
}

func argmax(x []float64) int {
	k := 0
	for i, v := range x {
		if v > x[k] {
			k = i
		}
	}
	return k
}

// naive is the definition Σ_ijkl (C1_ik − C2_jl)² T_ij T_kl, O(n²m²).
func naive(c1, c2, t []float64, n, m int) float64 {
	s := 0.0
	for i := range n {
		for j := range m {
			for k := range n {
				for l := range m {
					d := c1[i*n+k] - c2[j*m+l]
					s += d * d * t[i*m+j] * t[k*m+l]
				}
			}
		}
	}
	return s
}

// TestObjectiveTwoWays: Prop 1's O(n²m + nm²) tensor against the O(n²m²)
// definition to 1e-12 (relative), on random distance matrices and random
// nonnegative T that are not couplings of any fixed marginals.
func TestObjectiveTwoWays(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	for _, sz := range [][2]int{{1, 1}, {2, 5}, {6, 4}, {9, 11}} {
		n, m := sz[0], sz[1]
		c1, c2 := Distances(cloud(rng, n, 2), 2), Distances(cloud(rng, m, 3), 3)
		tt := make([]float64, n*m)
		for k := range tt {
			tt[k] = rng.Float64()
		}
		want := naive(c1, c2, tt, n, m)
		algotest.Near(t, "E(T)", Objective(c1, c2, tt, n, m), want, 1e-12*want)
		// and the tensor entry by entry
		ten := Tensor(c1, c2, tt, n, m)
		for i := range n {
			for j := range m {
				s := 0.0
				for k := range n {
					for l := range m {
						d := c1[i*n+k] - c2[j*m+l]
						s += d * d * tt[k*m+l]
					}
				}
				algotest.Near(t, "(L⊗T)_ij", ten[i*m+j], s, 1e-12*math.Max(1, s))
			}
		}
	}
}

func cloud(rng *rand.Rand, k, dim int) []float64 {
	x := make([]float64, k*dim)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// isometric returns a rotated, reflected, translated and permuted copy of
// the planar points x, and the permutation: copy point σ[i] is x_i.
func isometric(rng *rand.Rand, x []float64) (y []float64, sigma []int) {
	k := len(x) / 2
	sigma = rng.Perm(k)
	th := 2 * math.Pi * rng.Float64()
	c, s := math.Cos(th), math.Sin(th)
	y = make([]float64, 2*k)
	for i := range k {
		u, v := x[2*i], -x[2*i+1] // reflect
		y[2*sigma[i]], y[2*sigma[i]+1] = c*u-s*v+3, s*u+c*v-1
	}
	return y, sigma
}

// TestIsometry: between generic points and an isometric copy (rotation,
// reflection, translation, relabelling) GW is 0, attained by the
// relabelling's permutation coupling (E = 0 to rounding); the entropic
// scheme at small ε recovers that permutation (each row's largest entry)
// and ends with E below 3e-3 of E(p qᵀ) (the entropic blur's share).
// The inner solves are capped at 100 Sinkhorn iterations, short of their
// 10⁻⁹ at this ε (so were they at 2000, at four times the cost): the outer
// scheme converges through inexact inner solves, in 33–80 iterations here
// (E/E(p qᵀ) measured 9·10⁻⁶ and 5·10⁻⁴).
func TestIsometry(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	for trial := range 2 {
		n := 6 + 3*trial
		x := cloud(rng, n, 2)
		y, sigma := isometric(rng, x)
		c1, c2 := Distances(x, 2), Distances(y, 2)
		perm := make([]float64, n*n)
		for i, j := range sigma {
			perm[i*n+j] = 1 / float64(n)
		}
		algotest.Near(t, "E(permutation), definition", naive(c1, c2, perm, n, n), 0, 1e-24)
		algotest.Near(t, "E(permutation), Prop 1", Objective(c1, c2, perm, n, n), 0, 1e-14)
		c1, c2 = normalised(c1), normalised(c2)
		g, err := New(c1, c2, uniform(n), uniform(n), Config{Eps: 3e-3, Tol: 1e-6, InnerTol: 1e-9, InnerIters: 100})
		if err != nil {
			t.Fatal(err)
		}
		start := g.Objective()
		run(t, g, 500)
		for i, want := range sigma {
			if got := argmax(g.Plan()[i*n : (i+1)*n]); got != want {
				t.Errorf("trial %d: point %d matched to %d, the isometry sends it to %d", trial, i, got, want)
			}
		}
		if g.Objective() > 3e-3*start {
			t.Errorf("trial %d: E(T) = %g, over 3e-3 of the start's %g", trial, g.Objective(), start)
		}
	}
}

// TestRegularisedNonIncreasing: E(T) − εH(T) never rises over the outer
// iterations (the concavity argument of the package comment), between a
// planar and a spatial cloud, for two ε, to 1e-12 (the inner solves stop
// at a marginal error of 1e-11); E itself is allowed to. The first 8
// outer iterations are the ones that move the plan (‖T_{k+1} − T_k‖₁ from
// 0.8 down to 0.015 at ε = 0.01, then flat), and cost half the inner
// iterations of 15.
func TestRegularisedNonIncreasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	for _, eps := range []float64{0.01, 0.1} {
		c1, c2 := normalised(Distances(cloud(rng, 15, 2), 2)), normalised(Distances(cloud(rng, 12, 3), 3))
		g, err := New(c1, c2, uniform(15), uniform(12), Config{Eps: eps, InnerTol: 1e-11, InnerIters: 20000})
		if err != nil {
			t.Fatal(err)
		}
		prev := g.Regularised()
		for k := range 8 {
			if err := g.Step(); err != nil {
				t.Fatal(err)
			}
			if r := g.Regularised(); r > prev+1e-12 {
				t.Errorf("ε = %g, iteration %d: E − εH rose from %.12g to %.12g", eps, k+1, prev, r)
			}
			prev = g.Regularised()
		}
	}
}

func TestValidation(t *testing.T) {
	c := Distances([]float64{0, 1, 3}, 1)
	u := uniform(3)
	cfg := Config{Eps: 0.1, InnerTol: 1e-9, InnerIters: 100}
	asym := slices.Clone(c)
	asym[1] = 2
	diag := slices.Clone(c)
	diag[4] = 1
	neg := []float64{0, -1, 3, -1, 0, 2, 3, 2, 0}
	for _, tc := range []struct {
		name   string
		c1, c2 []float64
		p, q   []float64
		cfg    Config
	}{
		{"mu", c, c, []float64{-1, 1, 1}, u, cfg},
		{"nu", c, c, u, []float64{1, 1}, cfg}, // totals differ
		{"c1", c[:8], c, u, u, cfg},
		{"c1", asym, c, u, u, cfg},
		{"c2", c, diag, u, u, cfg},
		{"c2", c, neg, u, u, cfg},
		{"c2", c, []float64{0, 1, math.NaN(), 1, 0, 1, math.NaN(), 1, 0}, u, u, cfg},
		{"eps", c, c, u, u, Config{Eps: 0, InnerTol: 1e-9, InnerIters: 100}},
		{"eps", c, c, u, u, Config{Eps: math.Inf(1), InnerTol: 1e-9, InnerIters: 100}},
		{"tol", c, c, u, u, Config{Eps: 0.1, Tol: -1, InnerTol: 1e-9, InnerIters: 100}},
		{"inner_tol", c, c, u, u, Config{Eps: 0.1, InnerIters: 100}},
		{"inner_iters", c, c, u, u, Config{Eps: 0.1, InnerTol: 1e-9}},
	} {
		_, err := New(tc.c1, tc.c2, tc.p, tc.q, tc.cfg)
		algotest.WantParam(t, err, tc.name)
	}
}
