package pushforward

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/stat/distuv"
)

// Config configures a Sampler.
type Config struct {
	// Batch is the number of draws per Step, 1..100000.
	Batch int
	// Bins is the number of histogram bins of a continuous Y, 10..400.
	Bins int
	// Threshold is the c of the tracked probability P(Y < c); Ex 1.3's
	// P(Y < 1) = P(|X| < 1) = 0.682689 for c = 1.
	Threshold float64
}

// Sampler draws X from a source, pushes it through a map and accumulates
// what the pane draws and the tests check: histograms of X and of Y = T(X)
// against their exact laws, P(Y < c) against its exact value, and a χ²
// goodness-of-fit statistic of the Y counts against the push-forward law.
//
// The exact law of Y comes from the map's inverse branches (eq 1.5, summed
// over branches) for its density and from the preimage of (−∞, y] (eq 1.6)
// for its CDF. When Y is discrete (a discrete source, or Ex 1.2's map) the
// law is the push-forward pmf, (T_# P)({y}) = Σ_{x: T(x) = y} P(x) (eq 1.6),
// and counts are kept per value. One Step draws Batch values; Step does not
// allocate.
type Sampler struct {
	src Source
	m   Map
	cfg Config
	rng *rand.Rand

	n, below int     // draws, draws with Y < c
	pBelow   float64 // exact P(Y < c)

	// Continuous Y.
	xlo, xhi, ylo, yhi float64
	xCounts, yCounts   []float64
	yLow, yHigh        int       // draws below ylo, at or above yhi
	xOut               int       // draws of X outside [xlo, xhi)
	pBin               []float64 // exact P(Y in bin i)
	pLow, pHigh        float64   // exact P(Y < ylo), P(Y ≥ yhi)

	// Discrete Y: the distinct values, their exact pmf, the counts; and the
	// source's atoms when X is discrete.
	yVals, yPMF []float64
	yCnt        []int
	xVals, xPMF []float64
	xCnt        []int
}

// NewSampler validates the combination and the configuration. A map whose
// domain is (0, 1) (the quantile maps of inverse-CDF sampling) needs the
// uniform source; that is reported as a bad "source".
func NewSampler(src Source, m Map, cfg Config, rng *rand.Rand) (*Sampler, error) {
	switch {
	case cfg.Batch < 1 || cfg.Batch > 100000:
		return nil, algo.BadParam("batch", cfg.Batch, "in 1..100000")
	case cfg.Bins < 10 || cfg.Bins > 400:
		return nil, algo.BadParam("bins", cfg.Bins, "in 10..400")
	case math.IsNaN(cfg.Threshold) || math.IsInf(cfg.Threshold, 0):
		return nil, algo.BadParam("c", cfg.Threshold, "a finite number")
	case rng == nil:
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	dlo, dhi := m.Domain()
	slo, shi := src.Support()
	if slo < dlo || shi > dhi {
		return nil, algo.BadParam("source", src.Name(), fmt.Sprintf("a source supported in the domain (%g, %g) of %s (uniform)", dlo, dhi, m.Name()))
	}
	s := &Sampler{src: src, m: m, cfg: cfg, rng: rng}
	xa, pa := src.Atoms()
	_, isStep := m.(ex12)
	switch {
	case xa != nil:
		s.xVals, s.xPMF, s.xCnt = xa, pa, make([]int, len(xa))
		for i, x := range xa {
			y := m.Apply(x)
			j := slices.Index(s.yVals, y)
			if j < 0 {
				s.yVals, s.yPMF = append(s.yVals, y), append(s.yPMF, 0)
				j = len(s.yVals) - 1
			}
			s.yPMF[j] += pa[i]
		}
		s.yCnt = make([]int, len(s.yVals))
	case isStep:
		p := src.CDF(1.5)
		s.yVals, s.yPMF, s.yCnt = []float64{0, 1}, []float64{p, 1 - p}, make([]int, 2)
	default:
		s.xlo, s.xhi = displayRange(src.CDF, slo, shi)
		rlo, rhi := m.Range()
		s.ylo, s.yhi = displayRange(s.CDF, rlo, rhi)
		if sh, ok := m.(interface {
			Shown() (float64, float64, bool)
		}); ok {
			if a, b, ok := sh.Shown(); ok {
				s.ylo, s.yhi = a, b
			}
		}
		s.xCounts, s.yCounts = make([]float64, cfg.Bins), make([]float64, cfg.Bins)
		s.pBin = make([]float64, cfg.Bins)
		w := (s.yhi - s.ylo) / float64(cfg.Bins)
		prev := s.CDF(s.ylo)
		s.pLow = prev
		for i := range s.pBin {
			next := s.CDF(s.ylo + float64(i+1)*w)
			s.pBin[i] = next - prev
			prev = next
		}
		s.pHigh = 1 - prev
	}
	if s.yVals != nil {
		order := make([]int, len(s.yVals))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmpFloat(s.yVals[a], s.yVals[b]) })
		vals, pmf := make([]float64, len(order)), make([]float64, len(order))
		for i, o := range order {
			vals[i], pmf[i] = s.yVals[o], s.yPMF[o]
		}
		s.yVals, s.yPMF = vals, pmf
	}
	s.pBelow = s.exactBelow()
	return s, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// displayRange returns [q(0.005), q(0.995)] of the law with CDF F, rounded
