package mcmc

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Convergence diagnostics of one scalar quantity sampled by several chains,
// as Stan and ArviZ compute them: A. Vehtari, A. Gelman, D. Simpson,
// B. Carpenter and P.-C. Bürkner, "Rank-normalization, folding, and
// localization: an improved R̂ for assessing convergence of MCMC",
// Bayesian Analysis 16(2), 2021. The notes only ask for
// "the effective sample size" and for convergence to "be assessed
// empirically" (seed 002 L1159–1161); these are the estimators a
// practitioner would get from Stan's summary.
//
// M chains of N draws each are split into their first and second halves
// (the middle draw of an odd N is dropped), giving 2M half-chains of
// h = ⌊N/2⌋ draws: a chain that drifts then disagrees with itself.
//
//   - Rank normalisation: every split draw is replaced by its rank r among
//     all S = 2Mh split draws (ties get their average rank) and mapped
//     through the normal quantile, z = Φ⁻¹((r − 3/8)/(S + 1/4)), Blom's
//     (1958) offsets. Issue 11 quotes the formula with S − 1/4; Blom's,
//     Stan's (posterior's backtransform_ranks) and ArviZ's denominator is
//     S + 1/4, which keeps z symmetric (r ↦ S + 1 − r flips its sign): we
//     follow them.
//   - R̂ of draws with half-chain means x̄_j and variances s_j²:
//     W = mean_j s_j², B = h·Var_j x̄_j, R̂ = √((h − 1)/h + B/(hW)). Bulk-R̂
//     is that of the z's; tail-R̂ that of the z's of the draws folded about
//     their median, |x − median| (it sees chains of equal location and
//     different scale). R̂ is the larger: above 1.01 the chains have not
//     mixed.
//   - ESS (BDA3 §11.5 with Geyer's truncation): with the half-chains'
//     biased autocovariances γ̂_{t,j}, var⁺ = (h − 1)/h·W + Var_j x̄_j and
//     ρ̂_t = 1 − (W − mean_j γ̂_{t,j})/var⁺, τ̂ by Geyer's initial
//     monotone sequence (Autocorr.geyerTau) and ESS = S/τ̂, at most
//     S·log10 S. Chains that disagree have var⁺ ≫ W, so ρ̂_t stays near 1
//     and the ESS is a handful of draws: it is never the sum of the chains'
//     ESS. Bulk-ESS is the ESS of the z's; the ESS of the raw draws gives
//     the MCSE of the mean; the ESS of the quantile indicators
//     I(x ≤ q̂_p) gives the MCSE of the quantile q̂_p (p in QuantileProbs),
//     and tail-ESS is the smaller of p = 5% and 95%.
//   - MCSE of the mean: sd/√ESS_mean. MCSE of a quantile (posterior's
//     mcse_quantile): with a = Beta(ESS_p·p + 1, ESS_p·(1 − p) + 1), the
//     draws at ranks ⌊F_a⁻¹(Φ(−1))·S⌋ and ⌈F_a⁻¹(Φ(1))·S⌉ bracket ±1 s.e.,
//     and the MCSE is half their distance.
//
// The quantiles are of all M·N draws (type 7, numpy's and R's default) and
// the folding is about the median of the split draws, as in ArviZ (for an
// even N, the usual case, every reference agrees). A constant input has
// R̂ = 1 and an ESS of 1 (ArviZ returns the number of draws and posterior
// NA; a quantile indicator is constant when more than 5% of the draws tie
// at an extreme, which only a stuck chain produces, and should not
// flatter).

// Summary holds the diagnostics of one quantity over M chains.
type Summary struct {
	Chains, Draws int // M, and N draws per chain

	Mean, SD float64 // over all M·N draws (SD with the n − 1 divisor)
	MCSEMean float64 // Monte Carlo standard error of Mean, SD/√ESSMean

	Median float64 // of all the draws
	// Quantiles are the quantiles at QuantileProbs, with their MCSE and
	// the ESS of their indicators.
	Quantiles [len(QuantileProbs)]Quantile

	RHat               float64 // max(RHatBulk, RHatTail)
	RHatBulk, RHatTail float64 // rank-normalised split R̂, plain and folded

	ESSBulk float64 // ESS of the z's
	ESSTail float64 // the smaller ESS of the 5% and 95% quantiles
	ESSMean float64 // ESS of the raw draws

	// Per chain, from its two halves on the pooled scales (the z's of all
	// the chains): its bulk-ESS and its R̂ (bulk and tail), which see a
	// chain that drifts or jumps, not one that sits in a mode of its own.
	ChainESS, ChainRHat []float64
}

