// Package diffusion holds the engines of diffusion models (seed 000 ch. 3,
// seed 001 §15): the exact noise prediction ε* and score of a Gaussian
// mixture at every noise level, the forward noising process, the samplers
// (DDIM, the stochastic μ-family with DDPM at μ = ½, ε-extrapolation, the
// reverse SDE and the probability-flow ODE), classifier-free guidance and
// the "optical illusions" of two views, and denoising score matching that
// trains a small network ε_θ(x, σ) to stand in for ε*.
//
// The lab needs no pretrained network: for data X ~ Σ_k π_k N(μ_k, Σ_k),
// Y = aX + bε has the density Σ_k π_k N(aμ_k, a²Σ_k + b²I), whose score is
// closed-form, and so is the ideal denoiser ε*(y, σ) = E[ε | Y = y] =
// −σ ∇_y log f_Y(y) (seed 000 eq 3.2, L1165) of Y = X + σε.
package diffusion

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/par"
)

// MaxComponents bounds a mixture's components.
const MaxComponents = 64

// Component is one Gaussian of a mixture in one or two dimensions: its
// weight, mean and covariance (xx, xy, yy; in one dimension only Mean[0]
// and Cov[0] count).
type Component struct {
	Weight float64
	Mean   [2]float64
	Cov    [3]float64
	Class  int // the condition τ it answers to under guidance
}

// Mixture is a Gaussian mixture Σ_k π_k N(μ_k, Σ_k) in D = 1 or 2
// dimensions. Its methods that take particles read and write them flat,
// n rows of D values. Eps and Score run over blocks of particles on up to
// Workers goroutines; a Mixture must not run two of them at once.
type Mixture struct {
	D     int
	comps []Component
	w     []float64 // normalised weights

	// The current level (a, b): per component the mean aμ_k, the inverse
	// of a²Σ_k + b²I (xx, xy, yy) and log π_k − ½ log det(2π·cov).
	la, lb    float64
	lmean     [][2]float64
	linv      [][3]float64
	lconst    []float64
	Workers   int
	loop      par.Loop
	job       struct{ dst, x []float64 }
	blockFunc func(int)
	scale     float64 // the output's factor: 1 for the score, −b for ε
}

// blockSize is the particles of one block of Eps.
const blockSize = 1024

// NewMixture validates the components (weights positive and finite,
// covariances positive definite: a component of zero variance has no
// density and its score is singular as the noise vanishes) and returns the
// mixture with the weights normalised.
func NewMixture(d int, comps []Component) (*Mixture, error) {
	if d != 1 && d != 2 {
		return nil, algo.BadParam("dimension", d, "1 or 2")
	}
	if len(comps) < 1 || len(comps) > MaxComponents {
		return nil, algo.BadParam("components", len(comps), fmt.Sprintf("in 1..%d", MaxComponents))
	}
	total := 0.0
	for k, c := range comps {
		if !(c.Weight > 0) || math.IsInf(c.Weight, 0) {
			return nil, algo.BadParam("weight", c.Weight, fmt.Sprintf("a finite number > 0 (component %d)", k+1))
		}
		if !algo.Finite(c.Mean[0]) || !algo.Finite(c.Mean[1]) {
			return nil, algo.BadParam("mean", c.Mean, fmt.Sprintf("finite (component %d)", k+1))
		}
		det := c.Cov[0]
		if d == 2 {
			det = c.Cov[0]*c.Cov[2] - c.Cov[1]*c.Cov[1]
		}
		if !(c.Cov[0] > 0) || !(det > 0) || !algo.Finite(det) {
			return nil, algo.BadParam("variance", c.Cov, fmt.Sprintf(
				"positive definite (component %d has zero variance in some direction: it has no density and its score is singular as σ → 0)", k+1))
		}
		total += c.Weight
	}
	m := &Mixture{D: d, comps: append([]Component(nil), comps...), w: make([]float64, len(comps)),
		lmean: make([][2]float64, len(comps)), linv: make([][3]float64, len(comps)), lconst: make([]float64, len(comps)),
		la: math.NaN()}
	for k, c := range comps {
		m.w[k] = c.Weight / total
		m.comps[k].Weight = m.w[k]
	}
	m.blockFunc = m.block
	return m, nil
}

