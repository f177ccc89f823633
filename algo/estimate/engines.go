package estimate

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// RecentCap is the number of most recent observations a Stream keeps for
// drawing.
const RecentCap = 4096

// Stream is maximum likelihood as data arrive (seed 002 §1.4): one
// observation per Step, the sufficient statistics updated and the MLE
// refitted. By consistency (L295) θ̂_n → θ, with fluctuations of order
// √(I⁻¹/n) (L301). Step does not allocate.
type Stream struct {
	m     Model
	rng   *rand.Rand
	stats Stats
	// The last RecentCap observations, a ring.
	xs, ys []float64
	at     int
}

// NewStream starts with no data.
func NewStream(m Model, rng *rand.Rand) (*Stream, error) {
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	return &Stream{m: m, rng: rng, xs: make([]float64, 0, RecentCap), ys: make([]float64, 0, RecentCap)}, nil
}

// Step draws one observation and adds it.
func (s *Stream) Step() error {
	x, y := s.m.Draw(s.rng)
	s.stats.Add(x, y)
	if len(s.xs) < RecentCap {
		s.xs, s.ys = append(s.xs, x), append(s.ys, y)
	} else {
		s.xs[s.at], s.ys[s.at] = x, y
		s.at = (s.at + 1) % RecentCap
	}
	return nil
}

// Model is the model with its true parameters.
func (s *Stream) Model() Model { return s.m }

// Stats are the sufficient statistics so far.
func (s *Stream) Stats() Stats { return s.stats }

// MLE is the current estimate (see Stats.MLE).
func (s *Stream) MLE() ([2]float64, bool) { return s.stats.MLE(s.m.Kind) }

// N is the number of observations.
func (s *Stream) N() int { return s.stats.N }

// Recent returns the kept observations (views, in ring order: do not
// modify).
func (s *Stream) Recent() (x, y []float64) { return s.xs, s.ys }

// Replicates is the sampling distribution of the MLE (seed 002 L293–307):
// each Step replicates the experiment, drawing n fresh observations and
// computing θ̂ from them, and records z_j = √n(θ̂_j − θ_j) for each
// parameter. Asymptotic normality says z_j → N(0, [I(θ)⁻¹]_jj) as n → ∞;
// at finite n the law can be visibly off (skewed for the exponential rate,
// shifted by the −σ²/n bias of the 1/n variance). The z_j are accumulated
// in histograms over ±4.5 asymptotic standard deviations (draws beyond are
// counted but not drawn) and in running moments. A replicate whose MLE does
// not exist (a Bernoulli sample of all zeros, say) is counted and skipped.
// Step does not allocate.
type Replicates struct {
	m     Model
	n     int
	rng   *rand.Rand
	sd    [2]float64 // asymptotic sd of z_j, √[I⁻¹]_jj
	bins  int
	count [2][]float64
	reps  int // replicates with an MLE
	fail  int // replicates without
	sum   [2]float64
	sum2  [2]float64
	in95  [2]int // |z_j| ≤ 1.96 sd_j
}

// NewReplicates validates n (observations per replicate, 1..100000) and
// bins (10..200).
func NewReplicates(m Model, n, bins int, rng *rand.Rand) (*Replicates, error) {
	switch {
	case n < 1 || n > 100000:
		return nil, algo.BadParam("n", n, "in 1..100000")
	case bins < 10 || bins > 200:
		return nil, algo.BadParam("bins", bins, "in 10..200")
	case rng == nil:
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	r := &Replicates{m: m, n: n, rng: rng, bins: bins}
	inv := m.InverseFisher()
	for j := range m.NumParams() {
		r.sd[j] = math.Sqrt(inv[j])
		r.count[j] = make([]float64, bins)
	}
	return r, nil
}

// Range is the histogram range of z_j, ±4.5 asymptotic standard deviations.
func (r *Replicates) Range(j int) (lo, hi float64) { return -4.5 * r.sd[j], 4.5 * r.sd[j] }

// Step runs one replicate.
func (r *Replicates) Step() error {
	var st Stats
	for range r.n {
		st.Add(r.m.Draw(r.rng))
	}
	th, ok := st.MLE(r.m.Kind)
	if !ok {
		r.fail++
		return nil
	}
	r.reps++
	rn := math.Sqrt(float64(r.n))
	for j := range r.m.NumParams() {
		z := rn * (th[j] - r.m.Theta[j])
		r.sum[j] += z
		r.sum2[j] += z * z
		if math.Abs(z) <= 1.96*r.sd[j] {
			r.in95[j]++
		}
		lo, hi := r.Range(j)
		if f := (z - lo) / (hi - lo); f >= 0 && f < 1 {
			r.count[j][min(int(f*float64(r.bins)), r.bins-1)]++
		}
	}
	return nil
}

// Replicates returns the number of replicates with an MLE and without.
func (r *Replicates) Replicates() (ok, failed int) { return r.reps, r.fail }

// N is the number of observations per replicate.
func (r *Replicates) N() int { return r.n }

// Model is the model with its true parameters.
func (r *Replicates) Model() Model { return r.m }

// AsymptoticSD is √[I(θ)⁻¹]_jj, the standard deviation of the limit law.
func (r *Replicates) AsymptoticSD(j int) float64 { return r.sd[j] }

// Moments returns the sample mean and (1/R) variance of z_j over the
// replicates, and the fraction within ±1.96 asymptotic sd (0.95 in the
// limit).
func (r *Replicates) Moments(j int) (mean, variance, in95 float64) {
	if r.reps == 0 {
		return 0, 0, 0
	}
	R := float64(r.reps)
	mean = r.sum[j] / R
	return mean, math.Max(r.sum2[j]/R-mean*mean, 0), float64(r.in95[j]) / R
}

// Density writes the histogram of z_j as a density into dst (grown if
// short); replicates outside the range count in the normalisation.
func (r *Replicates) Density(j int, dst []float64) []float64 {
	if cap(dst) < r.bins {
		dst = make([]float64, r.bins)
	}
	dst = dst[:r.bins]
	lo, hi := r.Range(j)
	w := (hi - lo) / float64(r.bins)
	for i, c := range r.count[j] {
		dst[i] = 0
		if r.reps > 0 {
			dst[i] = c / (float64(r.reps) * w)
		}
	}
	return dst
}
