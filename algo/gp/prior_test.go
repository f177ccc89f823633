package gp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/kernel"
)

// TestPriorMoments: after 20 000 draws from GP(0, k) on 40 points, the
// empirical covariance of f(x_r) and f(x_i), the variance of f(x_i) and the
// correlation are within 4.5 of their standard errors of k(x_r, x_i),
// k(x_i, x_i) and k_ri/√(k_rr k_ii), at every input (Algorithm 1's
// Cov f = LLᵀ = K), for kernels that need jitter and kernels that do not.
func TestPriorMoments(t *testing.T) {
	for _, z := range []Zoo{
		{First: FamilySE, Combine: CombineNone, Lengthscale: 1, Variance: 2},
		{First: FamilyPeriodic, Combine: CombineNone, Lengthscale: 0.7, Variance: 1, Period: 1.5},
		{First: FamilyMatern12, Second: FamilyRQ, Combine: CombineSum, Lengthscale: 0.5, Variance: 0.5, Alpha: 1},
	} {
		k, err := z.Kernel()
		if err != nil {
			t.Fatal(err)
		}
		x := grid(0, 5, 40)
		p, err := NewPrior(k, x, 7, rand.New(rand.NewPCG(29, 1)))
		if err != nil {
			t.Fatal(err)
		}
		const draws = 20000
		for range draws {
			if err := p.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if p.Draws() != draws {
			t.Fatalf("draws %d", p.Draws())
		}
		corr, rho := p.Corr(nil), p.KernelCorr(nil)
		worst := 0.0
		for i := range x {
			kri, kii := kernel.Eval(k, x[7], x[i]), kernel.Eval(k, x[i], x[i])
			if a, b := p.Kernel(i); a != kri || b != kii {
				t.Fatalf("Kernel(%d) = %v, %v; want %v, %v", i, a, b, kri, kii)
			}
			c, se := p.Cov(i)
			v, vse := p.Var(i)
			worst = math.Max(worst, math.Abs(c-kri)/se)
			worst = math.Max(worst, math.Abs(v-kii)/vse)
			if i != 7 {
				worst = math.Max(worst, math.Abs(corr[i]-rho[i])/p.CorrSE(rho[i]))
			} else if math.Abs(corr[i]-1) > 1e-15 || math.Abs(rho[i]-1) > 1e-15 {
				t.Errorf("%v: the reference's correlation with itself %v, kernel %v", k, corr[i], rho[i])
			}
		}
		if worst > 4.5 {
			t.Errorf("%v: a moment %.2f standard errors from the kernel", k, worst)
		}
		t.Logf("%v: jitter %g, worst |z| %.2f", k, p.Jitter(), worst)
	}
}

// TestPriorStandardErrors: the standard errors the pane draws are right —
// over 400 independent runs of 200 draws at two inputs of correlation
// 0.6, the spread of the empirical covariance and of the correlation match
// √((k_rr k_ii + k_ri²)/N) and (1 − ρ²)/√N within 12% (the spread's own
// relative error is about 1/√(2·400) = 3.5%, and the correlation's s.e.
// is asymptotic).
func TestPriorStandardErrors(t *testing.T) {
	l := math.Sqrt(-1 / (2 * math.Log(0.6))) // exp(−1/(2ℓ²)) = 0.6 at distance 1
	k := kernel.Scaled{C: 1.5, K: kernel.RBF{Gamma: 1 / (2 * l * l)}}
	x := [][]float64{{0}, {1}}
	rng := rand.New(rand.NewPCG(29, 3))
	const runs, draws = 400, 200
	var sc, scc, sr, srr float64
	var covSE, corrSE float64
	corr := make([]float64, 2)
	for range runs {
		p, err := NewPrior(k, x, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		for range draws {
			p.Step()
		}
		c, se := p.Cov(1)
		corr = p.Corr(corr)
		sc += c
		scc += c * c
		sr += corr[1]
		srr += corr[1] * corr[1]
		covSE, corrSE = se, p.CorrSE(0.6)
	}
	sdC := math.Sqrt(scc/runs - (sc/runs)*(sc/runs))
	sdR := math.Sqrt(srr/runs - (sr/runs)*(sr/runs))
	t.Logf("cov: spread %.4f, s.e. %.4f; corr: spread %.4f, s.e. %.4f", sdC, covSE, sdR, corrSE)
	algotest.Near(t, "spread/s.e. of the covariance", sdC/covSE, 1, 0.12)
	algotest.Near(t, "spread/s.e. of the correlation", sdR/corrSE, 1, 0.12)
	algotest.Near(t, "mean covariance", sc/runs, 0.9, 4*covSE/math.Sqrt(runs))
}

// TestPriorJitter: the SE kernel with ℓ = 4 on 100 points of [0, 10] is
// numerically singular and gets jitter within the policy's range; the
// Matérn ν = 1/2 kernel's Gram matrix is well conditioned and gets none.
// A draw before any Step is not there: the moments are NaN.
func TestPriorJitter(t *testing.T) {
	x := grid(0, 10, 100)
	se := kernel.Scaled{C: 2, K: kernel.RBF{Gamma: 1.0 / 32}}
	p, err := NewPrior(se, x, 0, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if j := p.Jitter(); !(j >= JitterStart*2 && j <= JitterMax*2) {
		t.Errorf("SE ℓ = 4: jitter %g", j)
	}
	if c, se := p.Cov(3); !math.IsNaN(c) || !math.IsNaN(se) || !math.IsNaN(p.Corr(nil)[3]) {
		t.Errorf("before a draw: cov %v ± %v", c, se)
	}
	m, err := NewPrior(kernel.Matern{Nu: kernel.MaternHalf, Lengthscale: 4}, x, 0, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if j := m.Jitter(); j != 0 {
		t.Errorf("Matérn 1/2: jitter %g", j)
	}
	allocs := testing.AllocsPerRun(100, func() { p.Step() })
	if allocs != 0 {
		t.Errorf("a Step allocates %v times", allocs)
	}
}

// TestPriorValidation: bad inputs are named; a function that is not a
// kernel is refused even with the largest jitter.
func TestPriorValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	k := kernel.RBF{Gamma: 1}
	_, err := NewPrior(k, nil, 0, rng)
	algotest.WantParam(t, err, "inputs")
	_, err = NewPrior(k, grid(0, 1, 3), 3, rng)
	algotest.WantParam(t, err, "ref")
	_, err = NewPrior(k, grid(0, 1, 3), 0, nil)
	algotest.WantParam(t, err, "rng")
	if _, err := NewPrior(kernel.Scaled{C: 1, K: kernel.Sigmoid{A: 1, C: -3}}, grid(-2, 2, 20), 0, rng); err == nil {
		t.Error("the sigmoid 'kernel' was factorised")
	}
	if _, err := NewPrior(kernel.Distance{}, grid(0, 1, 5), 0, rng); err == nil {
		t.Error("a zero variance was accepted")
	}
}

// TestPriorUpcrossings: on a grid of spacing h a stationary GP path
// crosses 0 upwards between two neighbours with probability
// P(f₀ < 0 ≤ f₁) = arccos(ρ(h))/(2π) (the bivariate normal's quadrant
// probability, ρ = k(h)/k(0)), so a path over n points has on average
// (n − 1)·arccos(ρ(h))/(2π) up-crossings; as h → 0 that tends to Rice's
// √(−k″(0)/k(0))/(2π) per unit length (the seed-003 catalogue, G2 [EXT]):
// 1/(2πℓ) for the SE kernel, √3/(2πℓ) for Matérn ν = 3/2. Over 2000
// paths on [0, 10] at spacing ℓ/20 the mean count is within 4 standard
// errors (from the counts' spread) of the grid's expectation, which is
// within 4% of Rice's (0.05% short for SE; 2.8% for Matérn 3/2, whose
// ρ(h) = 1 − 3h²/2 + O(h³) leaves a shortfall of order h, not h²).
func TestPriorUpcrossings(t *testing.T) {
	const l, paths, n = 1.0, 2000, 201
	x := grid(0, 10, n)
	for _, c := range []struct {
		k    kernel.Kernel
		rice float64 // up-crossings per unit length
	}{
		{kernel.RBF{Gamma: 1 / (2 * l * l)}, 1 / (2 * math.Pi * l)},
		{kernel.Matern{Nu: kernel.MaternThreeHalves, Lengthscale: l}, math.Sqrt(3) / (2 * math.Pi * l)},
	} {
		p, err := NewPrior(c.k, x, 0, rand.New(rand.NewPCG(29, 4)))
		if err != nil {
			t.Fatal(err)
		}
		var sum, sq float64
		for range paths {
			p.Step()
			f, up := p.Path(), 0.0
			for i := 1; i < len(f); i++ {
				if f[i-1] < 0 && f[i] >= 0 {
					up++
				}
			}
			sum += up
			sq += up * up
		}
		mean := sum / paths
		se := math.Sqrt((sq/paths - mean*mean) / paths)
		rho := kernel.Eval(c.k, x[0], x[1]) / kernel.Eval(c.k, x[0], x[0])
		want := float64(n-1) * math.Acos(rho) / (2 * math.Pi)
		t.Logf("%v: %.3f up-crossings on [0, 10] ± %.3f; grid's expectation %.3f, Rice %.3f", c.k, mean, se, want, 10*c.rice)
		if math.Abs(mean-want) > 4*se {
			t.Errorf("%v: %.3f up-crossings, expected %.3f (s.e. %.3f)", c.k, mean, want, se)
		}
		if math.Abs(want-10*c.rice) > 0.04*10*c.rice {
			t.Errorf("%v: the grid's expectation %.3f, Rice's limit %.3f", c.k, want, 10*c.rice)
		}
	}
}
