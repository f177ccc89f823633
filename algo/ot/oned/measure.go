// Package oned holds optimal transport on the line (seed 002 §5.4,
// Corollary 1 and L2199–2220; §5.5, L2354–2396): cumulative distribution
// and quantile functions, W_p as the L^p distance between quantile
// functions, the monotone coupling, displacement interpolation, W₂
// barycenters, the Gaussian closed forms (Ex 5.6, 5.7), and the
// "vertical" and Wasserstein distances between two laws pulled apart (E6).
//
// A Measure is held by its quantile function F⁻(t) = inf{x : F(x) ≥ t}
// (L2205), piecewise linear on [0, 1]: a flat piece is an atom, a sloped
// piece a uniform density. That class — atoms plus piecewise-constant
// densities (histograms) — is closed under everything here: the quantile
// functions of a displacement interpolation or a barycenter are convex
// combinations of the inputs' (Ex 5.6, 5.8), still piecewise linear, and a
// mixture of histograms is a histogram. So W_p, geodesics and barycenters
// are exact, with no grid in t: two quantile functions are compared on
// the union of their breakpoints ("merge the two CDF step functions on the
// union of breakpoints; don't just zip sorted arrays", catalogue E3).
package oned

import (
	"fmt"
	"math"
	"sort"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/ot"
)

// Measure is a probability measure on ℝ whose quantile function is
// piecewise linear: on (t_k, t_{k+1}) it runs linearly from lo_k to hi_k,
// with 0 = t_0 ≤ t_1 ≤ … ≤ t_K = 1 and lo_k ≤ hi_k ≤ lo_{k+1}. A Measure
// is immutable.
type Measure struct {
	t      []float64
	lo, hi []float64 // for a measure of atoms only, hi is lo (one slice)
}

// Pieces is the number of pieces K; Piece(k) the k-th: on (t0, t1) the
// quantile runs from lo to hi (an atom at lo of mass t1 − t0 when lo = hi,
// otherwise that mass spread uniformly on [lo, hi]).
func (m *Measure) Pieces() int { return len(m.lo) }
func (m *Measure) Piece(k int) (t0, t1, lo, hi float64) {
	return m.t[k], m.t[k+1], m.lo[k], m.hi[k]
}

// Support returns the least and greatest points of the support.
func (m *Measure) Support() (lo, hi float64) { return m.lo[0], m.hi[len(m.hi)-1] }

// at is the quantile on piece k at t ∈ [t_k, t_{k+1}].
func (m *Measure) at(k int, t float64) float64 {
	lo, hi := m.lo[k], m.hi[k]
	if lo == hi {
		return lo
	}
	t0, t1 := m.t[k], m.t[k+1]
	return lo + (hi-lo)*(t-t0)/(t1-t0)
}

// Quantile returns F⁻(t) = inf{x : F(x) ≥ t} for t ∈ [0, 1] (clamped):
// left-continuous, F⁻(0) the least point of the support.
func (m *Measure) Quantile(t float64) float64 {
	t = math.Min(math.Max(t, 0), 1)
	// the first piece whose right end reaches t
	k := sort.SearchFloat64s(m.t[1:], t)
	k = min(k, len(m.lo)-1)
	return m.at(k, math.Max(t, m.t[k]))
}

// CDF returns F(x) = μ((−∞, x]).
func (m *Measure) CDF(x float64) float64 {
	// the last piece starting at or before x
	k := sort.Search(len(m.lo), func(k int) bool { return m.lo[k] > x }) - 1
	if k < 0 {
		return 0
	}
	lo, hi := m.lo[k], m.hi[k]
	if x >= hi {
		return m.t[k+1]
	}
	return m.t[k] + (m.t[k+1]-m.t[k])*(x-lo)/(hi-lo)
}

// Density returns the density of the continuous part at x (atoms are not
// counted: see Atoms). The pieces do not overlap, so x lies in at most one
// sloped piece [lo, hi): the last piece starting at or before x.
func (m *Measure) Density(x float64) float64 {
	k := sort.Search(len(m.lo), func(k int) bool { return m.lo[k] > x }) - 1
	if k < 0 || !(m.lo[k] < m.hi[k] && x < m.hi[k]) {
		return 0
	}
	return (m.t[k+1] - m.t[k]) / (m.hi[k] - m.lo[k])
}

