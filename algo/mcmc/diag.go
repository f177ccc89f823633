package mcmc

import (
	"fmt"
	"math"
	"math/bits"

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
// time.
//
// The autocorrelations are computed by FFT (gonum's dsp/fourier), in
// O(S log S) for every lag at once: the sum defining τ needs lags out to a
// few τ, which for a poorly mixing chain can be thousands, so a direct
// O(S·maxlag) sum with a capped lag would have to choose between being slow
// and truncating too early. The series is centred and zero-padded to a
// power of two ≥ 2S, so the circular correlation equals the linear one.

// Autocorr computes autocorrelations and effective sample sizes, reusing
// its FFT plan and buffers between calls: after the first call on series
// of a given length, further calls on series no longer do not allocate.
// The zero value is ready to use. An Autocorr is not safe for concurrent
// use.
type Autocorr struct {
	fft  *fourier.FFT
	pad  []float64    // centred, zero-padded series; then the autocovariance
	coef []complex128 // its spectrum
}

// autocov fills a.pad[:len(x)] with the biased autocovariance estimates
//
//	γ̂_k = (1/S) Σ_{t=0}^{S−1−k} (x_t − x̄)(x_{t+k} − x̄),   k = 0, ..., S−1,
//
// (the 1/S divisor keeps the sequence positive semi-definite, |ρ̂_k| ≤ 1, as
// Geyer's estimator assumes) and returns that slice. len(x) must be ≥ 1.
func (a *Autocorr) autocov(x []float64) []float64 {
	n := len(x)
	m := 1 << bits.Len(uint(2*n-1)) // power of two ≥ 2n
	if a.fft == nil {
		a.fft = fourier.NewFFT(m)
	} else if a.fft.Len() != m {
		a.fft.Reset(m)
	}
	if cap(a.pad) < m {
		a.pad = make([]float64, m)
		a.coef = make([]complex128, m/2+1)
	}
	a.pad, a.coef = a.pad[:m], a.coef[:m/2+1]
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	for i, v := range x {
		a.pad[i] = v - mean
	}
	clear(a.pad[n:])
	a.fft.Coefficients(a.coef, a.pad)
	for i, c := range a.coef {
		a.coef[i] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
	}
	a.fft.Sequence(a.pad, a.coef)
	// The unnormalised round trip multiplies by m; the estimator divides by n.
	scale := 1 / (float64(m) * float64(n))
	acov := a.pad[:n]
	for i := range acov {
		acov[i] *= scale
	}
	return acov
}

// ACF returns the sample autocorrelations ρ̂_k = γ̂_k/γ̂_0 for k = 0, ...,
// maxLag (clipped to len(x) − 1), appended to dst[:0]. A constant series has
// ρ̂_0 = 1 and ρ̂_k = 0 for k ≥ 1; an empty one gives an empty result.
func (a *Autocorr) ACF(dst, x []float64, maxLag int) []float64 {
	_, dst = a.Analyse(x, dst, maxLag)
	return dst
}

// IAT returns the integrated autocorrelation time τ̂ = 1 + 2 Σ_{k≥1} ρ̂_k
// by Geyer's initial monotone sequence estimator (C. J. Geyer, "Practical
// Markov chain Monte Carlo", Statistical Science 7(4), 1992, §3.3). The
// raw sum over all lags has a variance that does not vanish as S grows, so
// it is truncated using the pair sums Γ_m = γ̂_{2m} + γ̂_{2m+1}, which are
// positive and decreasing for a reversible chain: the sum keeps Γ_0, ...,
// Γ_M up to the last M before the first Γ_m ≤ 0 (the initial positive
// sequence), each lowered to the minimum of those before it (the initial
// monotone sequence), and
//
//	τ̂ = (−γ̂_0 + 2 Σ_{m=0}^{M} Γ_m) / γ̂_0.
//
// τ̂ can drop below 1 for an antithetic chain (ρ̂_1 < 0); as in Stan it is
// floored at 1/log10(S) so that the ESS stays finite. Series shorter than 4
// give τ̂ = 1 (too short to estimate correlations), and a constant series
// gives τ̂ = S (it carries the information of one draw).
func (a *Autocorr) IAT(x []float64) float64 {
	tau, _ := a.Analyse(x, nil, -1)
	return tau
}

// Analyse returns both IAT(x) and ACF(dst, x, maxLag) from a single FFT
// (maxLag < 0: no autocorrelations, dst[:0] is returned).
func (a *Autocorr) Analyse(x, dst []float64, maxLag int) (tau float64, acf []float64) {
	n := len(x)
	acf = dst[:0]
	maxLag = min(maxLag, n-1)
	if n == 0 {
		return 1, acf
	}
	if constant(x) {
		if maxLag >= 0 {
			acf = append(acf, 1)
			for range maxLag {
				acf = append(acf, 0)
			}
		}
		return float64(n), acf
	}
	if n < 4 && maxLag < 0 {
		return 1, acf
	}
	acov := a.autocov(x)
	for k := 0; k <= maxLag; k++ {
		acf = append(acf, acov[k]/acov[0])
	}
	if n < 4 {
		return 1, acf
	}
	sum, prev := 0.0, math.Inf(1)
	for m := 0; 2*m+1 < n; m++ {
		g := acov[2*m] + acov[2*m+1]
		if g <= 0 {
			break
		}
		g = math.Min(g, prev)
		sum += g
		prev = g
	}
	tau = (2*sum - acov[0]) / acov[0]
	return math.Max(tau, 1/math.Log10(math.Max(float64(n), 10))), acf
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

// SplitRHat returns the split potential scale reduction factor R̂ of one
// scalar quantity over several chains (Gelman et al., Bayesian Data
// Analysis, 3rd ed., 2013, §11.4; without the rank normalisation of Vehtari
// et al. 2021). Each chain of length n is split into its first and second
// halves (the middle draw of an odd n is dropped), giving M half-chains of
// length h = ⌊n/2⌋ with means x̄_j and variances s_j². With
//
//	W = mean_j s_j²,   B = h · Var_j(x̄_j),   v̂ = (h−1)/h · W + B/h,
//
// R̂ = √(v̂/W), which tends to 1 as the chains mix and exceeds 1 when they
// disagree with each other or drift (the split catches a single trending
// chain). Values above about 1.01 mean "not mixed yet" (Vehtari et al.).
//
// The chains must be at least one, all of the same length n ≥ 4, else it
// returns an error. If every half-chain is constant, R̂ is 1 when they
// agree and +Inf when they do not.
func SplitRHat(chains [][]float64) (float64, error) {
	if len(chains) == 0 {
		return 0, fmt.Errorf("mcmc: split R-hat needs at least one chain")
	}
	n := len(chains[0])
	if n < 4 {
		return 0, fmt.Errorf("mcmc: split R-hat needs chains of length ≥ 4, got %d", n)
	}
	for i, c := range chains {
		if len(c) != n {
			return 0, fmt.Errorf("mcmc: split R-hat needs chains of equal length: chain %d has %d, chain 0 has %d", i, len(c), n)
		}
	}
	h := n / 2
	m := 2 * len(chains)
	var means, vars []float64
	for _, c := range chains {
		for _, half := range [][]float64{c[:h], c[n-h:]} {
			mu, v := meanVar(half)
			means = append(means, mu)
			vars = append(vars, v)
		}
	}
	w := 0.0
	for _, v := range vars {
		w += v
	}
	w /= float64(m)
	_, vm := meanVar(means)
	b := float64(h) * vm
	if w == 0 {
		if b == 0 {
			return 1, nil
		}
		return math.Inf(1), nil
	}
	vhat := float64(h-1)/float64(h)*w + b/float64(h)
	return math.Sqrt(vhat / w), nil
}

// meanVar returns the mean and the unbiased variance (0 for one value).
func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x)-1)
}