// Components returns the components with normalised weights (a copy).
func (m *Mixture) Components() []Component { return append([]Component(nil), m.comps...) }

// K is the number of components.
func (m *Mixture) K() int { return len(m.comps) }

// Classes is one more than the largest component class.
func (m *Mixture) Classes() int {
	c := 0
	for _, k := range m.comps {
		c = max(c, k.Class+1)
	}
	return c
}

// Class returns the mixture restricted to the components of class c, its
// weights renormalised: the conditional law of X given τ = c (seed 000
// §3.7, L1383). ok is false when no component has that class.
func (m *Mixture) Class(c int) (*Mixture, bool) {
	var sub []Component
	for _, k := range m.comps {
		if k.Class == c {
			sub = append(sub, k)
		}
	}
	if len(sub) == 0 {
		return nil, false
	}
	out, err := NewMixture(m.D, sub)
	if err != nil {
		panic(err) // the components were validated already
	}
	out.Workers = m.Workers
	return out, true
}

// Moments returns the mixture's mean and its variance per coordinate
// (the mean of the diagonal of the covariance).
func (m *Mixture) Moments() (mean [2]float64, variance float64) {
	for _, c := range m.comps {
		for j := range m.D {
			mean[j] += c.Weight * c.Mean[j]
		}
	}
	for _, c := range m.comps {
		for j := range m.D {
			d := c.Mean[j] - mean[j]
			variance += c.Weight * (d*d + c.Cov[2*j])
		}
	}
	return mean, variance / float64(m.D)
}

// Spread is the mixture's within-component variance per coordinate,
// Σ_k π_k tr(Σ_k)/D.
func (m *Mixture) Spread() float64 {
	s := 0.0
	for _, c := range m.comps {
		for j := range m.D {
			s += c.Weight * c.Cov[2*j]
		}
	}
	return s / float64(m.D)
}

// Sample draws n points into dst (n·D values) and, when labels is not
// nil, each point's component.
func (m *Mixture) Sample(rng *rand.Rand, dst []float64, labels []int) {
	n := len(dst) / m.D
	for i := range n {
		u, k := rng.Float64(), 0
		for k < len(m.w)-1 && u >= m.w[k] {
			u -= m.w[k]
			k++
		}
		c := m.comps[k]
		z0, z1 := rng.NormFloat64(), rng.NormFloat64()
		if m.D == 1 {
			dst[i] = c.Mean[0] + math.Sqrt(c.Cov[0])*z0
		} else {
			l11 := math.Sqrt(c.Cov[0])
			l21 := c.Cov[1] / l11
			l22 := math.Sqrt(c.Cov[2] - l21*l21)
			dst[2*i] = c.Mean[0] + l11*z0
			dst[2*i+1] = c.Mean[1] + l21*z0 + l22*z1
		}
		if labels != nil {
			labels[i] = k
		}
	}
}

// level prepares the law of Y = aX + bε: component k is N(aμ_k,
// a²Σ_k + b²I).
func (m *Mixture) level(a, b float64) {
	if a == m.la && b == m.lb {
		return
	}
	m.la, m.lb = a, b
	for k, c := range m.comps {
		m.lmean[k] = [2]float64{a * c.Mean[0], a * c.Mean[1]}
		xx := a*a*c.Cov[0] + b*b
		if m.D == 1 {
			m.linv[k] = [3]float64{1 / xx}
			m.lconst[k] = math.Log(m.w[k]) - 0.5*math.Log(2*math.Pi*xx)
			continue
		}
		xy, yy := a*a*c.Cov[1], a*a*c.Cov[2]+b*b
		det := xx*yy - xy*xy
		m.linv[k] = [3]float64{yy / det, -xy / det, xx / det}
		m.lconst[k] = math.Log(m.w[k]) - math.Log(2*math.Pi) - 0.5*math.Log(det)
	}
}

// Score writes ∇_y log f_Y(y) for Y = aX + bε (X the mixture, ε ~ N(0, I))
// at every particle of y into dst: the responsibility-weighted sum of the
// components' scores −(a²Σ_k + b²I)⁻¹(y − aμ_k) (seed 001 [A30]).
func (m *Mixture) Score(dst, y []float64, a, b float64) {
	m.run(dst, y, a, b, 1)
}

