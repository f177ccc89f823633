package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// The reference below is a deliberately naive transcription of the
// formulas of Vehtari et al. (2021) as ArviZ writes them (_split_chains,
// _z_scale, _rhat, _rhat_rank, _ess, _ess_quantile, _mcse_mean,
// _mcse_quantile): explicit loops, ranks by counting (O(S²)),
// autocovariances by the direct double sum (O(N²)), quantiles from a fresh
// sort. It shares no code with convergence.go, so that agreement to 1e-10
// checks the FFT, the single sort and the fold-by-merging there.

// refSplit returns the 2M half-chains, the middle draw of an odd chain
// dropped.
func refSplit(chains [][]float64) [][]float64 {
	var out [][]float64
	for _, c := range chains {
		h := len(c) / 2
		out = append(out, c[:h], c[len(c)-h:])
	}
	return out
}

func refFlat(xs [][]float64) []float64 {
	var all []float64
	for _, x := range xs {
		all = append(all, x...)
	}
	return all
}

// refZScale ranks every value among all of them (average rank for ties)
// and maps rank r of S to Φ⁻¹((r − 3/8)/(S + 1/4)).
func refZScale(xs [][]float64) [][]float64 {
	all := refFlat(xs)
	s := float64(len(all))
	out := make([][]float64, len(xs))
	for j, x := range xs {
		out[j] = make([]float64, len(x))
		for i, v := range x {
			less, equal := 0.0, 0.0
			for _, u := range all {
				if u < v {
					less++
				} else if u == v {
					equal++
				}
			}
			r := less + (equal+1)/2
			out[j][i] = distuv.UnitNormal.Quantile((r - 3.0/8) / (s + 1.0/4))
		}
	}
	return out
}

func refMean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func refVar(x []float64) float64 {
	if refConstant(x) {
		return 0
	}
	m := refMean(x)
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x)-1)
}

