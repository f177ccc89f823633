package kernel

import (
	"fmt"

	"github.com/thelab/lab/algo"
)

// RKHS builds a function of the pre-Hilbert space of a kernel k, one atom at
// a time (seed 003 L315–332; seed 000 §4.3, eqs 4.13–4.14):
//
//	f = Σ_i α_i k(x_i, ·),   ⟨f, g⟩_H = Σ_i Σ_j α_i β_j k(x_i, x'_j),   ‖f‖²_H = αᵀKα,
//
// with the reproducing property f(x) = ⟨f, k(x, ·)⟩_H and the pointwise
// bound |f(x)|² ≤ k(x, x)‖f‖²_H (Cauchy–Schwarz, L332). Add keeps ‖f‖²_H by
// the update ‖f + a k(c, ·)‖² = ‖f‖² + 2a f(c) + a² k(c, c), which never
// forms K; Norm2Gram recomputes αᵀKα from the Gram matrix.
type RKHS struct {
	k      Kernel
	centre [][]float64
	alpha  []float64
	norm2  float64
}

// NewRKHS starts from f = 0 with room for max atoms.
func NewRKHS(k Kernel, max int) (*RKHS, error) {
	if k == nil {
		return nil, algo.BadParam("k", "nil", "a kernel")
	}
	if max < 1 {
		return nil, algo.BadParam("max", max, "≥ 1")
	}
	return &RKHS{k: k, centre: make([][]float64, 0, max), alpha: make([]float64, 0, max)}, nil
}

// Add adds the atom a·k(c, ·) (c is not copied).
func (r *RKHS) Add(c []float64, a float64) error {
	if len(r.centre) == cap(r.centre) {
		return algo.BadParam("atoms", len(r.centre)+1, fmt.Sprintf("at most %d", cap(r.centre)))
	}
	if len(r.centre) > 0 && len(c) != len(r.centre[0]) {
		return algo.BadParam("c", len(c), fmt.Sprintf("%d coordinates", len(r.centre[0])))
	}
	r.norm2 += 2*a*r.Eval(c) + a*a*Eval(r.k, c, c)
	r.centre = append(r.centre, c)
	r.alpha = append(r.alpha, a)
	return nil
}

// Atoms is the number of atoms.
func (r *RKHS) Atoms() int { return len(r.alpha) }

// Atom returns atom i's centre and coefficient.
func (r *RKHS) Atom(i int) ([]float64, float64) { return r.centre[i], r.alpha[i] }

// Eval returns f(x) = Σ_i α_i k(x_i, x), by evaluating the function.
func (r *RKHS) Eval(x []float64) float64 {
	s := 0.0
	for i, c := range r.centre {
		s += r.alpha[i] * Eval(r.k, c, x)
	}
	return s
}

// Norm2 is ‖f‖²_H, kept by Add.
func (r *RKHS) Norm2() float64 { return r.norm2 }

// Norm2Gram is αᵀKα from the Gram matrix of the centres.
func (r *RKHS) Norm2Gram() float64 {
	n := len(r.alpha)
	if n == 0 {
		return 0
	}
	g := Gram(r.k, r.centre)
	s := 0.0
	for i := 0; i < n; i++ {
		s += r.alpha[i] * dot(g[i*n:(i+1)*n], r.alpha)
	}
	return s
}

// Reproduce returns ⟨f, k(x, ·)⟩_H computed in explicit coordinates, not by
// evaluating f: the Gram matrix of the centres and x is embedded as points
// of R^{n+1} (Embed, seed 000 §4.2.3: K = X̂X̂ᵀ), f becomes Σ_i α_i x̂_i and
// k(x, ·) becomes x̂, and their Euclidean inner product is returned. The
// reproducing property (4.13) says it equals f(x).
func (r *RKHS) Reproduce(x []float64) (float64, error) {
	n := len(r.alpha)
	if n == 0 {
		return 0, nil
	}
	pts := append(append(make([][]float64, 0, n+1), r.centre...), x)
	e, err := Embed(Gram(r.k, pts), n+1, n+1)
	if err != nil {
		return 0, err
	}
	fvec := make([]float64, n+1)
	for i, row := range e[:n] {
		for c, v := range row {
			fvec[c] += r.alpha[i] * v
		}
	}
	return dot(fvec, e[n]), nil
}
