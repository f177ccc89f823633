package mcmc

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/target"
)

// chain runs random-walk Metropolis on tg from x0 for burn+n steps and
// returns the n post-burn-in states per coordinate, their Welford moments
// and the acceptance rate over all steps.
func chain(t *testing.T, tg target.Target, x0 []float64, step float64, burn, n int, seed uint64) ([][]float64, *Moments, float64) {
	t.Helper()
	m, err := NewMetropolis(tg, x0, step, rand.New(rand.NewPCG(seed, 0x6d68)))
	if err != nil {
		t.Fatal(err)
	}
	for range burn {
		m.Step()
	}
	d := tg.Dim()
	xs := make([][]float64, d)
	for i := range xs {
		xs[i] = make([]float64, n)
	}
	mom := NewMoments(d)
	for s := range n {
		m.Step()
		for i, v := range m.X() {
			xs[i][s] = v
		}
		mom.Add(m.X())
	}
	return xs, mom, m.AcceptanceRate()
}

// checkMoments asserts that the post-burn-in mean and covariance agree with
// the target's exact ones within k Monte Carlo standard errors, where the
// standard error of an average of a series y is sd(y)/√ESS(y) (the CLT for
// Markov chains, with the ESS of C6). The covariance entry Σ_ij is the mean
// of y_t = (x_it − μ_i)(x_jt − μ_j), so it gets the same treatment.
//
// The ESS is that of block means (essOfMean) in blocks of blockFor(n)
// draws: 20, 7 and 3 on the banana, the mixture and ρ = 0.9, 1 on the
// short runs.
func checkMoments(t *testing.T, label string, tg target.Target, xs [][]float64, mom *Moments, k float64) {
	t.Helper()
	mu, sigma := tg.Mean(), tg.Cov()
	var a Autocorr
	b := blockFor(len(xs[0]))
	worst := 0.0 // the largest deviation, in standard errors
	ess := make([]float64, len(xs))
	defer func() { t.Logf("%s: ESS %.0f, largest deviation %.2f s.e.", label, ess, worst) }()
	for i := range xs {
		ess[i] = essOfMean(&a, xs[i], b)
		se := math.Sqrt(sigma[i][i] / ess[i])
		worst = math.Max(worst, math.Abs(mom.MeanAt(i)-mu[i])/se)
		if d := math.Abs(mom.MeanAt(i) - mu[i]); d > k*se {
			t.Errorf("%s: mean[%d] = %.4f, exact %g: off by %.1f s.e. (s.e. %.4f, ESS %.0f)",
				label, i, mom.MeanAt(i), mu[i], d/se, se, ess[i])
		}
		for j := i; j < len(xs); j++ {
			y := make([]float64, len(xs[i]))
			for s := range y {
				y[s] = (xs[i][s] - mu[i]) * (xs[j][s] - mu[j])
			}
			_, v := meanVar(y)
			se := math.Sqrt(v / essOfMean(&a, y, b))
			worst = math.Max(worst, math.Abs(mom.CovAt(i, j)-sigma[i][j])/se)
			if d := math.Abs(mom.CovAt(i, j) - sigma[i][j]); d > k*se {
				t.Errorf("%s: cov[%d][%d] = %.4f, exact %g: off by %.1f s.e. (s.e. %.4f)",
					label, i, j, mom.CovAt(i, j), sigma[i][j], d/se, se)
			}
		}
	}
}