func refConstant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// refRHat is √((B/W + n − 1)/n) over the given (already split) chains.
func refRHat(xs [][]float64) float64 {
	n := float64(len(xs[0]))
	var means []float64
	w := 0.0
	for _, x := range xs {
		means = append(means, refMean(x))
		w += refVar(x)
	}
	w /= float64(len(xs))
	b := n * refVar(means)
	if w == 0 {
		if b == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return math.Sqrt((b/w + n - 1) / n)
}

// refAutocov is the biased autocovariance by the direct sum.
func refAutocov(x []float64) []float64 {
	n := len(x)
	m := refMean(x)
	g := make([]float64, n)
	for k := range n {
		for t := 0; t+k < n; t++ {
			g[k] += (x[t] - m) * (x[t+k] - m)
		}
		g[k] /= float64(n)
	}
	return g
}

// refESS transcribes ArviZ's _ess on (already split) chains; a constant
// input gives 1 (the lab's convention).
func refESS(xs [][]float64) float64 {
	all := refFlat(xs)
	if refConstant(all) {
		return 1
	}
	m, n := len(xs), len(xs[0])
	acov := make([][]float64, m)
	var means []float64
	for j, x := range xs {
		acov[j] = refAutocov(x)
		means = append(means, refMean(x))
	}
	meanAcov := func(t int) float64 {
		s := 0.0
		for j := range m {
			s += acov[j][t]
		}
		return s / float64(m)
	}
	meanVar := meanAcov(0) * float64(n) / float64(n-1)
	varPlus := meanVar * float64(n-1) / float64(n)
	if m > 1 {
		varPlus += refVar(means)
	}
	rho := make([]float64, n)
	even := 1.0
	rho[0] = even
	odd := 1 - (meanVar-meanAcov(1))/varPlus
	rho[1] = odd
	t := 1
	for t < n-3 && even+odd > 0 {
		even = 1 - (meanVar-meanAcov(t+1))/varPlus
		odd = 1 - (meanVar-meanAcov(t+2))/varPlus
		if even+odd >= 0 {
			rho[t+1] = even
			rho[t+2] = odd
		}
		t += 2
	}
	maxT := t - 2
	if even > 0 {
		rho[maxT+1] = even
	}
	t = 1
	for t <= maxT-2 {
		if rho[t+1]+rho[t+2] > rho[t-1]+rho[t] {
			rho[t+1] = (rho[t-1] + rho[t]) / 2
			rho[t+2] = rho[t+1]
		}
		t += 2
	}
	total := float64(m * n)
	sum := 0.0
	for k := 0; k <= maxT; k++ {
		sum += rho[k]
	}
	tau := -1 + 2*sum + rho[maxT+1]
	tau = math.Max(tau, 1/math.Log10(total))
	return total / tau
}

// refQuantile is numpy's default (linear) quantile.
func refQuantile(x []float64, p float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	g := p * float64(len(s)-1)
	lo := math.Floor(g)
	hi := math.Ceil(g)
	return s[int(lo)] + (g-lo)*(s[int(hi)]-s[int(lo)])
}

func refIndicator(chains [][]float64, q float64) [][]float64 {
	out := make([][]float64, len(chains))
	for j, c := range chains {
		out[j] = make([]float64, len(c))
		for i, v := range c {
			if v <= q {
				out[j][i] = 1
			}
		}
	}
	return out
}

func refMCSEQuantile(chains [][]float64, p float64) (mcse, ess float64) {
	all := refFlat(chains)
	ess = refESS(refSplit(refIndicator(chains, refQuantile(all, p))))
	b := distuv.Beta{Alpha: ess*p + 1, Beta: ess*(1-p) + 1}
	a1, a2 := b.Quantile(0.1586553), b.Quantile(0.8413447)
	s := append([]float64(nil), all...)
	sort.Float64s(s)
	size := float64(len(s))
	th1 := s[int(math.Floor(math.Max(a1*size-1, 0)))]
	th2 := s[int(math.Ceil(math.Min(a2*size-1, size-1)))]
	return (th2 - th1) / 2, ess
}

// refSummary computes every field of a Summary the naive way.
func refSummary(chains [][]float64) Summary {
	var s Summary
	s.Chains, s.Draws = len(chains), len(chains[0])
	all := refFlat(chains)
	s.Mean = refMean(all)
	s.SD = math.Sqrt(refVar(all))
	s.Median = refQuantile(all, 0.5)
	split := refSplit(chains)
	z := refZScale(split)
	med := refQuantile(refFlat(split), 0.5)
	folded := make([][]float64, len(split))
	for j, x := range split {
		for _, v := range x {
			folded[j] = append(folded[j], math.Abs(v-med))
		}
	}
	zf := refZScale(folded)
	s.RHatBulk, s.RHatTail = refRHat(z), refRHat(zf)
	s.RHat = math.Max(s.RHatBulk, s.RHatTail)
	s.ESSBulk = refESS(z)
	s.ESSMean = refESS(split)
	s.MCSEMean = s.SD / math.Sqrt(s.ESSMean)
	for k, p := range QuantileProbs {
		q := &s.Quantiles[k]
		q.P, q.Value = p, refQuantile(all, p)
		q.MCSE, q.ESS = refMCSEQuantile(chains, p)
	}
	s.ESSTail = math.Min(s.Quantiles[1].ESS, s.Quantiles[2].ESS) // 5% and 95%
	for c := range chains {
		two := [][]float64{z[2*c], z[2*c+1]}
		s.ChainESS = append(s.ChainESS, refESS(two))
		s.ChainRHat = append(s.ChainRHat, math.Max(refRHat(two), refRHat([][]float64{zf[2*c], zf[2*c+1]})))
	}
	return s
}

// arChains returns m AR(1) chains of n draws (stationary N(0, 1),
// autocorrelation φ^k), chain c shifted by shift[c] when given.
func arChains(m, n int, phi float64, seed uint64, shift ...float64) [][]float64 {
	out := make([][]float64, m)
	for c := range out {
		out[c] = ar1(n, phi, seed*131+uint64(c))
		if c < len(shift) {
			for t := range out[c] {
				out[c][t] += shift[c]
			}
		}
	}
	return out
}

// summaryFields lists a Summary's numbers by name, for comparisons.
func summaryFields(s Summary) map[string]float64 {
	f := map[string]float64{
		"Mean": s.Mean, "SD": s.SD, "MCSEMean": s.MCSEMean, "Median": s.Median,
		"RHat": s.RHat, "RHatBulk": s.RHatBulk, "RHatTail": s.RHatTail,
		"ESSBulk": s.ESSBulk, "ESSTail": s.ESSTail, "ESSMean": s.ESSMean,
	}
	for _, q := range s.Quantiles {
		f[fmt.Sprintf("q%g", q.P)] = q.Value
		f[fmt.Sprintf("MCSE q%g", q.P)] = q.MCSE
		f[fmt.Sprintf("ESS q%g", q.P)] = q.ESS
	}
	for c := range s.ChainESS {
		f[fmt.Sprintf("ChainESS[%d]", c)] = s.ChainESS[c]
		f[fmt.Sprintf("ChainRHat[%d]", c)] = s.ChainRHat[c]
	}
	return f
}

// TestSummaryMatchesReference: on fixed chains — even and odd lengths, one
// chain, antithetic draws, ties (rounded values and MH-like repeats), a
// shifted chain, chains in separate modes, a trend — every number of the
// Summary equals the naive reference to 1e-10 (relative above 1).
func TestSummaryMatchesReference(t *testing.T) {
	rounded := arChains(2, 100, 0.7, 4)
	for _, c := range rounded {
		for i := range c {
			c[i] = math.Round(c[i]*10) / 10
		}
	}
	sticky := arChains(3, 90, 0.2, 5) // a rejected proposal repeats the state
	rng := rand.New(rand.NewPCG(5, 5))
	for _, c := range sticky {
		for i := 1; i < len(c); i++ {
			if rng.Float64() < 0.6 {
				c[i] = c[i-1]
			}
		}
	}
	trend := arChains(2, 120, 0.5, 6)
	for _, c := range trend {
		for i := range c {
			c[i] += 3 * float64(i) / 120
		}
	}
	cases := []struct {
		name   string
		chains [][]float64
	}{
		{"4 chains, N = 200, φ = 0.6", arChains(4, 200, 0.6, 1)},
		{"3 chains, odd N = 151, one shifted", arChains(3, 151, 0.3, 2, 0, 0, 1.5)},
		{"1 chain, N = 64, antithetic φ = −0.4", arChains(1, 64, -0.4, 3)},
		{"1 chain, odd N = 33", arChains(1, 33, 0.5, 9)},
		{"ties: values rounded to 0.1", rounded},
		{"ties: repeated states", sticky},
		{"5 chains in two modes", arChains(5, 40, 0.8, 7, -3, 3, -3, 3, 3)},
		{"a trend", trend},
		{"N = 4", arChains(2, 4, 0.5, 8)},
		{"N = 7, odd", arChains(3, 7, 0.5, 10)},
	}
	var d Diagnoser // reused across cases of different shapes
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got Summary
			if err := d.Summarise(&got, tc.chains); err != nil {
				t.Fatal(err)
			}
			want := refSummary(tc.chains)
			if got.Chains != want.Chains || got.Draws != want.Draws {
				t.Errorf("shape %d×%d, want %d×%d", got.Chains, got.Draws, want.Chains, want.Draws)
			}
			g, w := summaryFields(got), summaryFields(want)
			if len(g) != len(w) {
				t.Fatalf("%d fields, reference %d", len(g), len(w))
			}
			for k, wv := range w {
				if gv := g[k]; !(math.Abs(gv-wv) <= 1e-10*math.Max(1, math.Abs(wv))) {
					t.Errorf("%s = %.15g, reference %.15g", k, gv, wv)
				}
			}
		})
	}
}

