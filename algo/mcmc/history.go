package mcmc

import "math"

// Sizes of a History.
const (
	// HistoryCap is the number of samples per coordinate that a History
	// keeps of the whole run, thinning by two whenever it is full.
	HistoryCap = 1 << 16
	// WindowLen is the number of most recent samples per coordinate that a
	// History keeps unthinned.
	WindowLen = 4096
	// reliableWindow: an IAT estimate from L draws is trusted when
	// L ≥ reliableWindow·τ̂ (the "at least 50τ" rule of thumb of
	// Foreman-Mackey et al., emcee, and Sokal's lectures on MC methods).
	reliableWindow = 50
)

// History records a chain's samples (after burn-in) for the diagnostics in
// bounded memory, however long the run:
//
//   - exact running moments of every sample (Moments);
//   - the whole run thinned: samples 0, k, 2k, ... for a stride k that
//     starts at 1 and doubles, dropping every other kept sample, whenever
//     HistoryCap samples are kept (as sims.Trace does for curves);
//   - the last WindowLen samples, unthinned, in a ring.
//
// The two buffers complement each other in the ESS estimate: thinning by k
// hides correlations shorter than k (the ESS of a fast-mixing chain is then
// underestimated), and a window shorter than about 50τ underestimates long
// correlations. Add never allocates.
type History struct {
	d      int
	n      int // samples offered
	mom    *Moments
	hist   [][]float64 // per coordinate: the thinned run, cap HistoryCap
	stride int
	win    [][]float64 // per coordinate: ring of the last WindowLen samples
	at     int         // next write position in win
	ac     Autocorr
	buf    []float64 // scratch for a window in order or a sub-sampled run
}

// NewHistory returns an empty history of d-vectors (d ≥ 1).
func NewHistory(d int) *History {
	d = max(d, 1)
	h := &History{d: d, mom: NewMoments(d), stride: 1,
		hist: make([][]float64, d), win: make([][]float64, d),
		buf: make([]float64, 0, WindowLen)}
	for i := range d {
		h.hist[i] = make([]float64, 0, HistoryCap)
		h.win[i] = make([]float64, WindowLen)
	}
	return h
}

// Add records the next sample, of the history's dimension.
func (h *History) Add(x []float64) {
	h.mom.Add(x)
	for i := range h.d {
		h.win[i][h.at] = x[i]
	}
	h.at = (h.at + 1) % WindowLen
	idx := h.n
	h.n++
	if idx%h.stride != 0 {
		return
	}
	if len(h.hist[0]) == HistoryCap {
		for i := range h.d {
			c := h.hist[i]
			for j := 0; 2*j < len(c); j++ {
				c[j] = c[2*j]
			}
			h.hist[i] = c[:(len(c)+1)/2]
		}
		h.stride *= 2
		if idx%h.stride != 0 {
			return
		}
	}
	for i := range h.d {
		h.hist[i] = append(h.hist[i], x[i])
	}
}

// N is the number of samples recorded.
func (h *History) N() int { return h.n }

// Dim is the dimension of the samples.
func (h *History) Dim() int { return h.d }

// Moments returns the running moments of all samples (do not modify).
func (h *History) Moments() *Moments { return h.mom }

// Run returns the kept run of coordinate i: samples 0, k, 2k, ... for
// k = Stride() (a view: do not modify; it changes on Add).
func (h *History) Run(i int) []float64 { return h.hist[i] }

// Stride is the thinning of the kept run: it holds samples 0, k, 2k, ...
func (h *History) Stride() int { return h.stride }

// window copies the last min(N, WindowLen) samples of coordinate i, oldest
// first, into the scratch buffer and returns it.
func (h *History) window(i int) []float64 {
	n := min(h.n, WindowLen)
	h.buf = h.buf[:0]
	if h.n > WindowLen {
		h.buf = append(h.buf, h.win[i][h.at:]...)
		h.buf = append(h.buf, h.win[i][:h.at]...)
	} else {
		h.buf = append(h.buf, h.win[i][:n]...)
	}
	return h.buf
}

// ACF returns the autocorrelations of coordinate i at lags 0..maxLag over
// the window of recent samples, appended to dst[:0].
func (h *History) ACF(dst []float64, i, maxLag int) []float64 {
	return h.ac.ACF(dst, h.window(i), maxLag)
}

// ESS estimates the effective sample size N/τ̂ of coordinate i over all N
// samples recorded, running no FFT on more than budget points (budget ≤ 0:
// no limit, at most HistoryCap). Each FFT costs O(L log L) for L points:
// about 0.3 ms at L = 4096 and 10 ms at 65536.
//
// While the kept run is unthinned and within the budget, τ̂ is Geyer's
// estimate on every sample (IAT). Otherwise let kj be the stride of the
// kept run once sub-sampled by j to fit the budget, τ̂_W the estimate on the
// window of the last WindowLen samples, and τ̂_R = kj·τ̂(sub-sampled run),
// which approximates τ when τ ≫ kj and overestimates it when τ ≲ kj (it
// cannot see correlations shorter than kj). Then
//
//   - if the window is reliable (at least 50τ̂_W long) and kj > τ̂_W/2,
//     τ̂ = τ̂_W: the run is too coarse, the window sees everything;
//   - if the window is reliable and kj ≤ τ̂_W/2, τ̂ = τ̂_R, from more data;
//   - if it is not, τ̂ = max(τ̂_R, τ̂_W), both being biased low or
//     conservatively high.
//
// The window's estimate has a relative error of roughly 10% (τ ≈ 3) to 20%
// (τ ≈ 20). The result is finite: 0 with no samples, about 1 for a
// constant chain.
func (h *History) ESS(i, budget int) float64 {
	ess, _ := h.Diagnose(i, budget, nil, -1)
	return ess
}

// Diagnose returns ESS(i, budget) and, from the same FFTs, the
// autocorrelations at lags 0..maxLag (appended to dst[:0]; none when
// maxLag < 0) of the series that resolves the short lags: every sample
// while the kept run is unthinned and within the budget, else the window
// of the last WindowLen samples.
func (h *History) Diagnose(i, budget int, dst []float64, maxLag int) (ess float64, acf []float64) {
	if h.n == 0 {
		return 0, dst[:0]
	}
	if budget <= 0 {
		budget = HistoryCap
	}
	run := h.hist[i]
	if h.stride == 1 && len(run) <= budget {
		tau, acf := h.ac.Analyse(run, dst, maxLag)
		return float64(h.n) / tau, acf
	}
	tauW, acf := h.ac.Analyse(h.window(i), dst, maxLag)
	reliable := tauW*reliableWindow <= float64(min(h.n, WindowLen))
	j := (len(run) + budget - 1) / budget
	kj := float64(h.stride * j)
	if reliable && kj > tauW/2 {
		return float64(h.n) / tauW, acf
	}
	if j > 1 {
		h.buf = h.buf[:0]
		for t := 0; t < len(run); t += j {
			h.buf = append(h.buf, run[t])
		}
		run = h.buf
	}
	tau := kj * h.ac.IAT(run)
	if !reliable {
		tau = math.Max(tau, tauW)
	}
	return float64(h.n) / tau, acf
}