// essOfMean is the ESS of the mean of the series y, Var(y)/Var(ȳ), with
// Var(ȳ) estimated on the means of consecutive blocks of b draws as
// Var(block means)/ESS(block means): averaging in blocks leaves the mean
// and its variance as they are, so this is the s.e. of the whole series,
// with FFTs b times shorter (under -race the FFTs of the ESS were nearly
// all of TestMomentsConverge's cost). Geyer's estimate is as precise on
// the block means: its relative s.d. √(2(2K + 1)/S), K ≈ 5τ lags summed,
// becomes √(2(10τ + b)/S) on S/b block means: 1% more on the banana
// (every τ ≥ 80, b = 20), 5% on the mixture's squares (τ ≈ 7, b = 7), 20%
// of ULA's 2% on TestULACorrelated's λ = 0.2 (τ ≈ 1.6, b = 7). Measured
// on TestMomentsConverge's chains, the s.e.s at b = 20 are those at b = 1
// within 0.6%, on TestULAStationaryVariance's δ = 0.1 within 0.3%. b = 1
// is a.ESS(y); a trailing partial block is left out of Var(ȳ).
func essOfMean(a *Autocorr, y []float64, b int) float64 {
	if b <= 1 {
		return a.ESS(y)
	}
	bm := make([]float64, len(y)/b)
	for k := range bm {
		bm[k] = mean(y[k*b : (k+1)*b])
	}
	_, vy := meanVar(y)
	_, vb := meanVar(bm)
	if vb == 0 {
		return a.ESS(y)
	}
	return vy / (vb / a.ESS(bm))
}

// blockFor is the block size essOfMean is given for a series of n draws:
// n/20 000 (FFTs of 20 000 block means) from 1 to 20, so that series up to
// 40 000 draws are not blocked and b stays below the τ of the long runs.
func blockFor(n int) int { return min(max(n/20000, 1), 20) }

// TestMomentsConverge is the catalogue's oracle (ii) for C4: long-run
// moments within CLT bounds using the ESS (4 s.e.). One seed; the lengths
// are sized by the bug the test must catch, a chain that samples a
// slightly wrong target (the log-acceptance ratio ×0.8, i.e. p^0.8: every
// variance +25%, and on the banana a mean of x₂ ≈ 0.5 instead of 0). The
// Gaussians at ESS ≈ 1100–4300 have a s.e. of 2.5–4% on a variance, so
// the +25% stands 5.4–9.6 s.e. out; the mixture's mode hopping (ESS ≈ 285
// of x in 150 000 steps; x² mixes faster, s.e. 0.05 on a variance of 10)
// 5 s.e.; the banana's heavy x₂ needs its 400 000 steps (ESS ≈ 2600 of
// x₂: 7.6 s.e.; at 250 000 only 4.5). Longer runs (200 000 on ρ = 0.9,
// 400 000 on the mixture) only cost FFTs of the ESS.
func TestMomentsConverge(t *testing.T) {
	if testing.Short() {
		t.Skip("long chains")
	}
	rho9, _ := target.NewCorrelated(0.9)
	rho0, _ := target.NewCorrelated(0)
	banana, _ := target.NewBanana(target.BananaA, target.BananaB)
	cases := []struct {
		tg   target.Target
		x0   []float64
		step float64
		n    int
	}{
		{target.StdNormal(), []float64{3}, 2.4, 20000},
		{rho9, []float64{3, -3}, 0.5, 60000},
		{rho0, []float64{3, -3}, 1.7, 30000},
		// Step 2.0 hops between the modes of Fig 3.7 (catalogue C4 [M]).
		{target.Fig37(), []float64{0, 0}, 2.0, 150000},
		{banana, []float64{0, 0}, 2.5, 400000},
	}
	for _, c := range cases {
		label := c.tg.Name()
		if cr, ok := c.tg.(target.Correlated); ok {
			label += "(rho " + ftoa(cr.Rho()) + ")"
		}
		t.Run(label, func(t *testing.T) {
			t.Parallel()
			xs, mom, acc := chain(t, c.tg, c.x0, c.step, 2000, c.n, 1)
			t.Logf("acceptance %.3f, mean %.3f, cov %.3f", acc, mom.Mean(), mom.Cov())
			checkMoments(t, label, c.tg, xs, mom, 4)
		})
	}
}

// TestMixtureModes reproduces the catalogue's [M] observation for Fig 3.7:
// step 0.5 has high acceptance but stays in one mode; step 2.0 visits both.
func TestMixtureModes(t *testing.T) {
	frac := func(step float64) (float64, float64) {
		xs, _, acc := chain(t, target.Fig37(), []float64{0, 0}, step, 0, 10000, 1)
		pos := 0
		for _, v := range xs[0] {
			if v > 0 {
				pos++
			}
		}
		return acc, float64(pos) / float64(len(xs[0]))
	}
	acc, f := frac(0.5)
	if acc < 0.65 || (f > 0.05 && f < 0.95) {
		t.Errorf("step 0.5: acceptance %.3f, fraction with z₁ > 0 %.3f; want high acceptance, one mode", acc, f)
	}
	acc, f = frac(2.0)
	if acc < 0.2 || acc > 0.4 || f < 0.2 || f > 0.8 {
		t.Errorf("step 2.0: acceptance %.3f, fraction with z₁ > 0 %.3f; want ≈ 0.30, both modes", acc, f)
	}
}