// TestIATMatchesReference: the single-chain τ̂ of Autocorr is the same
// estimator on one whole (unsplit) chain.
func TestIATMatchesReference(t *testing.T) {
	var a Autocorr
	for _, n := range []int{4, 5, 50, 501} {
		for _, phi := range []float64{0.9, 0, -0.6} {
			x := ar1(n, phi, uint64(n))
			got, want := a.ESS(x), refESS([][]float64{x})
			if math.Abs(got-want) > 1e-10*math.Max(1, want) {
				t.Errorf("n = %d, φ = %g: ESS %.15g, reference %.15g", n, phi, got, want)
			}
		}
	}
}

// TestESSOfAR1Chains is the closed-form oracle: M chains of the stationary
// AR(1) x_t = φx_{t−1} + √(1 − φ²)ε_t have τ = (1 + φ)/(1 − φ), so the ESS of
// their mean is MN(1 − φ)/(1 + φ) (above MN for an antithetic φ < 0). The
// rank normalisation of a Gaussian is nearly the identity, so bulk-ESS
// agrees too. Tail-ESS has a closed form as well: the indicator
// I(x ≤ q_p) of a Gaussian AR(1) has lag-k autocovariance
// Φ₂(q, q; φ^k) − p² = ∫_0^{φ^k} φ₂(q, q; r) dr (Plackett's identity), with
// φ₂(q, q; r) = exp(−q²/(1 + r))/(2π√(1 − r²)).
//
// The same Summaries give the MCSEs (once TestMCSEOfAR1Chains, which drew
// sets of its own): the MCSE of the mean is √(τ/S) for these unit-variance
// chains, and that of the 5% quantile is √(p(1 − p)/ESS_p)/φ(q_p) with
// ESS_p = S/τ_p of the indicator, checked at φ = 0 and 0.9.
//
// Each case averages the ratio estimate/truth over R = 12 independent sets
// of 4 × n draws and requires the mean within 4 standard errors of 1,
// the standard error being the replicates' own spread /√R (1–4% here);
// Geyer's truncation bias is far below that at these τ. n = 5000 where
// the MCSEs are checked too (φ = 0: the 5% quantile's MCSE has a s.e. of
// 3.9%) and where τ is largest (φ = 0.9, s.e.s 1–2.6%); φ = ±0.5 take
// n = 2500: their s.e.s, 0.7–1.6% at 5000, become 1–2.3% (√2 more), so 4
// s.e. is still under 10% on every ESS, and their τ = 3 (1/3) keeps the
// truncation bias, O(τ/n), far below one s.e.
func TestESSOfAR1Chains(t *testing.T) {
	const m, reps = 4, 12
	var d Diagnoser
	var s Summary
	q05 := distuv.UnitNormal.Quantile(0.05)
	for _, phi := range []float64{0, 0.5, 0.9, -0.5} {
		n := 5000
		if math.Abs(phi) == 0.5 {
			n = 2500
		}
		truth := float64(m*n) * (1 - phi) / (1 + phi)
		tailTruth := float64(m*n) / indicatorTau(phi, 0.05)
		mcseTruth := math.Sqrt((1 + phi) / (1 - phi) / float64(m*n))
		qTruth := math.Sqrt(0.05*0.95/tailTruth) / distuv.UnitNormal.Prob(q05)
		stats := map[string][]float64{}
		for r := range reps {
			if err := d.Summarise(&s, arChains(m, n, phi, uint64(100*r+1)+uint64(1000*phi))); err != nil {
				t.Fatal(err)
			}
			stats["ESSMean"] = append(stats["ESSMean"], s.ESSMean/truth)
			stats["ESSBulk"] = append(stats["ESSBulk"], s.ESSBulk/truth)
			stats["ESSQ05"] = append(stats["ESSQ05"], s.Quantiles[1].ESS/tailTruth)
			stats["ESSQ95"] = append(stats["ESSQ95"], s.Quantiles[2].ESS/tailTruth)
			stats["MCSEMean"] = append(stats["MCSEMean"], s.MCSEMean/mcseTruth)
			stats["MCSEQ05"] = append(stats["MCSEQ05"], s.Quantiles[1].MCSE/qTruth)
		}
		checked := []string{"ESSMean", "ESSBulk", "ESSQ05", "ESSQ95"}
		if phi == 0 || phi == 0.9 {
			checked = append(checked, "MCSEMean", "MCSEQ05")
		}
		for _, k := range checked {
			mean, v := meanVar(stats[k])
			se := math.Sqrt(v / reps)
			t.Logf("φ = %4g: %s/truth = %.3f ± %.3f", phi, k, mean, se)
			if math.Abs(mean-1) > 4*se {
				t.Errorf("φ = %g: %s/truth = %.3f ± %.3f (s.e.), want 1 within 4 s.e.", phi, k, mean, se)
			}
		}
	}
}

