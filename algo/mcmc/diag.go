package mcmc

import (
	"math"
	"math/bits"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/dsp/fourier"
)

// Diagnostics of a chain's output (seed 002 §3.2, "Practical
// considerations", L1157–1166; the formulas are the catalogue's [D]
// additions, seed-002-catalog C6). The samples of a chain are correlated,
// so "it is the effective sample size that governs the quality of the
// approximation" (L1161): a Monte Carlo mean over S correlated draws has
// the variance of a mean over ESS independent ones,
//
//	Var[x̄] ≈ σ²/ESS,   ESS = S/τ,   τ = 1 + 2 Σ_{k≥1} ρ_k,
//
// with ρ_k the lag-k autocorrelation and τ the integrated autocorrelation
// time. This file holds the autocovariances and the one estimator of τ
// (Geyer's, as Stan computes it); convergence.go applies it to several
// chains at once.
//
// The autocovariances are computed by FFT (gonum's dsp/fourier), in
// O(S log S) for every lag at once: the sum defining τ needs lags out to a
// few τ, which for a poorly mixing chain can be thousands, so a direct
// O(S·maxlag) sum with a capped lag would have to choose between being slow
// and truncating too early. A series is centred and zero-padded to a length
// ≥ 2S − 1 (fftSize), so the circular correlation equals the linear one.

// Autocorr computes autocorrelations and effective sample sizes, reusing
// its FFT plan and buffers between calls: after the first call on series
// of a given length, further calls on series no longer do not allocate.
// The zero value is ready to use. An Autocorr is not safe for concurrent
// use.
type Autocorr struct {
	fft  *fourier.FFT
	n    int          // the series length the plan is for
	pad  []float64    // centred, zero-padded series; then an autocovariance
	coef []complex128 // its spectrum
	spec []float64    // a sum of periodograms |X_j|²
	acov []float64    // autocovariances, lags 0..n−1
	rho  []float64    // Geyer's sequence
}

// fftSize is the smallest m ≥ 2n − 1 whose prime factors are 2, 3 and 5,
// the sizes gonum's FFT (FFTPACK) transforms fastest: zero-padding to it
// makes the circular autocorrelation linear at up to 40% less cost than
// the next power of two.
func fftSize(n int) int {
	best := 1 << bits.Len(uint(2*n-1)) // a power of two ≥ 2n − 1
	for p3 := 1; p3 < best; p3 *= 3 {
		for p35 := p3; p35 < best; p35 *= 5 {
			m := p35
			for m < 2*n-1 {
				m *= 2
			}
			best = min(best, m)
		}
	}
	return best
}

// plan readies the FFT, the buffers and an empty periodogram sum for
// series of length n ≥ 1. A plan of any size from 2n − 1 to twice that is
// kept (more zero padding changes nothing), and a new one is made with a
// quarter of headroom, so that series that grow a little between calls do
// not pay for a new FFT plan (its twiddle factors) every time; buffers
// grow by doubling.
func (a *Autocorr) plan(n int) {
	need := 2*n - 1
	m := 0
	switch {
	case a.fft == nil:
		m = fftSize(n + n/4)
		a.fft = fourier.NewFFT(m)
	case a.n == 0: // reserved: the first plan, in buffers made for larger ones
		m = fftSize(n + n/4)
		a.fft.Reset(m)
	case a.fft.Len() < need || a.fft.Len() > 2*need:
		m = fftSize(n + n/4)
		a.fft.Reset(m)
	default:
		m = a.fft.Len()
	}
	if cap(a.pad) < m {
		c := max(m, 2*cap(a.pad))
		a.pad = make([]float64, c)
		a.coef = make([]complex128, c/2+1)
		a.spec = make([]float64, c/2+1)
	}
	if cap(a.acov) < n {
		c := max(n, 2*cap(a.acov))
		a.acov = make([]float64, c)
		a.rho = make([]float64, c)
	}
	a.n = n
	a.pad, a.coef, a.spec = a.pad[:m], a.coef[:m/2+1], a.spec[:m/2+1]
	clear(a.spec)
}

