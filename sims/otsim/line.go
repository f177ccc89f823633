package otsim

import (
	"math"

	"github.com/thelab/lab/algo/ot/oned"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// This file draws measures on the line (oned.Measure: atoms and
// piecewise-constant densities) and declares the Gaussian pairs of the 1-D
// sims.

// gaussPair declares two normal laws N(m0, s0²) and N(m1, s1²) with a
// sim's own defaults and the sim's note on when they are used. A gaussPair
// is a param.Decl.
type gaussPair struct {
	M0, S0, M1, S1 *param.FloatDecl
}

func newGaussPair(m0, s0, m1, s1 float64, when string) gaussPair {
	return gaussPair{
		M0: param.Float("m0", m0, "mean of the first law N(m0, s0²)"+when).Range(-20, 20).BuiltInData(),
		S0: param.Float("s0", s0, "standard deviation of the first law"+when).Range(0.01, 10).BuiltInData(),
		M1: param.Float("m1", m1, "mean of the second law N(m1, s1²)"+when).Range(-20, 20).BuiltInData(),
		S1: param.Float("s1", s1, "standard deviation of the second law"+when).Range(0.01, 10).BuiltInData(),
	}
}

// Params lists the four parameters.
func (g gaussPair) Params() []param.Param { return param.List(g.M0, g.S0, g.M1, g.S1) }

// get returns m0, s0, m1, s1.
func (g gaussPair) get(v param.Values) (m0, s0, m1, s1 float64) {
	return g.M0.Get(v), g.S0.Get(v), g.M1.Get(v), g.S1.Get(v)
}

// normalBins is the number of bins of the histogram that stands for a
// normal law: equal bins over m ± normalWidth·s, each with the exact mass
// of N(m, s²) (the tails beyond are added to the end bins). Two such
// histograms are affine images of each other, so their displacement
// interpolation is again one, with mean and s.d. exactly linear in t.
const (
	normalBins  = 240
	normalWidth = 6
)

// normalHist returns the histogram of N(m, s²).
func normalHist(m, s float64) *oned.Measure {
	edges := make([]float64, normalBins+1)
	mass := make([]float64, normalBins)
	for k := range edges {
		edges[k] = m + s*normalWidth*(2*float64(k)/normalBins-1)
	}
	prev := 0.0
	for k := range mass {
		c := 1.0
		if k < normalBins-1 {
			c = oned.NormalCDF(m, s, edges[k+1])
		}
		mass[k], prev = c-prev, c
	}
	h, err := oned.Histogram(edges, mass)
	if err != nil {
		panic(err) // the edges increase and the masses sum to 1 by construction
	}
	return h
}

// maxDrawn is the most points of a drawn quantile function or CDF: a
// measure of more pieces is sampled.
const maxDrawn = 2000

// quantilePath draws t ↦ F⁻(t) on [0, 1]: the pieces themselves (a flat
// piece is an atom), or maxDrawn samples when there are more.
func quantilePath(m *oned.Measure, class int) sims.Path {
	p := sims.Path{Class: class}
	if k := m.Pieces(); k <= maxDrawn {
		for i := range k {
			t0, t1, lo, hi := m.Piece(i)
			p.X, p.Y = append(p.X, t0, t1), append(p.Y, lo, hi)
		}
		return p
	}
	for i := 0; i <= maxDrawn; i++ {
		t := float64(i) / maxDrawn
		p.X, p.Y = append(p.X, t), append(p.Y, m.Quantile(t))
	}
	return p
}

// cdfPath draws x ↦ F(x) over [lo, hi]: a jump at each atom, a ramp over
// each uniform piece.
func cdfPath(m *oned.Measure, lo, hi float64, class int) sims.Path {
	p := sims.Path{X: []float64{lo}, Y: []float64{0}, Class: class}
	if k := m.Pieces(); k <= maxDrawn {
		for i := range k {
			t0, t1, a, b := m.Piece(i)
			p.X, p.Y = append(p.X, a, b), append(p.Y, t0, t1)
		}
	} else {
		for i := 0; i <= maxDrawn; i++ {
			x := lo + (hi-lo)*float64(i)/maxDrawn
			p.X, p.Y = append(p.X, x), append(p.Y, m.CDF(x))
		}
	}
	p.X, p.Y = append(p.X, hi), append(p.Y, 1)
	return p
}

// densityBins returns the mass of m in each of bins equal bins of
// [lo, hi] divided by the bin width: a histogram's density where m has
// one, the mass of an atom spread over its bin.
func densityBins(m *oned.Measure, lo, hi float64, bins int) []float64 {
	d := make([]float64, bins)
	w := (hi - lo) / float64(bins)
	prev := cdfBelow(m, lo)
	for k := range d {
		c := m.CDF(lo + float64(k+1)*w)
		d[k], prev = (c-prev)/w, c
	}
	return d
}

// cdfBelow is μ((−∞, x)): F just left of x.
func cdfBelow(m *oned.Measure, x float64) float64 {
	return m.CDF(math.Nextafter(x, math.Inf(-1)))
}

// span returns the least and greatest points of the supports.
func span(ms ...*oned.Measure) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, m := range ms {
		a, b := m.Support()
		lo, hi = math.Min(lo, a), math.Max(hi, b)
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	return lo, hi
}

// sd is the standard deviation of m.
func sd(m *oned.Measure) float64 { return math.Sqrt(math.Max(m.Variance(), 0)) }
