package mcmc

// Sizes of a History.
const (
	// HistoryCap is the number of samples per coordinate that a History
	// keeps of the whole run, thinning by two whenever it is full.
	HistoryCap = 1 << 16
	// WindowLen is the number of most recent samples per coordinate that a
	// History keeps unthinned, for the autocorrelation charts.
	WindowLen = 4096
)

// History records a chain's samples (after burn-in) for the diagnostics in
// bounded memory, however long the run:
//
//   - exact running moments of every sample (Moments);
//   - the whole run, thinned: samples 0, k, 2k, ... for a stride k that
//     starts at 1 and doubles, dropping every other kept sample, whenever
//     HistoryCap samples are kept (as sims.Trace does for curves). The
//     convergence diagnostics (Summary) are computed on it: whole chains,
//     never a window. Once thinned, their ESS is that of the thinned run,
//     which is lower than the whole run's when the chain decorrelates in
//     fewer than k steps: a conservative figure, never a flattering one;
//   - the last WindowLen samples, unthinned, in a ring, for the
//     autocorrelation charts (ACF).
//
// Add never allocates.
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

// historyBytes is what NewHistory allocates for d-vectors: the thinned
// run and the window of every coordinate, the window's scratch and the
// moments (the Autocorr of ACF is lazy: reserveACF).
func historyBytes(d int) int64 {
	d = max(d, 1)
	return 8*int64(d)*(HistoryCap+WindowLen) + 8*WindowLen + momentsBytes(d) + 256
}

// reserveACF makes the room of ACF's autocorrelations of the window now:
// it does not allocate afterwards.
func (h *History) reserveACF() { h.ac.reserve(WindowLen) }

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
