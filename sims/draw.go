package sims

import "math"

// SampleGrid evaluates f at the centres of an nx×ny tiling of view, in the
// layout of Grid.Z (bottom row first).
func SampleGrid(view Rect, nx, ny int, f func(x, y float64) float64) *Grid {
	g := &Grid{NX: nx, NY: ny, Z: make([]float64, nx*ny)}
	dx := (view.XMax - view.XMin) / float64(nx)
	dy := (view.YMax - view.YMin) / float64(ny)
	for j := 0; j < ny; j++ {
		y := view.YMin + (float64(j)+0.5)*dy
		for i := 0; i < nx; i++ {
			g.Z[j*nx+i] = f(view.XMin+(float64(i)+0.5)*dx, y)
		}
	}
	return g
}

// Ellipse returns the closed path {μ + r·L(cos θ, sin θ)} for the 2×2
// covariance Σ = [[sxx, sxy], [sxy, syy]] with L its Cholesky factor: the
// r-sigma contour of N(μ, Σ). A Σ that is not positive definite gives an
// empty path.
func Ellipse(mx, my, sxx, sxy, syy, r float64, class int) Path {
	if !(sxx > 0) || sxx*syy-sxy*sxy <= 0 {
		return Path{Class: class}
	}
	l11 := math.Sqrt(sxx)
	l21 := sxy / l11
	l22 := math.Sqrt(syy - l21*l21)
	const n = 48
	p := Path{X: make([]float64, n+1), Y: make([]float64, n+1), Class: class}
	for i := 0; i <= n; i++ {
		c, s := math.Cos(2*math.Pi*float64(i)/n), math.Sin(2*math.Pi*float64(i)/n)
		p.X[i] = mx + r*l11*c
		p.Y[i] = my + r*(l21*c+l22*s)
	}
	return p
}

// Pad returns view grown by frac of its size on every side.
func (v Rect) Pad(frac float64) Rect {
	dx, dy := (v.XMax-v.XMin)*frac, (v.YMax-v.YMin)*frac
	if dx == 0 {
		dx = 1
	}
	if dy == 0 {
		dy = 1
	}
	return Rect{v.XMin - dx, v.XMax + dx, v.YMin - dy, v.YMax + dy}
}

// Bounds returns the smallest Rect holding the points.
func Bounds(x, y []float64) Rect {
	r := Rect{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	for i := range x {
		r.XMin, r.XMax = math.Min(r.XMin, x[i]), math.Max(r.XMax, x[i])
		r.YMin, r.YMax = math.Min(r.YMin, y[i]), math.Max(r.YMax, y[i])
	}
	return r
}