// Diagnoser computes Summaries, reusing its buffers: after a first call
// with M chains of N draws, calls on no more draws do not allocate. The
// cost is one sort of the M·N draws and 12M forward FFTs of size ≈ N (two
// for each half-chain of the z's, the draws and the four quantile
// indicators); see BenchmarkSummarise. The zero value is ready to use; a Diagnoser is not
// safe for concurrent use.
type Diagnoser struct {
	ac     Autocorr
	sorted []draw     // all the draws, sorted
	tmp    []draw     // the radix sort's other buffer
	z, w   []float64  // per draw (chain-major): z-scores, then a series
	group  []int32    // a tie group's draws while ranking the folded ones
	hm, hv [2]float64 // one chain's half means and variances
	means  []float64  // half-chain means, 2M
	vars   []float64  // half-chain variances, 2M
	tot    []float64  // the chains' mean autocovariance
}

// QuantileProbs are the probabilities of a Summary's quantiles: 5% and 95%,
// whose indicators' ESS make the tail-ESS, and 1% and 99% beyond them,
// where chains that have not explored a target's tails show first.
var QuantileProbs = [...]float64{0.01, 0.05, 0.95, 0.99}

// Quantile is the p-quantile of the draws (type 7), its Monte Carlo
// standard error and the ESS of its indicator I(x ≤ Value).
type Quantile struct {
	P, Value, MCSE, ESS float64
}

// draw is one draw and where it is: chain·N + t.
type draw struct {
	v  float64
	at int32
}

// Summarise computes the Summary of chains (M ≥ 1 chains of the same
// length N ≥ 4, finite values) into s, reusing s's per-chain slices.
func (d *Diagnoser) Summarise(s *Summary, chains [][]float64) error {
	m, n, err := checkChains(chains)
	if err != nil {
		return err
	}
	d.grow(m, n)
	s.Chains, s.Draws = m, n
	s.ChainESS, s.ChainRHat = resize(s.ChainESS, m), resize(s.ChainRHat, m)

	// All the draws, in order (for the mean and sd) and sorted.
	sum := 0.0
	for c, x := range chains {
		for t, v := range x {
			d.sorted[c*n+t] = draw{v, int32(c*n + t)}
			sum += v
		}
	}
	s.Mean = sum / float64(m*n)
	ss := 0.0
	for _, x := range chains {
		for _, v := range x {
			ss += (v - s.Mean) * (v - s.Mean)
		}
	}
	s.SD = math.Sqrt(ss / float64(m*n-1))
	d.sortDraws()
	s.Median = d.quantile(0.5)

	// Bulk: the z's of the split draws, in d.z; R̂ and ESS of them.
	d.rankBulk(n)
	s.RHatBulk = d.rhat(d.z, m, n, -1)
	for c := range m {
		s.ChainRHat[c] = d.rhat(d.z, m, n, c)
	}
	s.ESSBulk = d.essSplit(d.z, m, n, s.ChainESS)
	// Tail: the z's of the folded split draws, in d.w; R̂ of them.
	d.rankFolded(n)
	s.RHatTail = d.rhat(d.w, m, n, -1)
	for c := range m {
		s.ChainRHat[c] = math.Max(s.ChainRHat[c], d.rhat(d.w, m, n, c))
	}
	s.RHat = math.Max(s.RHatBulk, s.RHatTail)

	// The raw draws, then the quantile indicators, in d.w.
	for c, x := range chains {
		copy(d.w[c*n:], x)
	}
	s.ESSMean = d.essSplit(d.w, m, n, nil)
	s.MCSEMean = s.SD / math.Sqrt(s.ESSMean)
	s.ESSTail = math.Inf(1)
	for k, p := range QuantileProbs {
		q := &s.Quantiles[k]
		q.P, q.Value = p, d.quantile(p)
		q.ESS = d.essIndicator(chains, q.Value)
		q.MCSE = d.mcseQuantile(p, q.ESS)
		if p == 0.05 || p == 0.95 {
			s.ESSTail = math.Min(s.ESSTail, q.ESS)
		}
	}
	return nil
}

// MeanESS is Summary.ESSMean alone: the split ESS of the raw draws, which
// sets the MCSE of their mean (posterior's ess_mean), at a sixth of the
// cost of a Summary.
func (d *Diagnoser) MeanESS(chains [][]float64) (float64, error) {
	m, n, err := checkChains(chains)
	if err != nil {
		return 0, err
	}
	d.grow(m, n)
	for c, x := range chains {
		copy(d.w[c*n:], x)
	}
	return d.essSplit(d.w, m, n, nil), nil
}

