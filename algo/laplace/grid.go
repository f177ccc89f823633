package laplace

import (
	"math"
)

// Grid is a target evaluated on the centres of a regular grid over a box
// and normalised there: the "grid-normalised" posterior of the catalogue
// (C7), with log Z = log Σ_c p̃(z_c) vol by log-sum-exp so that an
// unnormalised log p of any size neither overflows nor underflows. It is
// the truth the Laplace approximation is drawn and measured against.
type Grid struct {
	D      int       // dimension, 1 or 2
	N      int       // cells per axis
	Lo, Hi []float64 // the box
	Cell   []float64 // cell widths
	Vol    float64   // cell volume
	LogP   []float64 // normalised log density at the centres (−Inf outside the support); row-major from the bottom row in 2-D
	LogZ   float64   // the log normaliser: log p(z) = m.LogP(z) − LogZ
}

// NewGrid evaluates m on n cells per axis over [lo, hi] (m.Dim() must be 1
// or 2) and normalises it.
func NewGrid(m Model, lo, hi []float64, n int) *Grid {
	d := m.Dim()
	g := &Grid{D: d, N: n, Lo: append([]float64(nil), lo...), Hi: append([]float64(nil), hi...), Cell: make([]float64, d), Vol: 1}
	for i := range d {
		g.Cell[i] = (hi[i] - lo[i]) / float64(n)
		g.Vol *= g.Cell[i]
	}
	cells := 1
	for range d {
		cells *= n
	}
	g.LogP = make([]float64, cells)
	z := make([]float64, d)
	hi0 := math.Inf(-1)
	for c := range g.LogP {
		g.Centre(c, z)
		lp := m.LogP(z)
		if math.IsNaN(lp) {
			lp = math.Inf(-1)
		}
		g.LogP[c] = lp
		hi0 = math.Max(hi0, lp)
	}
	s := 0.0
	for _, lp := range g.LogP {
		s += math.Exp(lp - hi0)
	}
	g.LogZ = hi0 + math.Log(s*g.Vol)
	for c := range g.LogP {
		g.LogP[c] -= g.LogZ
	}
	return g
}

// Centre writes the centre of cell c into z.
func (g *Grid) Centre(c int, z []float64) {
	for i := range g.D {
		k := c % g.N
		c /= g.N
		z[i] = g.Lo[i] + (float64(k)+0.5)*g.Cell[i]
	}
}

// Moments returns the mean and covariance of the grid-normalised target.
func (g *Grid) Moments() (mean []float64, cov [][]float64) {
	mean = make([]float64, g.D)
	cov = make([][]float64, g.D)
	for i := range cov {
		cov[i] = make([]float64, g.D)
	}
	z := make([]float64, g.D)
	for c, lp := range g.LogP {
		p := math.Exp(lp) * g.Vol
		g.Centre(c, z)
		for i := range z {
			mean[i] += p * z[i]
		}
	}
	for c, lp := range g.LogP {
		p := math.Exp(lp) * g.Vol
		g.Centre(c, z)
		for i := range z {
			for j := range z {
				cov[i][j] += p * (z[i] - mean[i]) * (z[j] - mean[j])
			}
		}
	}
	return mean, cov
}

// Marginal returns the density of coordinate i at the cell centres along
// its axis (the other coordinate integrated out).
func (g *Grid) Marginal(i int) []float64 {
	out := make([]float64, g.N)
	other := g.Vol / g.Cell[i]
	for c, lp := range g.LogP {
		k := c
		if i == 1 {
			k = c / g.N
		} else {
			k = c % g.N
		}
		out[k] += math.Exp(lp) * other
	}
	return out
}

// GaussLogPDF is log N(z; mean, cov) for d = 1 or 2 (cov positive
// definite).
func GaussLogPDF(z, mean []float64, cov [][]float64) float64 {
	if len(z) == 1 {
		u := z[0] - mean[0]
		return -0.5*u*u/cov[0][0] - 0.5*math.Log(2*math.Pi*cov[0][0])
	}
	a, b, c := cov[0][0], cov[0][1], cov[1][1]
	det := a*c - b*b
	u, v := z[0]-mean[0], z[1]-mean[1]
	q := (c*u*u - 2*b*u*v + a*v*v) / det
	return -0.5*q - math.Log(2*math.Pi) - 0.5*math.Log(det)
}

// Divergences are the two Kullback–Leibler divergences between the target
// p and a Gaussian q, by quadrature on the grid (seed 002 §1.5 defines
// KL(p‖q) = ∫ p log(p/q)). KL(q‖p) is +Inf when q puts mass where p is
// zero (QZero, inside the box); QBeyond is q's mass outside the box, where
// the quadrature cannot follow it: KL(q‖p) is only reliable when QBeyond is
// negligible. QOutside = QZero + QBeyond.
type Divergences struct {
	PQ, QP         float64
	QZero, QBeyond float64
	QOutside       float64
}

// KL returns the divergences between the grid's target and N(mean, cov).
func (g *Grid) KL(mean []float64, cov [][]float64) Divergences {
	var out Divergences
	z := make([]float64, g.D)
	qIn, qZero := 0.0, 0.0
	for c, lp := range g.LogP {
		g.Centre(c, z)
		lq := GaussLogPDF(z, mean, cov)
		q := math.Exp(lq) * g.Vol
		qIn += q
		if math.IsInf(lp, -1) {
			qZero += q
			continue
		}
		out.PQ += math.Exp(lp) * g.Vol * (lp - lq)
		out.QP += q * (lq - lp)
	}
	out.QZero, out.QBeyond = qZero, math.Max(0, 1-qIn)
	out.QOutside = out.QZero + out.QBeyond
	if qZero > 0 {
		out.QP = math.Inf(1)
	}
	return out
}
