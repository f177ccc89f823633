package mcmc

// Moments accumulates the sample mean and covariance of a stream of
// d-vectors in one pass and O(d²) memory, by Welford's update (B. P.
// Welford, Technometrics 4(3), 1962; the multivariate form as in Chan,
// Golub & LeVeque 1983): on the n-th vector x,
//
//	δ = x − x̄_{n−1},   x̄_n = x̄_{n−1} + δ/n,   C_n = C_{n−1} + δ (x − x̄_n)ᵀ,
//
// where C_n = Σ_t (x_t − x̄_n)(x_t − x̄_n)ᵀ is the matrix of co-moments.
// Unlike accumulating Σx and Σxxᵀ it does not lose precision when the mean
// is large relative to the spread. A sampler feeds it the states after
// burn-in. Add does not allocate.
type Moments struct {
	n     int
	mean  []float64
	c     []float64 // d×d co-moments, row-major
	delta []float64 // scratch
}

// NewMoments returns an empty accumulator for vectors of dimension d ≥ 1
// (a d < 1 is taken as 1).
func NewMoments(d int) *Moments {
	d = max(d, 1)
	return &Moments{mean: make([]float64, d), c: make([]float64, d*d), delta: make([]float64, d)}
}

// momentsBytes is what NewMoments(d) allocates.
func momentsBytes(d int) int64 { return 8*int64(d*d+2*d) + 128 }

// Add accumulates x, which must have the accumulator's dimension.
func (m *Moments) Add(x []float64) {
	m.n++
	inv := 1 / float64(m.n)
	mean := m.mean
	d := len(mean)
	delta, x := m.delta[:d], x[:d] // bounds checked once
	for i, xi := range x {
		delta[i] = xi - mean[i]
		mean[i] += delta[i] * inv
	}
	for i, di := range delta {
		row := m.c[i*d : (i+1)*d][:d]
		for j, mj := range mean {
			row[j] += di * (x[j] - mj)
		}
	}
}

// Reset empties the accumulator.
func (m *Moments) Reset() {
	m.n = 0
	clear(m.mean)
	clear(m.c)
}

// N is the number of vectors accumulated.
func (m *Moments) N() int { return m.n }

// Dim is the dimension of the vectors.
func (m *Moments) Dim() int { return len(m.mean) }

// MeanAt returns coordinate i of the sample mean (0 before any Add).
func (m *Moments) MeanAt(i int) float64 { return m.mean[i] }

// Mean returns the sample mean (a fresh slice; zeros before any Add).
func (m *Moments) Mean() []float64 { return append([]float64(nil), m.mean...) }

// CovAt returns entry (i, j) of the unbiased sample covariance
// C_n/(n − 1), or 0 while n < 2.
func (m *Moments) CovAt(i, j int) float64 {
	if m.n < 2 {
		return 0
	}
	return m.c[i*len(m.mean)+j] / float64(m.n-1)
}

// Cov returns the unbiased sample covariance matrix (fresh; zeros while
// n < 2).
func (m *Moments) Cov() [][]float64 {
	d := len(m.mean)
	cov := make([][]float64, d)
	for i := range cov {
		cov[i] = make([]float64, d)
		for j := range cov[i] {
			cov[i][j] = m.CovAt(i, j)
		}
	}
	return cov
}
