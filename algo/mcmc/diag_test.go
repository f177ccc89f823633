package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 returns n draws of the stationary AR(1) x_t = φ x_{t−1} + √(1−φ²) ε_t,
// whose autocorrelations are φ^k and whose τ = (1 + φ)/(1 − φ).
func ar1(n int, phi float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, n)
	x[0] = rng.NormFloat64()
	s := math.Sqrt(1 - phi*phi)
	for t := 1; t < n; t++ {
		x[t] = phi*x[t-1] + s*rng.NormFloat64()
	}
	return x
}

// directACF is the O(S·maxlag) textbook estimator, for comparison.
func directACF(x []float64, maxLag int) []float64 {
	n := len(x)
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	g := make([]float64, maxLag+1)
	for k := range g {
		for t := 0; t+k < n; t++ {
			g[k] += (x[t] - mean) * (x[t+k] - mean)
		}
		g[k] /= float64(n)
	}
	for k := maxLag; k >= 0; k-- {
		g[k] /= g[0]
	}
	return g
}

func TestACFMatchesDirectSum(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 100, 1000, 1025} {
		x := ar1(n, 0.7, uint64(n))
		for i := range x {
			x[i] += 5 // a non-zero mean must not matter
		}
		maxLag := min(n-1, 60)
		got := ACF(x, maxLag)
		want := directACF(x, maxLag)
		if len(got) != maxLag+1 {
			t.Fatalf("n=%d: %d lags, want %d", n, len(got), maxLag+1)
		}
		for k := range want {
			if n > 1 && math.Abs(got[k]-want[k]) > 1e-12 {
				t.Errorf("n=%d: ρ̂_%d = %.15f, direct %.15f", n, k, got[k], want[k])
			}
		}
	}
	if got := ACF([]float64{2, 2, 2}, 5); len(got) != 3 || got[0] != 1 || got[1] != 0 || got[2] != 0 {
		t.Errorf("ACF of a constant = %v, want [1 0 0]", got)
	}
	if got := ACF(nil, 5); len(got) != 0 {
		t.Errorf("ACF of nothing = %v", got)
	}
}

// TestACFOfAR1: ρ̂_k of a stationary AR(1) within 0.02 of φ^k. Bartlett's
// formula gives Var ρ̂_k ≈ [(1 + φ²)(1 − φ^2k)/(1 − φ²) − 2kφ^2k]/S, at most
// 4.27/S over k ≤ 10 at φ = 0.8: s.d. 0.0049 at S = 180 000, so 0.02 is 4.1
// s.d. (2¹⁸ draws made it 5).
func TestACFOfAR1(t *testing.T) {
	const phi = 0.8
	acf := ACF(ar1(180000, phi, 1), 10)
	for k, r := range acf {
		if want := math.Pow(phi, float64(k)); math.Abs(r-want) > 0.02 {
			t.Errorf("ρ̂_%d = %.4f, want φ^k = %.4f", k, r, want)
		}
	}
}

// TestESSOfIIDDraws: the ESS of n iid draws is n within 10%. At n = 30000
// the estimate's spread is 1.7% and its bias −0.8% (over 200 seeds), so
// 10% is five standard deviations (at 100000 it was twelve). Two seeds,
// not five: a wrong estimator shows as a bias, which every seed measures
// to within the 1.7% spread (one seed sees a bias of 13.4% with
// probability 0.98), so more seeds add checks of the same number.
func TestESSOfIIDDraws(t *testing.T) {
	const n = 30000
	for seed := uint64(1); seed <= 2; seed++ {
		x := ar1(n, 0, seed)
		ess := ESS(x)
		if math.Abs(ess/n-1) > 0.1 {
			t.Errorf("seed %d: ESS of %d iid draws = %.0f, want ≈ %d", seed, n, ess, n)
		}
	}
}

// TestESSOfAR1 checks the single-chain estimator (IAT) against the closed
// form S(1 − φ)/(1 + φ). Sokal's approximation of τ̂'s relative s.d.,
// √(2(2K + 1)/S) with K ≈ 5τ lags summed, is ≤ 4% here (φ = 0.9, τ = 19,
// S = 2¹⁸), so 15% is about 4 s.d.; TestESSOfAR1Chains holds the
// multi-chain oracle. The s.d. shrinks with τ, so φ = ±0.5 take a quarter
// of the draws for the same 15%: at S = 2¹⁶ their spread over 60 seeds is
// 2.5% (φ = 0.5) and 3.1% (φ = −0.5), at most a fifth of 15% (at 2¹⁸ it
// was a tenth), as φ = 0.9's 3.0% is at 2¹⁸. One seed each (there were
// two): a wrong estimator is a bias, which one seed measures to within
// that spread (a bias of 15% + 2 s.d. is seen with probability 0.98); a
// second seed re-measured the same bias at the cost of two FFTs of 2¹⁸.
func TestESSOfAR1(t *testing.T) {
	var a Autocorr
	for _, phi := range []float64{0.5, 0.9, -0.5} {
		n := 1 << 16
		if phi == 0.9 {
			n = 1 << 18
		}
		x := ar1(n, phi, 1)
		want := float64(n) * (1 - phi) / (1 + phi)
		ess := a.ESS(x)
		t.Logf("φ = %g: ESS = %.0f, S(1−φ)/(1+φ) = %.0f", phi, ess, want)
		if math.Abs(ess/want-1) > 0.15 {
			t.Errorf("φ = %g: ESS = %.0f, want %.0f within 15%%", phi, ess, want)
		}
	}
}