// indicatorTau is τ of I(x ≤ q_p) along a stationary Gaussian AR(1) with
// coefficient φ (see TestESSOfAR1Chains), by Simpson's rule in r.
func indicatorTau(phi, p float64) float64 {
	q := distuv.UnitNormal.Quantile(p)
	dens := func(r float64) float64 { return math.Exp(-q*q/(1+r)) / (2 * math.Pi * math.Sqrt(1-r*r)) }
	tau := 1.0
	for k := 1; k < 2000; k++ {
		rk := math.Pow(phi, float64(k))
		if math.Abs(rk) < 1e-14 {
			break
		}
		const steps = 200
		h := rk / steps
		sum := dens(0) + dens(rk)
		for i := 1; i < steps; i++ {
			sum += dens(float64(i)*h) * float64(2+2*(i%2))
		}
		tau += 2 * sum * h / 3 / (p * (1 - p))
	}
	return tau
}

// TestStuckChainsFlagged: chains that sit in separate modes (the issue's
// mixture with step 0.5) get a large R̂ and a bulk-ESS of a few draws,
// while each chain on its own looks fine — the pooled ESS is not the sum
// of the chains'. Rank normalisation bounds R̂: two equal groups of chains
// that never meet have z's in opposite halves of N(0, 1), between-chain
// variance 2/π and within 1 − 2/π, so R̂ → √(1 + (2/π)/(1 − 2/π)) ≈ 1.66
// however far apart the modes (the classic R̂ grows without bound).
func TestStuckChainsFlagged(t *testing.T) {
	var d Diagnoser
	var s Summary
	stuck := arChains(4, 4000, 0.9, 11, -3, 3, -3, 3)
	if err := d.Summarise(&s, stuck); err != nil {
		t.Fatal(err)
	}
	t.Logf("stuck: R̂ %.2f (bulk %.2f, tail %.2f), bulk-ESS %.1f, tail-ESS %.1f, per chain %.0f",
		s.RHat, s.RHatBulk, s.RHatTail, s.ESSBulk, s.ESSTail, s.ChainESS)
	if s.RHat < 1.6 {
		t.Errorf("R̂ = %.3f, want ≈ 1.66", s.RHat)
	}
	if s.ESSBulk > 20 || s.ESSMean > 20 {
		t.Errorf("bulk-ESS %.1f, mean-ESS %.1f of chains in separate modes, want a handful (< 20)", s.ESSBulk, s.ESSMean)
	}
	for c, e := range s.ChainESS {
		if e < 100 {
			t.Errorf("chain %d alone: ESS %.0f, want its own (≈ 2·4000·0.1/1.9 ≈ 210 each half's worth)", c, e)
		}
	}
	// Mixed chains: R̂ ≈ 1 (its s.e. at this size is ≈ 0.001).
	if err := d.Summarise(&s, arChains(4, 4000, 0.5, 12)); err != nil {
		t.Fatal(err)
	}
	if s.RHat > 1.01 {
		t.Errorf("mixed chains: R̂ = %.4f, want < 1.01", s.RHat)
	}
	// Equal locations, different scales: bulk-R̂ misses it, tail-R̂ sees it.
	scaled := arChains(4, 4000, 0.5, 13)
	for i := range scaled[3] {
		scaled[3][i] *= 3
	}
	if err := d.Summarise(&s, scaled); err != nil {
		t.Fatal(err)
	}
	if s.RHatBulk > 1.01 || s.RHatTail < 1.05 || s.RHat != s.RHatTail {
		t.Errorf("one chain ×3: bulk-R̂ %.4f, tail-R̂ %.4f, R̂ %.4f; want the tail to see it", s.RHatBulk, s.RHatTail, s.RHat)
	}
	// A single trending chain: the split sees it.
	trend := arChains(1, 4000, 0.5, 14)
	for i := range trend[0] {
		trend[0][i] += 4 * float64(i) / 4000
	}
	if err := d.Summarise(&s, trend); err != nil {
		t.Fatal(err)
	}
	if s.RHat < 1.2 || s.ChainRHat[0] != s.RHat {
		t.Errorf("trending chain: R̂ = %.4f (chain %.4f), want > 1.2", s.RHat, s.ChainRHat[0])
	}
}