// checkChains returns the number and length of the chains, or why they
// cannot be diagnosed.
func checkChains(chains [][]float64) (m, n int, err error) {
	m = len(chains)
	if m == 0 {
		return 0, 0, fmt.Errorf("mcmc: diagnostics need at least one chain")
	}
	n = len(chains[0])
	if n < 4 {
		return 0, 0, fmt.Errorf("mcmc: diagnostics need chains of at least 4 draws, got %d", n)
	}
	if m*n > math.MaxInt32 {
		return 0, 0, fmt.Errorf("mcmc: diagnostics of %d draws: too many", m*n)
	}
	for c, x := range chains {
		if len(x) != n {
			return 0, 0, fmt.Errorf("mcmc: diagnostics need chains of equal length: chain %d has %d draws, chain 0 has %d", c, len(x), n)
		}
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, 0, fmt.Errorf("mcmc: chain %d has a non-finite draw %v", c, v)
			}
		}
	}
	return m, n, nil
}

// Summarise returns the Summary of chains (see Diagnoser.Summarise) with a
// fresh workspace.
func Summarise(chains [][]float64) (Summary, error) {
	var d Diagnoser
	var s Summary
	err := d.Summarise(&s, chains)
	return s, err
}

// resize returns x with length n, reallocated (to at least twice its
// capacity) when too small.
func resize(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n, max(n, 2*cap(x)))
	}
	return x[:n]
}

// grow sizes the buffers for m chains of n draws, doubling them when they
// must grow, so that chains that grow a little between calls do not
// reallocate every time.
func (d *Diagnoser) grow(m, n int) {
	if cap(d.sorted) < m*n {
		c := max(m*n, 2*cap(d.sorted))
		d.sorted = make([]draw, c)
		d.tmp = make([]draw, c)
		d.z = make([]float64, c)
		d.w = make([]float64, c)
	}
	d.sorted, d.tmp, d.z, d.w = d.sorted[:m*n], d.tmp[:m*n], d.z[:m*n], d.w[:m*n]
	d.means, d.vars = resize(d.means, 2*m), resize(d.vars, 2*m)
}

// Reserve sizes the buffers for m chains of up to n draws each now, so
// that no Summarise of such chains allocates: what the Diagnoser holds at
// its largest (diagnoserBytes) is held from the start. A tie group can be
// every draw (chains stuck at one point).
func (d *Diagnoser) Reserve(m, n int) {
	d.grow(m, n)
	d.group = make([]int32, 0, m*n)
	d.tot = make([]float64, n/2)
	d.ac.reserve(n / 2)
}

// diagnoserBytes is what a Diagnoser reserved for m chains of n draws
// holds: per draw, the sorted draws and the sort's other buffer (16 bytes
// each: a value and its int32 place, padded), two series and a tie group's
// place; per half-chain, the Autocorr and the mean autocovariance.
func diagnoserBytes(m, n int) int64 {
	draws := int64(m) * int64(n)
	return draws*(16+16+8+8+4) + autocorrBytes(n/2) + 8*int64(n/2) + 2*8*2*int64(m) + 512
}

// radixBits is the digit of the radix sort: 2048 counters fit in L1.
const radixBits = 11

