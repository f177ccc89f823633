package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Regression presets: Labelled sets with Classes = 0 and real targets.

// Epsilon is the ill-conditioned least-squares example of seed 001 §3
// (L357–L361): in the notes' d×n layout X = [[0, ε], [1, 1]] and y = (1, −1),
// that is two samples x₁ = (0, 1), x₂ = (ε, 1) with targets 1 and −1. Without
// a bias column the least-squares solution is w = (−2/ε, 1): "chaotic" as
// ε → 0.
func Epsilon(eps float64) (*Labelled, error) {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, algo.BadParam("eps", eps, "a finite number > 0")
	}
	return &Labelled{Name: "epsilon", Features: []string{"x1", "x2"},
		X: [][]float64{{0, 1}, {eps, 1}}, Y: []float64{1, -1}}, nil
}

// Line draws n points x ~ U(−3, 3) with y = 1.5x − 0.5 + noise·N(0, 1): a
// 1-D regression whose fitted line can be drawn over the data.
func Line(rng *rand.Rand, n int, noise float64) (*Labelled, error) {
	if n < 2 || n > 100000 {
		return nil, algo.BadParam("n", n, "in 2..100000")
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	l := &Labelled{Name: "line", Features: []string{"x"}}
	for i := 0; i < n; i++ {
		x := 6*rng.Float64() - 3
		l.X = append(l.X, []float64{x})
		l.Y = append(l.Y, 1.5*x-0.5+noise*rng.NormFloat64())
	}
	return l, nil
}

// LinearTrue returns the coefficients Linear plants: w_j = (−1)^j·2/(j + 1),
// and intercept 1.
func LinearTrue(d int) (w []float64, b float64) {
	w = make([]float64, d)
	for j := range w {
		w[j] = 2 / float64(j+1)
		if j%2 == 1 {
			w[j] = -w[j]
		}
	}
	return w, 1
}

// Linear draws n rows of d correlated features, x_ij = z_ij + rho·z_i0 with
// z ~ N(0, I) (a shared factor: the larger rho, the worse conditioned XᵀX),
// and targets y = ⟨x, w⟩ + 1 + noise·N(0, 1) with w from LinearTrue.
func Linear(rng *rand.Rand, n, d int, rho, noise float64) (*Labelled, error) {
	if n < 2 || n > 100000 {
		return nil, algo.BadParam("n", n, "in 2..100000")
	}
	if d < 1 || d > 1000 {
		return nil, algo.BadParam("d", d, "in 1..1000")
	}
	if !(rho >= 0) || math.IsInf(rho, 0) {
		return nil, algo.BadParam("rho", rho, "a finite number ≥ 0")
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, algo.BadParam("noise", noise, "a finite number ≥ 0")
	}
	w, b := LinearTrue(d)
	l := &Labelled{Name: "linear"}
	for j := 0; j < d; j++ {
		l.Features = append(l.Features, fmt.Sprintf("x%d", j+1))
	}
	for i := 0; i < n; i++ {
		x := make([]float64, d)
		f := rng.NormFloat64()
		y := b
		for j := range x {
			x[j] = rng.NormFloat64() + rho*f
			y += w[j] * x[j]
		}
		l.X = append(l.X, x)
		l.Y = append(l.Y, y+noise*rng.NormFloat64())
	}
	return l, nil
}