func TestSummaryEdgeCases(t *testing.T) {
	s, err := Summarise([][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}})
	if err != nil || s.RHat != 1 || s.ESSBulk != 1 || s.ESSTail != 1 || s.ESSMean != 1 || s.MCSEMean != 0 {
		t.Errorf("equal constant chains: %+v, %v; want R̂ 1, ESS 1, MCSE 0", s, err)
	}
	// (With fewer than 5 draws per half-chain Geyer's sum has no pair to
	// scan and τ̂ falls to its floor, as in ArviZ: diagnostics of a handful
	// of draws mean nothing.)
	two := [][]float64{make([]float64, 20), make([]float64, 20)}
	for i := range two[1] {
		two[1][i] = 2
	}
	if s, _ := Summarise(two); !math.IsInf(s.RHat, 1) || s.ESSBulk > 4 {
		t.Errorf("distinct constant chains: R̂ %v, ESS %v; want +Inf and at most the 4 half-chains", s.RHat, s.ESSBulk)
	}
	// A chain stuck at the largest value for over 5% of the draws: the 95%
	// quantile's indicator is constant and its ESS 1, not the draws' count.
	stuck := arChains(3, 100, 0.5, 15)
	stuck = append(stuck, []float64{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
		9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
		9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	if s, _ := Summarise(stuck); s.Quantiles[2].ESS != 1 || s.ESSTail != 1 {
		t.Errorf("a chain stuck at the maximum: ESS of the 95%% quantile %v, want 1", s.Quantiles[2].ESS)
	}
	for _, bad := range [][][]float64{nil, {{1, 2, 3}}, {{1, 2, 3, 4}, {1, 2, 3, 4, 5}}, {{1, 2, math.NaN(), 4}}, {{1, 2, math.Inf(1), 4}}} {
		if _, err := Summarise(bad); err == nil {
			t.Errorf("Summarise(%v): no error", bad)
		}
	}
}

func TestSummariseReuseDoesNotAllocate(t *testing.T) {
	var d Diagnoser
	var s Summary
	big, small := arChains(4, 1000, 0.5, 16), arChains(3, 801, 0.5, 17)
	d.Summarise(&s, big)
	if a := testing.AllocsPerRun(5, func() {
		d.Summarise(&s, small)
		d.Summarise(&s, big)
	}); a != 0 {
		t.Errorf("Summarise allocates %v times when reused", a)
	}
}

// BenchmarkSummarise is the cost of the full diagnostics of one coordinate
// (what a sampler pane recomputes, see sims/mcmcsim): the sizes are 4
// chains of 4096 draws and 4 and 8 chains at a History's cap, 65536.
func BenchmarkSummarise(b *testing.B) {
	for _, c := range []struct{ m, n int }{{4, 4096}, {4, HistoryCap}, {8, HistoryCap}} {
		b.Run(fmt.Sprintf("%dx%d", c.m, c.n), func(b *testing.B) {
			chains := arChains(c.m, c.n, 0.9, 1)
			var d Diagnoser
			var s Summary
			d.Summarise(&s, chains)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				d.Summarise(&s, chains)
			}
		})
	}
}