// Atoms appends the atoms (position, mass) to x and w, equal positions
// merged, and returns them.
func (m *Measure) Atoms(x, w []float64) ([]float64, []float64) {
	for k, lo := range m.lo {
		if lo != m.hi[k] {
			continue
		}
		if mass := m.t[k+1] - m.t[k]; len(x) > 0 && x[len(x)-1] == lo {
			w[len(w)-1] += mass
		} else if mass > 0 {
			x, w = append(x, lo), append(w, mass)
		}
	}
	return x, w
}

// Mean returns ∫ x dμ = ∫₀¹ F⁻(t) dt; Variance ∫₀¹ F⁻(t)² dt − mean²
// (exact for piecewise-linear quantiles, summed piece by piece).
func (m *Measure) Mean() float64 {
	s := 0.0
	for k, lo := range m.lo {
		s += (m.t[k+1] - m.t[k]) * (lo + m.hi[k]) / 2
	}
	return s
}

func (m *Measure) Variance() float64 {
	mu, s := m.Mean(), 0.0
	for k, lo := range m.lo {
		a, b := lo-mu, m.hi[k]-mu
		s += (m.t[k+1] - m.t[k]) * (a*a + a*b + b*b) / 3
	}
	return s
}

// massSum checks weights (ot.CheckWeights naming name) and that they sum to
// 1 within ot.MassTol, returning the sum.
func massSum(name string, w []float64) (float64, error) {
	s, err := ot.CheckWeights(name, w)
	if err != nil {
		return 0, err
	}
	if ot.Unbalanced(s, 1) {
		return 0, algo.BadParam(name, fmt.Sprintf("masses summing to %.10g", s), fmt.Sprintf("masses summing to 1 within a relative %g", ot.MassTol))
	}
	return s, nil
}

// Discrete returns Σ_i w_i δ_{x_i}. The weights (nil: uniform) must be
// ≥ 0 and sum to 1 within ot.MassTol; they are divided by their sum. The
// atoms are sorted in O(n) by a radix sort on their bits, so a million
// atoms take a few tens of milliseconds.
func Discrete(x, w []float64) (*Measure, error) {
	if len(x) == 0 {
		return nil, algo.BadParam("x", "no atoms", "at least one atom")
	}
	if w != nil && len(w) != len(x) {
		return nil, algo.BadParam("weights", fmt.Sprintf("%d weights", len(w)), fmt.Sprintf("one per atom (%d)", len(x)))
	}
	for i, v := range x {
		if !algo.Finite(v) {
			return nil, algo.BadParam("x", fmt.Sprintf("x[%d] = %g", i, v), "finite numbers")
		}
	}
	n := len(x)
	if w == nil {
		xs, _ := sortAtoms(x, nil)
		return &Measure{t: equalBreaks(n), lo: xs, hi: xs}, nil
	}
	total, err := massSum("weights", w)
	if err != nil {
		return nil, err
	}
	xs, ws := sortAtoms(x, w)
	return pieces(xs, nil, ws, total), nil
}

// pieces returns the measure with mass[k]/total spread on [lo[k], hi[k]]
// (in order, not overlapping), leaving out the empty pieces; hi nil means
// atoms at lo, and the measure then keeps one slice for both ends.
func pieces(lo, hi, mass []float64, total float64) *Measure {
	m := &Measure{t: make([]float64, 1, len(mass)+1), lo: make([]float64, 0, len(mass))}
	if hi != nil {
		m.hi = make([]float64, 0, len(mass))
	}
	cum := 0.0
	for k, v := range mass {
		if v == 0 {
			continue
		}
		cum += v
		m.t = append(m.t, cum/total)
		m.lo = append(m.lo, lo[k])
		if hi != nil {
			m.hi = append(m.hi, hi[k])
		}
	}
	m.t[len(m.t)-1] = 1
	if hi == nil {
		m.hi = m.lo
	}
	return m
}