func TestESSEdgeCases(t *testing.T) {
	if got := ESS(nil); got != 0 {
		t.Errorf("ESS(empty) = %g, want 0", got)
	}
	if got := ESS([]float64{3, 3, 3, 3, 3}); got != 1 {
		t.Errorf("ESS(constant) = %g, want 1", got)
	}
	if got := ESS([]float64{1, 2, 3}); got != 3 {
		t.Errorf("ESS(3 values) = %g, want 3", got)
	}
	// A perfectly antithetic chain: τ̂ is floored, ESS stays finite.
	alt := make([]float64, 1000)
	for i := range alt {
		alt[i] = float64(i%2)*2 - 1
	}
	if got := ESS(alt); math.IsInf(got, 0) || math.IsNaN(got) || got <= 0 {
		t.Errorf("ESS(alternating) = %g, want finite > 0", got)
	}
}

func TestAutocorrReuseDoesNotAllocate(t *testing.T) {
	var a Autocorr
	x := ar1(5000, 0.5, 3)
	y := ar1(4000, 0.5, 4)
	dst := make([]float64, 0, 51)
	a.ESS(x)
	if n := testing.AllocsPerRun(20, func() {
		a.ESS(x)
		a.ESS(y)
		dst = a.ACF(dst, y, 50)
	}); n != 0 {
		t.Errorf("Autocorr allocates %v times per reuse", n)
	}
}

func TestMomentsMatchTwoPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 1000, 3
	xs := make([][]float64, n)
	m := NewMoments(d)
	for i := range xs {
		// A large common offset: the naive Σxxᵀ − n x̄x̄ᵀ would lose digits.
		xs[i] = []float64{1e6 + rng.NormFloat64(), 1e6 + 2*rng.NormFloat64(), -3 + rng.NormFloat64()}
		xs[i][2] += 0.5 * xs[i][0]
		m.Add(xs[i])
	}
	mean := make([]float64, d)
	for _, x := range xs {
		for j := range mean {
			mean[j] += x[j] / n
		}
	}
	cov := m.Cov()
	for i := range d {
		if math.Abs(m.MeanAt(i)-mean[i]) > 1e-9*math.Max(1, math.Abs(mean[i])) {
			t.Errorf("mean[%d] = %.12g, two-pass %.12g", i, m.MeanAt(i), mean[i])
		}
		for j := range d {
			c := 0.0
			for _, x := range xs {
				c += (x[i] - mean[i]) * (x[j] - mean[j])
			}
			c /= n - 1
			if math.Abs(cov[i][j]-c) > 1e-9*math.Max(1, math.Abs(c)) {
				t.Errorf("cov[%d][%d] = %.12g, two-pass %.12g", i, j, cov[i][j], c)
			}
		}
	}
	if a := testing.AllocsPerRun(100, func() { m.Add(xs[0]) }); a != 0 {
		t.Errorf("Moments.Add allocates %v times", a)
	}
	m.Reset()
	if m.N() != 0 || m.MeanAt(0) != 0 || m.CovAt(0, 0) != 0 {
		t.Errorf("Reset left n=%d mean=%g cov=%g", m.N(), m.MeanAt(0), m.CovAt(0, 0))
	}
}

// TestMeanOfConstantIsExact: mean returns a constant series' value
// exactly, as its doc comment says, where the sum divided by the count is
// off by an ulp (0.1 + 0.1 + 0.1 = 0.30000000000000004, /3 =
// 0.10000000000000002), so that meanVar's variance is exactly 0.
func TestMeanOfConstantIsExact(t *testing.T) {
	x := []float64{0.1, 0.1, 0.1}
	if naive := (x[0] + x[1] + x[2]) / 3; naive == 0.1 {
		t.Fatal("the naive mean is exact here: the case does not bite")
	}
	if m, v := meanVar(x); m != 0.1 || v != 0 {
		t.Errorf("meanVar(%v) = %.17g, %g; want 0.1, 0", x, m, v)
	}
}