// reserve makes the FFT plan's and the buffers' room for series of up to
// n values now, so that no later call allocates: what the Autocorr holds
// at its largest (autocorrBytes) is held from the start, and can be
// charged before a run. The plans made are the same as without it (the
// first is still fftSize of its own series), so are the numbers.
func (a *Autocorr) reserve(n int) {
	m := fftSize(n + n/4) // the largest plan of a series of ≤ n values
	a.fft = fourier.NewFFT(m)
	a.pad = make([]float64, m)
	a.coef = make([]complex128, m/2+1)
	a.spec = make([]float64, m/2+1)
	a.acov = make([]float64, n)
	a.rho = make([]float64, n)
}

// autocorrBytes is what an Autocorr holds once reserved for series of up
// to n values: the FFT plan (gonum's, 3m float64s), the padded series, its
// spectrum (complex) and periodogram, and the autocovariances and Geyer's
// sequence.
func autocorrBytes(n int) int64 {
	m := int64(fftSize(n + n/4))
	return 8*3*m + algo.HeapBytes(8*m) + algo.HeapBytes(16*(m/2+1)) + algo.HeapBytes(8*(m/2+1)) + 2*algo.HeapBytes(8*int64(n)) + 256
}

// addPeriodogram adds |FFT(x − mean)|² to the periodogram sum; x has the
// planned length.
func (a *Autocorr) addPeriodogram(x []float64, mean float64) {
	for i, v := range x {
		a.pad[i] = v - mean
	}
	clear(a.pad[len(x):])
	a.fft.Coefficients(a.coef, a.pad)
	for i, c := range a.coef {
		a.spec[i] += real(c)*real(c) + imag(c)*imag(c)
	}
}

// autocovSum transforms the periodogram sum back: it returns, in a.acov,
// the sum over the series added of their biased autocovariances
//
//	γ̂_k = (1/n) Σ_{t=0}^{n−1−k} (x_t − x̄)(x_{t+k} − x̄),   k = 0, ..., n−1,
//
// divided by count (count = the number of series: their mean). The 1/n
// divisor keeps each sequence positive semi-definite, as Geyer's estimator
// assumes. The periodogram sum is emptied.
func (a *Autocorr) autocovSum(count int) []float64 {
	for i, s := range a.spec {
		a.coef[i] = complex(s, 0)
	}
	a.fft.Sequence(a.pad, a.coef)
	// The unnormalised round trip multiplies by m; the estimator divides by n.
	scale := 1 / (float64(len(a.pad)) * float64(a.n) * float64(count))
	acov := a.acov[:a.n]
	for i := range acov {
		acov[i] = a.pad[i] * scale
	}
	clear(a.spec)
	return acov
}

// autocov returns the biased autocovariances of x (len(x) ≥ 1) in a.acov.
func (a *Autocorr) autocov(x []float64) []float64 {
	a.plan(len(x))
	a.addPeriodogram(x, mean(x))
	return a.autocovSum(1)
}

