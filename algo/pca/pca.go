// Package pca finds the plane of the first two principal components of
// points in d dimensions and maps points and Gaussians onto it: how a pane
// draws a fit made in d dimensions. It is Algorithm 1 of seed 000 §4.8.3
// (L1752–1766) with k = 2: centre the data, take its (1/N) covariance C,
// the unit eigenvectors of its two largest eigenvalues (eq 4.51), and
// project on them (eq 4.52).
package pca

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// Plane is the plane through the data's mean spanned by its first two
// principal directions: the eigenvectors of the (1/n) covariance
// C = (1/n) Σ_i (x_i − m)(x_i − m)ᵀ of its two largest eigenvalues. A point
// x maps to (a₁·(x − m), a₂·(x − m)), which keeps as much of the data's
// variance as any linear map to the plane can (Eckart–Young).
type Plane struct {
	Mean  []float64    // m, the data's mean: the plane's origin
	Axes  [2][]float64 // a₁, a₂: orthonormal, each with its largest entry in magnitude positive
	Var   [2]float64   // λ₁ ≥ λ₂: the variance of the data along each axis
	Total float64      // tr C: the data's total variance
}

// Fit finds the principal plane of the points cols, given by coordinate
// (cols[t][i] is coordinate t of point i): d ≥ 2 columns of n ≥ 1 finite
// values each.
func Fit(cols [][]float64) (*Plane, error) {
	d := len(cols)
	if d < 2 {
		return nil, algo.BadParam("data", fmt.Sprintf("%d coordinates", d), "at least 2")
	}
	n := len(cols[0])
	if n < 1 {
		return nil, algo.BadParam("data", "0 points", "at least 1 point")
	}
	p := &Plane{Mean: make([]float64, d)}
	for t, col := range cols {
		if len(col) != n {
			return nil, algo.BadParam("data", fmt.Sprintf("coordinate %d has %d values", t+1, len(col)), fmt.Sprintf("%d, as coordinate 1 has", n))
		}
		s := 0.0
		for _, v := range col {
			if !algo.Finite(v) {
				return nil, algo.BadParam("data", fmt.Sprintf("a value %v in coordinate %d", v, t+1), "finite numbers")
			}
			s += v
		}
		p.Mean[t] = s / float64(n)
	}
	c := mat.NewSymDense(d, nil)
	for t := range d {
		for u := t; u < d; u++ {
			s := 0.0
			mt, mu := p.Mean[t], p.Mean[u]
			for i, v := range cols[t] {
				s += (v - mt) * (cols[u][i] - mu)
			}
			c.SetSym(t, u, s/float64(n))
		}
		p.Total += c.At(t, t)
	}
	var eig mat.EigenSym
	if !eig.Factorize(c, true) {
		return nil, algo.Diverged("the covariance's eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	for a := range 2 {
		col := d - 1 - a
		p.Var[a] = max(vals[col], 0)
		axis := make([]float64, d)
		big := 0
		for t := range axis {
			axis[t] = vecs.At(t, col)
			if math.Abs(axis[t]) > math.Abs(axis[big]) {
				big = t
			}
		}
		if axis[big] < 0 {
			for t := range axis {
				axis[t] = -axis[t]
			}
		}
		p.Axes[a] = axis
	}
	return p, nil
}

// Explained returns the fractions of the total variance along each axis,
// λ₁/tr C and λ₂/tr C (0 and 0 when every point is the same).
func (p *Plane) Explained() (a, b float64) {
	if p.Total <= 0 {
		return 0, 0
	}
	return p.Var[0] / p.Total, p.Var[1] / p.Total
}

// Point maps x (d coordinates) to the plane.
func (p *Plane) Point(x []float64) (a, b float64) {
	for t, v := range x {
		a += p.Axes[0][t] * (v - p.Mean[t])
		b += p.Axes[1][t] * (v - p.Mean[t])
	}
	return a, b
}

// Points maps every point of cols (by coordinate) to the plane.
func (p *Plane) Points(cols [][]float64) (a, b []float64) {
	n := len(cols[0])
	a, b = make([]float64, n), make([]float64, n)
	for t, col := range cols {
		u, v, m := p.Axes[0][t], p.Axes[1][t], p.Mean[t]
		for i, x := range col {
			a[i] += u * (x - m)
			b[i] += v * (x - m)
		}
	}
	return a, b
}

// Cov maps a covariance Σ (d×d) to the plane: the entries of A Σ Aᵀ, with
// A the 2×d matrix of the axes. A Gaussian N(μ, Σ) in d dimensions maps to
// exactly N(Point(μ), A Σ Aᵀ) on the plane, its marginal there.
func (p *Plane) Cov(s [][]float64) (sxx, sxy, syy float64) {
	u, v := p.Axes[0], p.Axes[1]
	for t, row := range s {
		su, sv := 0.0, 0.0
		for w, x := range row {
			su += x * u[w]
			sv += x * v[w]
		}
		sxx += u[t] * su
		sxy += u[t] * sv
		syy += v[t] * sv
	}
	return sxx, sxy, syy
}