// TestAcceptanceRho95 is a sanity range around the catalogue's measured
// acceptance rates for ρ = 0.95 (C4 [M]: 0.857, 0.443, 0.237, 0.069 for
// steps 0.1, 0.5, 1.0, 2.5; 10 000 steps from (3, −3)). Not an oracle.
func TestAcceptanceRho95(t *testing.T) {
	tg, _ := target.NewCorrelated(0.95)
	for _, c := range []struct{ step, lo, hi float64 }{
		{0.1, 0.80, 0.91}, {0.5, 0.39, 0.50}, {1.0, 0.19, 0.29}, {2.5, 0.04, 0.10},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			_, _, acc := chain(t, tg, []float64{3, -3}, c.step, 0, 10000, seed)
			if acc < c.lo || acc > c.hi {
				t.Errorf("step %g seed %d: acceptance %.3f outside [%g, %g]", c.step, seed, acc, c.lo, c.hi)
			}
		}
	}
	// Acceptance falls as the step grows ("small steps: high acceptance but
	// slow mixing").
	prev := 1.0
	for _, s := range []float64{0.05, 0.2, 0.8, 3.2} {
		_, _, acc := chain(t, tg, []float64{0, 0}, s, 0, 20000, 9)
		if acc >= prev {
			t.Errorf("acceptance %.3f at step %g not below %.3f", acc, s, prev)
		}
		prev = acc
	}
}

// halfNormal is N(0, 1) restricted to x > 0: log p = −Inf on x ≤ 0.
type halfNormal struct{}

func (halfNormal) Dim() int { return 1 }
func (halfNormal) LogP(x []float64) float64 {
	if x[0] <= 0 {
		return math.Inf(-1)
	}
	return -0.5 * x[0] * x[0]
}

// nanDensity returns NaN everywhere but at its start.
type nanDensity struct{}

func (nanDensity) Dim() int { return 1 }
func (nanDensity) LogP(x []float64) float64 {
	if x[0] == 1 {
		return 0
	}
	return math.NaN()
}