// geyerTau returns Geyer's estimate of the integrated autocorrelation time
// of m series of length n from their mean biased autocovariance acov (lags
// 0..n−1), their mean unbiased variance w and the variance estimate
// varPlus: the multi-chain estimator of Vehtari et al. (2021, §3.2), as
// Stan and ArviZ compute it. With the combined autocorrelations
//
//	ρ̂_t = 1 − (w − acov_t)/var⁺,
//
// (ρ̂_0 = 1) it sums the pairs P̂_k = ρ̂_{2k} + ρ̂_{2k+1} while they are
// positive (Geyer's initial positive sequence; C. J. Geyer, "Practical
// Markov chain Monte Carlo", Statistical Science 7(4), 1992, §3.3), lowers
// each pair to the one before it when it is larger (the initial monotone
// sequence), and adds the first non-positive pair's even term when it is
// positive (Stan's "improved estimate", which reduces the variance for
// antithetic chains):
//
//	τ̂ = −1 + 2 Σ_{t<2K} ρ̂_t + max(ρ̂_{2K}, 0).
//
// The pairs are scanned while 2k + 1 ≤ n − 2, as ArviZ does. τ̂ is floored
// at 1/log10(total), total = m·n draws, so that ESS = total/τ̂ stays below
// total·log10(total) (Stan's and ArviZ's cap: τ̂ can fall below 1, or to
// zero, for antithetic chains). varPlus must be > 0.
func (a *Autocorr) geyerTau(acov []float64, w, varPlus float64, total int) float64 {
	n := len(acov)
	rho := a.rho[:n]
	clear(rho)
	rho[0] = 1
	even, odd := 1.0, 1-(w-acov[1])/varPlus
	rho[1] = odd
	t := 1
	for t < n-3 && even+odd > 0 {
		even = 1 - (w-acov[t+1])/varPlus
		odd = 1 - (w-acov[t+2])/varPlus
		if even+odd >= 0 {
			rho[t+1], rho[t+2] = even, odd
		}
		t += 2
	}
	last := t - 1 // the even lag of the first pair not kept
	if even > 0 {
		rho[last] = even
	}
	for t := 2; t+1 < last; t += 2 {
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	sum := 0.0
	for _, r := range rho[:last] {
		sum += r
	}
	tau := -1 + 2*sum + rho[last]
	return math.Max(tau, 1/math.Log10(float64(total)))
}

// ACF returns the sample autocorrelations ρ̂_k = γ̂_k/γ̂_0 for k = 0, ...,
// maxLag (clipped to len(x) − 1), appended to dst[:0]. A constant series has
// ρ̂_0 = 1 and ρ̂_k = 0 for k ≥ 1; an empty one gives an empty result.
func (a *Autocorr) ACF(dst, x []float64, maxLag int) []float64 {
	acf := dst[:0]
	maxLag = min(maxLag, len(x)-1)
	if maxLag < 0 {
		return acf
	}
	if constant(x) {
		acf = append(acf, 1)
		for range maxLag {
			acf = append(acf, 0)
		}
		return acf
	}
	acov := a.autocov(x)
	for k := 0; k <= maxLag; k++ {
		acf = append(acf, acov[k]/acov[0])
	}
	return acf
}

// IAT returns the integrated autocorrelation time τ̂ of one series, whole
// (not split): geyerTau for a single chain, where w = γ̂_0·S/(S−1) and
// var⁺ = γ̂_0, so that ρ̂_t = (γ̂_t − γ̂_0/(S−1))/γ̂_0 (what Stan and ArviZ
// compute for one chain unsplit). Series shorter than 4 give τ̂ = 1 (too
// short to estimate correlations), and a constant series gives τ̂ = S (it
// carries the information of one draw).
func (a *Autocorr) IAT(x []float64) float64 {
	n := len(x)
	if n < 4 {
		return 1
	}
	if constant(x) {
		return float64(n)
	}
	acov := a.autocov(x)
	return a.geyerTau(acov, acov[0]*float64(n)/float64(n-1), acov[0], n)
}

// ESS returns the effective sample size S/τ̂ of the series, with τ̂ from IAT:
// 0 for an empty series, 1 for a constant one.
func (a *Autocorr) ESS(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return float64(len(x)) / a.IAT(x)
}

// ACF returns the sample autocorrelations of x up to maxLag (see
// Autocorr.ACF). It allocates a fresh workspace; use an Autocorr to repeat.
func ACF(x []float64, maxLag int) []float64 {
	var a Autocorr
	return a.ACF(nil, x, maxLag)
}

// IAT returns the integrated autocorrelation time of x (see Autocorr.IAT).
func IAT(x []float64) float64 {
	var a Autocorr
	return a.IAT(x)
}

// ESS returns the effective sample size of x (see Autocorr.ESS).
func ESS(x []float64) float64 {
	var a Autocorr
	return a.ESS(x)
}

func constant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// mean returns the mean of x, exactly its value for a constant series (a
// sum of equal terms divided by their count can be off by an ulp, which
// would leave a constant series a variance of 1e-34 instead of 0).
func mean(x []float64) float64 {
	m, lo, hi := 0.0, x[0], x[0]
	for _, v := range x {
		m += v
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo == hi {
		return x[0]
	}
	return m / float64(len(x))
}

// meanVar returns the mean and the unbiased variance (0 for one value or a
// constant series).
func meanVar(x []float64) (m, variance float64) {
	m = mean(x)
	if len(x) < 2 {
		return m, 0
	}
	for _, v := range x {
		variance += (v - m) * (v - m)
	}
	return m, variance / float64(len(x)-1)
}