// outwards to two significant digits of the width (so the axis reads ±2.6,
// not ±2.5758), and snapped to a finite end of the support [lo, hi] when
// that end is within a tenth of the width (so that x² is drawn from 0).
func displayRange(F func(float64) float64, lo, hi float64) (a, b float64) {
	a, b = quantileOf(F, 0.005, lo, hi), quantileOf(F, 0.995, lo, hi)
	w := b - a
	if w > 0 {
		unit := math.Pow(10, math.Floor(math.Log10(w))-1)
		a, b = math.Floor(a/unit)*unit, math.Ceil(b/unit)*unit
	}
	if !math.IsInf(lo, 0) && a-lo < 0.1*w {
		a = lo
	}
	if !math.IsInf(hi, 0) && hi-b < 0.1*w {
		b = hi
	}
	return math.Max(a, lo), math.Min(b, hi)
}

// quantileOf inverts a CDF by bisection within [lo, hi] (infinite ends are
// bracketed by doubling).
func quantileOf(F func(float64) float64, p, lo, hi float64) float64 {
	a, b := lo, hi
	if math.IsInf(a, -1) {
		a = -1
		for F(a) > p {
			a *= 2
		}
	}
	if math.IsInf(b, 1) {
		b = 1
		for F(b) < p {
			b *= 2
		}
	}
	for range 200 {
		c := (a + b) / 2
		if F(c) < p {
			a = c
		} else {
			b = c
		}
	}
	return (a + b) / 2
}

// Step draws Batch values of X and records X and Y = T(X).
func (s *Sampler) Step() error {
	c := s.cfg.Threshold
	for range s.cfg.Batch {
		x := s.src.Sample(s.rng)
		y := s.m.Apply(x)
		s.n++
		if y < c {
			s.below++
		}
		if s.xCnt != nil {
			for i, v := range s.xVals {
				if v == x {
					s.xCnt[i]++
				}
			}
		}
		if s.yCnt != nil {
			for i, v := range s.yVals {
				if v == y {
					s.yCnt[i]++
				}
			}
			continue
		}
		if b := bin(x, s.xlo, s.xhi, len(s.xCounts)); b >= 0 {
			s.xCounts[b]++
		} else {
			s.xOut++
		}
		switch b := bin(y, s.ylo, s.yhi, len(s.yCounts)); {
		case b >= 0:
			s.yCounts[b]++
		case y < s.ylo:
			s.yLow++
		default:
			s.yHigh++
		}
	}
	return nil
}

// bin returns the bin of v in [lo, hi) cut into n, or −1 outside.
func bin(v, lo, hi float64, n int) int {
	f := (v - lo) / (hi - lo)
	if !(f >= 0 && f < 1) {
		if v == hi && hi > lo { // the top edge belongs to the last bin
			return n - 1
		}
		return -1
	}
	return min(int(f*float64(n)), n-1)
}

// Density is the push-forward density p_Y(y) = Σ_i p_X(x_i(y)) |dx_i/dy|
// over the branches of T⁻¹ (eq 1.5; for x², Ex 1.3's 1/√(2πy) e^{−y/2}).
// It is 0 for a discrete Y.
func (s *Sampler) Density(y float64) float64 {
	if s.yVals != nil {
		return 0
	}
	var xs, js [2]float64
	n := s.m.Branches(y, xs[:], js[:])
	d := 0.0
	for i := range n {
		d += s.src.PDF(xs[i]) * js[i]
	}
	return d
}

// CDF is P(Y ≤ y) = P_X(T⁻¹((−∞, y])) (eq 1.6).
func (s *Sampler) CDF(y float64) float64 {
	if s.yVals != nil {
		p := 0.0
		for i, v := range s.yVals {
			if v <= y {
				p += s.yPMF[i]
			}
		}
		return p
	}
	return s.m.CDF(y, s.src.CDF)
}