func TestOutsideSupportIsRejected(t *testing.T) {
	m, err := NewMetropolis(halfNormal{}, []float64{0.5}, 1.5, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	rejectedOutside := 0
	sum := 0.0
	const n = 200000
	for range n {
		acc := m.Step()
		if z, _ := m.Proposal(); z[0] <= 0 && acc {
			t.Fatalf("accepted a proposal at %g outside the support", z[0])
		} else if z[0] <= 0 {
			rejectedOutside++
		}
		if m.X()[0] <= 0 {
			t.Fatalf("state %g left the support", m.X()[0])
		}
		sum += m.X()[0]
	}
	if rejectedOutside == 0 {
		t.Error("no proposal fell outside the support: the test is vacuous")
	}
	// E[x] = √(2/π) for the half-normal.
	if mean := sum / n; math.Abs(mean-math.Sqrt(2/math.Pi)) > 0.02 {
		t.Errorf("half-normal mean %.4f, want %.4f", mean, math.Sqrt(2/math.Pi))
	}

	m, _ = NewMetropolis(nanDensity{}, []float64{1}, 1, rand.New(rand.NewPCG(1, 1)))
	for range 100 {
		if m.Step() {
			t.Fatal("accepted a proposal with log p = NaN")
		}
	}
	if m.X()[0] != 1 || m.Accepted() != 0 || m.Steps() != 100 || m.AcceptanceRate() != 0 {
		t.Errorf("after rejections: x = %v, accepted %d of %d", m.X(), m.Accepted(), m.Steps())
	}
}

// TestRejectionRepeatsState checks the bookkeeping of one step: a rejection
// keeps the state, an acceptance moves to the proposal.
func TestRejectionRepeatsState(t *testing.T) {
	tg, _ := target.NewCorrelated(0.9)
	m, _ := NewMetropolis(tg, []float64{3, -3}, 0.8, rand.New(rand.NewPCG(4, 4)))
	prev := append([]float64(nil), m.X()...)
	acc := 0
	for range 1000 {
		ok := m.Step()
		z, zok := m.Proposal()
		if ok != zok {
			t.Fatal("Proposal's flag disagrees with Step")
		}
		want := prev
		if ok {
			want = z
			acc++
		}
		if m.X()[0] != want[0] || m.X()[1] != want[1] {
			t.Fatalf("state %v, want %v (accepted %v)", m.X(), want, ok)
		}
		if lp := tg.LogP(m.X()); lp != m.LogP() {
			t.Fatalf("cached log p %g ≠ %g", m.LogP(), lp)
		}
		copy(prev, m.X())
	}
	if acc != m.Accepted() || m.Steps() != 1000 {
		t.Errorf("counted %d acceptances, engine %d of %d", acc, m.Accepted(), m.Steps())
	}
}

func TestDeterministicGivenSeed(t *testing.T) {
	run := func() []float64 {
		m, _ := NewMetropolis(target.Fig37(), []float64{0, 0}, 2, rand.New(rand.NewPCG(42, 1)))
		for range 5000 {
			m.Step()
		}
		return append([]float64(nil), m.X()...)
	}
	a, b := run(), run()
	if a[0] != b[0] || a[1] != b[1] {
		t.Errorf("same seed, different states %v and %v", a, b)
	}
}

func TestMetropolisBadParams(t *testing.T) {
	tg, _ := target.NewCorrelated(0.5)
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		name string
		err  error
	}{
		{"step", func() error { _, err := NewMetropolis(tg, []float64{0, 0}, 0, rng); return err }()},
		{"step", func() error { _, err := NewMetropolis(tg, []float64{0, 0}, -1, rng); return err }()},
		{"step", func() error { _, err := NewMetropolis(tg, []float64{0, 0}, math.NaN(), rng); return err }()},
		{"step", func() error { _, err := NewMetropolis(tg, []float64{0, 0}, math.Inf(1), rng); return err }()},
		{"x0", func() error { _, err := NewMetropolis(tg, []float64{0}, 1, rng); return err }()},
		{"x0", func() error { _, err := NewMetropolis(tg, []float64{0, math.NaN()}, 1, rng); return err }()},
		{"x0", func() error { _, err := NewMetropolis(halfNormal{}, []float64{-1}, 1, rng); return err }()},
		{"rng", func() error { _, err := NewMetropolis(tg, []float64{0, 0}, 1, nil); return err }()},
		{"target", func() error { _, err := NewMetropolis(nil, []float64{0, 0}, 1, rng); return err }()},
	}
	for _, c := range cases {
		var pe *algo.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.name {
			t.Errorf("got %v, want a ParamError naming %s", c.err, c.name)
		}
	}
}

func TestStepDoesNotAllocate(t *testing.T) {
	for _, name := range presets {
		tg, _ := target.New(name, 0.9)
		m, err := NewMetropolis(tg, make([]float64, tg.Dim()), 1, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(1000, func() { m.Step() }); a != 0 {
			t.Errorf("%s: Step allocates %v times", name, a)
		}
	}
}

func BenchmarkMetropolisStep(b *testing.B) {
	for _, name := range presets {
		b.Run(name.String(), func(b *testing.B) {
			tg, _ := target.New(name, 0.9)
			m, _ := NewMetropolis(tg, make([]float64, tg.Dim()), 1, rand.New(rand.NewPCG(1, 1)))
			b.ReportAllocs()
			for b.Loop() {
				m.Step()
			}
		})
	}
}

func BenchmarkESS(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 13, 1 << 16} {
		b.Run(ftoa(float64(n)), func(b *testing.B) {
			x := ar1(n, 0.9, 1)
			var a Autocorr
			b.ReportAllocs()
			for b.Loop() {
				a.ESS(x)
			}
		})
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