// sortAtoms returns x and w (which may be nil) sorted by x: a
// least-significant-digit radix sort on 11-bit digits of the
// order-preserving bit pattern of x (the sign bit flipped for positives,
// every bit for negatives), the six digit counts taken in one pass and the
// digits that all keys share skipped; each key travels with its weight.
// On a million atoms it takes a third of the time of slices.Sort, which
// could not carry the weights.
func sortAtoms(x, w []float64) ([]float64, []float64) {
	const bits, digits = 11, 6
	type atom struct {
		key uint64
		w   float64
	}
	n := len(x)
	src, dst := make([]atom, n), make([]atom, n)
	var count [digits][1 << bits]int
	for i, v := range x {
		b := math.Float64bits(v + 0) // −0 → +0
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		src[i].key = b
		if w != nil {
			src[i].w = w[i]
		}
		for d := range digits {
			count[d][(b>>(d*bits))&(1<<bits-1)]++
		}
	}
	for d := range digits {
		c := &count[d]
		if c[(src[0].key>>(d*bits))&(1<<bits-1)] == n {
			continue // every key has this digit
		}
		sum := 0
		for k, v := range c {
			c[k] = sum
			sum += v
		}
		for _, a := range src {
			k := (a.key >> (d * bits)) & (1<<bits - 1)
			dst[c[k]] = a
			c[k]++
		}
		src, dst = dst, src
	}
	xs := make([]float64, n)
	var ws []float64
	if w != nil {
		ws = make([]float64, n)
	}
	for i, a := range src {
		b := a.key
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		xs[i] = math.Float64frombits(b)
		if w != nil {
			ws[i] = a.w
		}
	}
	return xs, ws
}

// Uniform returns the uniform law on [a, b] (an atom at a when a = b).
func Uniform(a, b float64) (*Measure, error) {
	if !algo.Finite(a) || !algo.Finite(b) || a > b {
		return nil, algo.BadParam("interval", fmt.Sprintf("[%g, %g]", a, b), "finite ends with a ≤ b")
	}
	return &Measure{t: []float64{0, 1}, lo: []float64{a}, hi: []float64{b}}, nil
}

// Histogram returns the law with mass[k] spread uniformly on
// [edges[k], edges[k+1]]: edges strictly increasing (one more than the
// masses), masses ≥ 0 summing to 1 within ot.MassTol (divided by their
// sum).
func Histogram(edges, mass []float64) (*Measure, error) {
	if len(edges) != len(mass)+1 {
		return nil, algo.BadParam("edges", fmt.Sprintf("%d edges", len(edges)), fmt.Sprintf("one more than the bins (%d)", len(mass)+1))
	}
	for k, e := range edges {
		if !algo.Finite(e) || (k > 0 && !(e > edges[k-1])) {
			return nil, algo.BadParam("edges", fmt.Sprintf("edges[%d] = %g", k, e), "finite and strictly increasing")
		}
	}
	total, err := massSum("mass", mass)
	if err != nil {
		return nil, err
	}
	return pieces(edges[:len(mass)], edges[1:], mass, total), nil
}

// QuantileGrid returns n atoms of mass 1/n at q((k − ½)/n), k = 1 … n: a
// discretisation of the law with quantile function q (which must be
// non-decreasing and finite on (0, 1)), such as NormalQuantile.
func QuantileGrid(q func(float64) float64, n int) (*Measure, error) {
	if n < 1 {
		return nil, algo.BadParam("n", n, "≥ 1")
	}
	x := make([]float64, n)
	for k := range x {
		x[k] = q((float64(k) + 0.5) / float64(n))
		if !algo.Finite(x[k]) || (k > 0 && x[k] < x[k-1]) {
			return nil, algo.BadParam("quantile", fmt.Sprintf("q(%g) = %g", (float64(k)+0.5)/float64(n), x[k]), "finite and non-decreasing")
		}
	}
	return &Measure{t: equalBreaks(n), lo: x, hi: x}, nil
}

// equalBreaks returns k/n, k = 0 … n: the breakpoints of n atoms of mass
// 1/n.
func equalBreaks(n int) []float64 {
	t := make([]float64, n+1)
	for k := range t {
		t[k] = float64(k) / float64(n)
	}
	return t
}