// sortKey maps a float64 to a uint64 of the same order: the sign bit set
// for positives, every bit flipped for negatives.
func sortKey(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// sortDraws sorts the draws by value: a least-significant-digit radix sort
// on sortKey, radixBits a pass, skipping the passes in which every draw has
// the same digit (the high bits of draws of one scale). Six passes at most
// over the M·N draws, where a comparison sort took three times as long.
func (d *Diagnoser) sortDraws() {
	n := len(d.sorted)
	src, dst := d.sorted, d.tmp
	var count [1 << radixBits]int
	for shift := 0; shift < 64; shift += radixBits {
		clear(count[:])
		for _, e := range src {
			count[sortKey(e.v)>>shift&(1<<radixBits-1)]++
		}
		if count[sortKey(src[0].v)>>shift&(1<<radixBits-1)] == n {
			continue
		}
		at := 0
		for k, c := range count {
			count[k] = at
			at += c
		}
		for _, e := range src {
			k := sortKey(e.v) >> shift & (1<<radixBits - 1)
			dst[count[k]] = e
			count[k]++
		}
		src, dst = dst, src
	}
	if &src[0] != &d.sorted[0] {
		copy(d.sorted, src)
	}
}

// quantile is the type-7 p-quantile of the sorted draws: x_(⌊g⌋) + (g −
// ⌊g⌋)(x_(⌊g⌋+1) − x_(⌊g⌋)) at g = (S − 1)p, 0-based.
func (d *Diagnoser) quantile(p float64) float64 {
	g := float64(len(d.sorted)-1) * p
	k := int(g)
	if k+1 >= len(d.sorted) {
		return d.sorted[len(d.sorted)-1].v
	}
	lo, hi := d.sorted[k].v, d.sorted[k+1].v
	return lo + (g-float64(k))*(hi-lo)
}

// middle reports whether draw at is the dropped middle of its chain (of
// odd length n).
func middle(at int32, n int) bool { return n%2 == 1 && int(at)%n == n/2 }

// blom is the z-score of average rank r among s values.
func blom(r float64, s int) float64 {
	return distuv.UnitNormal.Quantile((r - 3.0/8) / (float64(s) + 1.0/4))
}

// rankBulk writes the z-score of every split draw into d.z.
func (d *Diagnoser) rankBulk(n int) {
	s := len(d.sorted)
	if n%2 == 1 {
		s -= len(d.sorted) / n
	}
	r := 0 // split draws ranked so far
	for i := 0; i < len(d.sorted); {
		j, k := i, 0
		for ; j < len(d.sorted) && d.sorted[j].v == d.sorted[i].v; j++ {
			if !middle(d.sorted[j].at, n) {
				k++
			}
		}
		z := blom(float64(r)+float64(k+1)/2, s)
		for _, e := range d.sorted[i:j] {
			d.z[e.at] = z
		}
		r += k
		i = j
	}
}

// rankFolded writes the z-score of every split draw folded about the
// median of the split draws, |x − median|, into d.w. The folded values are
// ranked without a second sort: walking the sorted draws outwards from the
// median gives them in increasing order (x ↦ median − x decreases and
// x ↦ x − median increases, in floating point too).
func (d *Diagnoser) rankFolded(n int) {
	med := d.splitMedian(n)
	s := len(d.sorted)
	if n%2 == 1 {
		s -= len(d.sorted) / n
	}
	hi, _ := slices.BinarySearchFunc(d.sorted, med, func(e draw, v float64) int {
		if e.v < v {
			return -1
		}
		return 1 // the first draw ≥ med
	})
	lo := hi - 1
	r := 0
	cur := math.NaN()
	flush := func() {
		z := blom(float64(r)+float64(len(d.group)+1)/2, s)
		for _, at := range d.group {
			d.w[at] = z
		}
		r += len(d.group)
		d.group = d.group[:0]
	}
	for lo >= 0 || hi < len(d.sorted) {
		var e draw
		var f float64
		if hi >= len(d.sorted) || (lo >= 0 && med-d.sorted[lo].v < d.sorted[hi].v-med) {
			e, f = d.sorted[lo], med-d.sorted[lo].v
			lo--
		} else {
			e, f = d.sorted[hi], d.sorted[hi].v-med
			hi++
		}
		if middle(e.at, n) {
			continue
		}
		if f != cur && len(d.group) > 0 {
			flush()
		}
		cur = f
		d.group = append(d.group, e.at)
	}
	flush()
}

// splitMedian is the median of the split draws (the middle draws of odd
// chains left out), the average of the two central ones when their number
// is even.
func (d *Diagnoser) splitMedian(n int) float64 {
	s := len(d.sorted)
	if n%2 == 1 {
		s -= len(d.sorted) / n
	}
	k0, k1 := (s-1)/2, s/2 // 0-based ranks among the split draws
	var v0, v1 float64
	k := 0
	for _, e := range d.sorted {
		if middle(e.at, n) {
			continue
		}
		if k == k0 {
			v0 = e.v
		}
		if k == k1 {
			v1 = e.v
			break
		}
		k++
	}
	return (v0 + v1) / 2
}

// halves returns the two halves of chain c in a chain-major series y of
// chains of length n.
func halves(y []float64, c, n int) (first, second []float64) {
	h := n / 2
	return y[c*n : c*n+h], y[c*n+n-h : c*n+n]
}

// rhat is the split R̂ of the series y (chain-major, chains of length n):
// over all 2m half-chains, or over chain c's two halves when c ≥ 0.
func (d *Diagnoser) rhat(y []float64, m, n, c int) float64 {
	means, vars := d.means[:0], d.vars[:0]
	if c >= 0 {
		means, vars = d.hm[:0], d.hv[:0]
	}
	for k := range m {
		if c >= 0 && k != c {
			continue
		}
		a, b := halves(y, k, n)
		for _, x := range [2][]float64{a, b} {
			mu, v := meanVar(x)
			means, vars = append(means, mu), append(vars, v)
		}
	}
	return rhatOf(means, vars, n/2)
}

// rhatOf is R̂ = √((h − 1)/h + B/(hW)) from the half-chains' means and
// variances, B = h·Var(means), W = mean(vars): 1 when every half-chain is
// constant and they agree, +Inf when they are constant and disagree.
func rhatOf(means, vars []float64, h int) float64 {
	w := 0.0
	for _, v := range vars {
		w += v
	}
	w /= float64(len(vars))
	_, vm := meanVar(means)
	b := float64(h) * vm
	if w == 0 {
		if b == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return math.Sqrt((b/w + float64(h) - 1) / float64(h))
}

// essSplit is the ESS of the series y (chain-major, m chains of length n)
// split into 2m half-chains: S/τ̂ with S = 2m·⌊n/2⌋ and τ̂ from geyerTau on
// the half-chains' mean autocovariance. With perChain non-nil it also
// writes there each chain's ESS from its own two halves (the same
// autocovariances: no further FFT of the draws).
func (d *Diagnoser) essSplit(y []float64, m, n int, perChain []float64) float64 {
	h := n / 2
	a := &d.ac
	a.plan(h)
	means := d.means[:2*m]
	for c := range m {
		first, second := halves(y, c, n)
		means[2*c], means[2*c+1] = mean(first), mean(second)
	}
	if perChain == nil {
		for c := range m {
			first, second := halves(y, c, n)
			a.addPeriodogram(first, means[2*c])
			a.addPeriodogram(second, means[2*c+1])
		}
		return d.essFrom(a.autocovSum(2*m), means, h)
	}
	// Chain by chain: its two halves' mean autocovariance gives its ESS,
	// and the chains' average the ESS of all.
	total := resize(d.tot, h)
	d.tot = total
	clear(total)
	for c := range m {
		first, second := halves(y, c, n)
		a.addPeriodogram(first, means[2*c])
		a.addPeriodogram(second, means[2*c+1])
		acov := a.autocovSum(2)
		perChain[c] = d.essFrom(acov, means[2*c:2*c+2], h)
		for t, g := range acov {
			total[t] += g / float64(m)
		}
	}
	return d.essFrom(total, means, h)
}

// essFrom is S/τ̂ for half-chains of length h with the given means and mean
// autocovariance acov: W = acov_0·h/(h − 1), var⁺ = (h − 1)/h·W +
// Var(means). Half-chains that are all constant and equal (var⁺ = 0) give
// 1.
func (d *Diagnoser) essFrom(acov, means []float64, h int) float64 {
	w := acov[0] * float64(h) / float64(h-1)
	_, vm := meanVar(means)
	varPlus := w*float64(h-1)/float64(h) + vm
	if varPlus == 0 {
		return 1
	}
	total := len(means) * h
	return float64(total) / d.ac.geyerTau(acov, w, varPlus, total)
}

// essIndicator is the split ESS of the indicator series I(x ≤ q).
func (d *Diagnoser) essIndicator(chains [][]float64, q float64) float64 {
	n := len(chains[0])
	for c, x := range chains {
		for t, v := range x {
			d.w[c*n+t] = 0
			if v <= q {
				d.w[c*n+t] = 1
			}
		}
	}
	return d.essSplit(d.w, len(chains), n, nil)
}

// Φ(−1) and Φ(1) to seven digits, the constants of posterior's and ArviZ's
// mcse_quantile.
const (
	phiMinus1 = 0.1586553
	phiPlus1  = 0.8413447
)

// mcseQuantile is the MCSE of the p-quantile of the sorted draws whose
// indicator has the given ESS (see the file comment).
func (d *Diagnoser) mcseQuantile(p, ess float64) float64 {
	b := distuv.Beta{Alpha: ess*p + 1, Beta: ess*(1-p) + 1}
	s := len(d.sorted)
	i1 := max(int(math.Floor(b.Quantile(phiMinus1)*float64(s))), 1) - 1
	i2 := min(int(math.Ceil(b.Quantile(phiPlus1)*float64(s))), s) - 1
	return (d.sorted[i2].v - d.sorted[i1].v) / 2
}