// Eps writes the ideal denoiser ε*(y, σ) = E[ε | Y = y] = −σ ∇ log f_Y(y)
// of Y = X + σε (seed 000 eq 3.2) into dst. It makes Mixture a Denoiser.
func (m *Mixture) Eps(dst, y []float64, sigma float64) {
	m.run(dst, y, 1, sigma, -sigma)
}

// PosteriorMean writes Tweedie's E[X | Y = y] = y + σ² ∇ log f_Y(y)
// (seed 000 eq 3.1, L1159) into dst.
func (m *Mixture) PosteriorMean(dst, y []float64, sigma float64) {
	m.run(dst, y, 1, sigma, sigma*sigma)
	for i := range dst {
		dst[i] += y[i]
	}
}

func (m *Mixture) run(dst, y []float64, a, b, scale float64) {
	m.level(a, b)
	m.scale = scale
	m.job.dst, m.job.x = dst, y
	n := len(y) / m.D
	m.loop.Run(m.Workers, par.Blocks(n, blockSize), m.blockFunc)
	m.job.dst, m.job.x = nil, nil
}

// block computes the scaled score of the particles of block b: with the
// log-responsibilities shifted by their maximum, so that no component
// underflows them all.
func (m *Mixture) block(b int) {
	n := len(m.job.x) / m.D
	lo, hi := b*blockSize, min((b+1)*blockSize, n)
	var lr [MaxComponents]float64
	K := len(m.comps)
	if m.D == 1 {
		for i := lo; i < hi; i++ {
			y := m.job.x[i]
			top := math.Inf(-1)
			for k := range K {
				d := y - m.lmean[k][0]
				lr[k] = m.lconst[k] - 0.5*d*d*m.linv[k][0]
				top = max(top, lr[k])
			}
			var z, s float64
			for k := range K {
				r := math.Exp(lr[k] - top)
				z += r
				s -= r * (y - m.lmean[k][0]) * m.linv[k][0]
			}
			m.job.dst[i] = m.scale * s / z
		}
		return
	}
	for i := lo; i < hi; i++ {
		y0, y1 := m.job.x[2*i], m.job.x[2*i+1]
		top := math.Inf(-1)
		for k := range K {
			d0, d1 := y0-m.lmean[k][0], y1-m.lmean[k][1]
			p := &m.linv[k]
			lr[k] = m.lconst[k] - 0.5*(p[0]*d0*d0+2*p[1]*d0*d1+p[2]*d1*d1)
			top = max(top, lr[k])
		}
		var z, s0, s1 float64
		for k := range K {
			r := math.Exp(lr[k] - top)
			d0, d1 := y0-m.lmean[k][0], y1-m.lmean[k][1]
			p := &m.linv[k]
			z += r
			s0 -= r * (p[0]*d0 + p[1]*d1)
			s1 -= r * (p[1]*d0 + p[2]*d1)
		}
		m.job.dst[2*i] = m.scale * s0 / z
		m.job.dst[2*i+1] = m.scale * s1 / z
	}
}

// Density is f_Y(y) for Y = X + σε at one point (D values).
func (m *Mixture) Density(y []float64, sigma float64) float64 {
	m.level(1, sigma)
	f := 0.0
	for k := range m.comps {
		d0 := y[0] - m.lmean[k][0]
		q := d0 * d0 * m.linv[k][0]
		if m.D == 2 {
			d1 := y[1] - m.lmean[k][1]
			q += 2*m.linv[k][1]*d0*d1 + m.linv[k][2]*d1*d1
		}
		f += math.Exp(m.lconst[k] - 0.5*q)
	}
	return f
}

// Nearest writes, for every point of x, the component with the largest
// posterior probability at noise level 0: which mode it belongs to.
func (m *Mixture) Nearest(x []float64, dst []int) {
	m.level(1, 0)
	for i := range len(x) / m.D {
		best, arg := math.Inf(-1), 0
		for k := range m.comps {
			d0 := x[i*m.D] - m.lmean[k][0]
			q := d0 * d0 * m.linv[k][0]
			if m.D == 2 {
				d1 := x[i*m.D+1] - m.lmean[k][1]
				q += 2*m.linv[k][1]*d0*d1 + m.linv[k][2]*d1*d1
			}
			if l := m.lconst[k] - 0.5*q; l > best {
				best, arg = l, k
			}
		}
		dst[i] = arg
	}
}