// Below returns the fraction of draws with Y < c and its exact value.
func (s *Sampler) Below() (empirical, exact float64) {
	if s.n > 0 {
		empirical = float64(s.below) / float64(s.n)
	}
	return empirical, s.pBelow
}

// exactBelow is P(Y < c): the pmf below c, or the CDF at c.
func (s *Sampler) exactBelow() float64 {
	c := s.cfg.Threshold
	if s.yVals == nil {
		return s.CDF(c)
	}
	p := 0.0
	for i, v := range s.yVals {
		if v < c {
			p += s.yPMF[i]
		}
	}
	return p
}

// GoodnessOfFit returns Pearson's χ² statistic of the Y counts against the
// exact push-forward law, its degrees of freedom and its p-value. Bins (and,
// for a continuous Y, the two tails beyond the drawn range) whose expected
// count is below 5 are pooled into one. df is 0 (and the p-value 1) until
// there are two cells to compare.
func (s *Sampler) GoodnessOfFit() (chi2 float64, df int, p float64) {
	n := float64(s.n)
	var poolO, poolE float64
	cells := 0
	add := func(o, prob float64) {
		e := n * prob
		if e < 5 {
			poolO += o
			poolE += e
			return
		}
		chi2 += (o - e) * (o - e) / e
		cells++
	}
	if s.yVals != nil {
		for i, c := range s.yCnt {
			add(float64(c), s.yPMF[i])
		}
	} else {
		for i, c := range s.yCounts {
			add(c, s.pBin[i])
		}
		add(float64(s.yLow), s.pLow)
		add(float64(s.yHigh), s.pHigh)
	}
	if poolE > 0 {
		chi2 += (poolO - poolE) * (poolO - poolE) / poolE
		cells++
	}
	df = cells - 1
	if df < 1 {
		return 0, 0, 1
	}
	return chi2, df, distuv.ChiSquared{K: float64(df)}.Survival(chi2)
}

// N is the number of draws so far.
func (s *Sampler) N() int { return s.n }

// Source and Map are the sampler's pieces.
func (s *Sampler) Source() Source { return s.src }

// Map is the map T.
func (s *Sampler) Map() Map { return s.m }

// Discrete reports whether Y is discrete (then use Values, PMF and Counts).
func (s *Sampler) Discrete() bool { return s.yVals != nil }

// XRange and YRange are the drawn ranges of a continuous X and Y.
func (s *Sampler) XRange() (lo, hi float64) { return s.xlo, s.xhi }

// YRange is the drawn range of a continuous Y.
func (s *Sampler) YRange() (lo, hi float64) { return s.ylo, s.yhi }

// XDensity and YDensity write the histograms as densities (count / (N ×
// bin width)) into dst (grown if short); draws outside the range count in N.
func (s *Sampler) XDensity(dst []float64) []float64 { return s.density(dst, s.xCounts, s.xlo, s.xhi) }

// YDensity is the histogram of Y as a density.
func (s *Sampler) YDensity(dst []float64) []float64 { return s.density(dst, s.yCounts, s.ylo, s.yhi) }

func (s *Sampler) density(dst, counts []float64, lo, hi float64) []float64 {
	if cap(dst) < len(counts) {
		dst = make([]float64, len(counts))
	}
	dst = dst[:len(counts)]
	w := (hi - lo) / float64(len(counts))
	for i, c := range counts {
		dst[i] = 0
		if s.n > 0 {
			dst[i] = c / (float64(s.n) * w)
		}
	}
	return dst
}

// BinMass returns the exact P(Y in bin i) of the continuous histogram (a
// view): the bin-averaged density times the width, which stays finite
// where the density does not (x² at 0).
func (s *Sampler) BinMass() []float64 { return s.pBin }

// Values, PMF and Counts describe a discrete Y: its values in increasing
// order, their exact probabilities and the counts so far (views).
func (s *Sampler) Values() []float64 { return s.yVals }

// PMF is the exact push-forward pmf of a discrete Y (a view).
func (s *Sampler) PMF() []float64 { return s.yPMF }

// Counts are the counts of each value of a discrete Y (a view).
func (s *Sampler) Counts() []int { return s.yCnt }

// SourceAtoms returns a discrete source's values, probabilities and counts
// (views; nil for a continuous source).
func (s *Sampler) SourceAtoms() (x, p []float64, counts []int) { return s.xVals, s.xPMF, s.xCnt }
