// Package poison holds the data-poisoning results of seed 001 §18
// (L1587–L1617, catalogue [A36]): the reachability of a target parameter
// (Definition 18.1) and the threshold of Example 18.2 for logistic
// regression, with an attacker that adds ε_d·n copies of one crafted point
// and a defender that retrains.
//
// Labels are absorbed into the points, as in the notes: an example (x, y),
// y = ±1, is z = y·x, its loss ℓ(z; w) = log(1 + exp(−wᵀz)) and its
// gradient g(z; w) = −z/(1 + exp(wᵀz)). The model has no intercept, so any
// z is an example (x = z with y = +1): the attacker's feasible set Γ is the
// whole space.
package poison

import (
	"gonum.org/v1/gonum/floats"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
	"gonum.org/v1/gonum/mat"
)

// WInvE is W(1/e), Lambert's W at 1/e: −W(1/e) = inf_t −t/(1 + eᵗ)
// (L1611), the most a single example can pull ⟨w, g⟩ down.
const WInvE = 0.2784645427610738

// TStar = 1 + W(1/e) is where −t/(1 + eᵗ) attains its infimum: it solves
// t = 1 + e^{−t}, and the value there is −(t* − 1).
const TStar = 1.2784645427610737

// LambertW is the principal branch W(x) for x ≥ 0, the solution of
// w eʷ = x, by Halley's iteration.
func LambertW(x float64) float64 {
	if !(x >= 0) {
		return math.NaN()
	}
	w := math.Log1p(x)
	for range 50 {
		ew := math.Exp(w)
		f := w*ew - x
		nw := w - f/(ew*(w+1)-(w+2)*f/(2*w+2))
		if math.Abs(nw-w) <= 1e-16*math.Max(1, math.Abs(w)) {
			return nw
		}
		w = nw
	}
	return w
}

// MaxDim bounds the dimension of a problem.
const MaxDim = 16

// Problem is clean data μ (n absorbed examples z_i = y_i x_i in R^d).
type Problem struct {
	Z    []float64 // n·d, row-major
	N, D int
}

// NewProblem checks and wraps absorbed examples.
func NewProblem(z []float64, n, d int) (*Problem, error) {
	switch {
	case d < 1 || d > MaxDim:
		return nil, algo.BadParam("d", d, "in [1, 16]")
	case n < 1 || len(z) != n*d:
		return nil, algo.BadParam("n", n, "≥ 1 with n·d values")
	case !algo.AllFinite(z):
		return nil, algo.BadParam("z", "a non-finite value", "finite")
	}
	return &Problem{Z: z, N: n, D: d}, nil
}

// Grad writes g(μ; w) = (1/n) Σ −z_i/(1 + exp(wᵀz_i)) into dst.
func (p *Problem) Grad(dst, w []float64) {
	clear(dst)
	for i := range p.N {
		z := p.Z[i*p.D : (i+1)*p.D]
		c := -stable.Sigmoid(-floats.Dot(w, z)) / float64(p.N)
		for j, v := range z {
			dst[j] += c * v
		}
	}
}

// Threshold is Example 18.2's bound for the target w: no poisoning fraction
// below max{⟨w, g(μ; w)⟩/W(1/e), 0} makes w reachable (L1615), whatever the
// poison. For this package's attacker it is also sufficient (Attack).
func (p *Problem) Threshold(w []float64) float64 {
	g := make([]float64, p.D)
	p.Grad(g, w)
	return math.Max(floats.Dot(w, g)/WInvE, 0)
}

// Attack crafts the attacker's point for target w and fraction eps > 0:
// one point q, repeated eps·n times, such that g(μ; w) + eps·g(q; w) = 0
// when that is possible. With G = g(μ; w) and a = ⟨w, G⟩, the point is
// q = cG, c > 0 solving c/(1 + e^{ca}) = 1/eps. For a > 0 the left side
// peaks at c = t*/a with value W(1/e)/a, so a solution exists exactly when
// eps ≥ a/W(1/e): Example 18.2's threshold is tight. Below it the attacker
// takes the peak (the largest pull along G) and reachable is false. For
// a ≤ 0 a solution always exists; for G = 0 the target is already the
// clean optimum and q = 0 (whose gradient is 0).
func (p *Problem) Attack(w []float64, eps float64) (q []float64, reachable bool) {
	g := make([]float64, p.D)
	p.Grad(g, w)
	q = make([]float64, p.D)
	if floats.Norm(g, 2) == 0 {
		return q, true
	}
	a := floats.Dot(w, g)
	h := func(c float64) float64 { return c * stable.Sigmoid(-c*a) }
	target := 1 / eps
	lo, hi := 0.0, 1.0
	if a > 0 {
		hi = TStar / a
		if h(hi) < target {
			for j := range q {
				q[j] = hi * g[j]
			}
			return q, false
		}
	} else {
		for h(hi) < target {
			hi *= 2
		}
	}
	for range 200 { // h is increasing on [0, hi]
		mid := (lo + hi) / 2
		if h(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	for j := range q {
		q[j] = hi * g[j]
	}
	return q, true
}

// Separates says whether w classifies every clean example correctly,
// wᵀz_i > 0 for all i: a certificate that the data are separable through
// the origin, and then the logistic loss has no minimiser — its infimum 0
// is approached only as ‖w‖ → ∞ along w, and a fit stopped anywhere is an
// artefact of its stopping rule. Conversely, on data that are not
// separable some wᵀz_i ≤ 0 for every w. Retrain on separable data drives
// the loss below log 2 / n within its iterations, so every margin of its
// result is positive and Separates certifies it.
func (p *Problem) Separates(w []float64) bool {
	for i := range p.N {
		if floats.Dot(w, p.Z[i*p.D:(i+1)*p.D]) <= 0 {
			return false
		}
	}
	return true
}

// Retrain is the defender: it minimises the mixture's loss
// Σ_i ℓ(z_i; w) + m ℓ(q; w) (the clean examples and m copies of q) by
// Newton's method with backtracking from w (overwritten) until the Newton
// decrement is below 1e-12, and returns the final gradient norm (of the
// mean over the mixture's examples).
func (p *Problem) Retrain(w, q []float64, m float64) float64 {
	d := p.D
	g := make([]float64, d)
	h := make([]float64, d*d)
	step := make([]float64, d)
	var sv mat.VecDense
	trial := make([]float64, d)
	total := float64(p.N) + m
	loss := func(w []float64) float64 {
		s := m * stable.Softplus(-floats.Dot(w, q))
		for i := range p.N {
			s += stable.Softplus(-floats.Dot(w, p.Z[i*d:(i+1)*d]))
		}
		return s / total
	}
	add := func(z []float64, wt float64) {
		t := floats.Dot(w, z)
		c := -wt * stable.Sigmoid(-t)
		k := wt * stable.Sigmoid(t) * stable.Sigmoid(-t)
		for j := range d {
			g[j] += c * z[j]
			for l := range d {
				h[j*d+l] += k * z[j] * z[l]
			}
		}
	}
	gn := 0.0
	for range 100 {
		clear(g)
		clear(h)
		for i := range p.N {
			add(p.Z[i*d:(i+1)*d], 1/total)
		}
		add(q, m/total)
		if gn = floats.Norm(g, 2); gn < 1e-13 {
			break
		}
		if err := sv.SolveVec(mat.NewDense(d, d, h), mat.NewVecDense(d, g)); err == nil {
			copy(step, sv.RawVector().Data)
		} else {
			copy(step, g) // singular Hessian: a gradient step
		}
		dec := floats.Dot(g, step) // the squared Newton decrement: the loss left to gain, twice
		if dec < 1e-24 {
			break
		}
		f0, t := loss(w), 1.0
		for range 40 {
			if dec < 1e-6 {
				// Near the optimum the full step is taken: there the
				// Armijo test compares losses equal to rounding.
				for j := range d {
					trial[j] = w[j] - step[j]
				}
				break
			}
			for j := range d {
				trial[j] = w[j] - t*step[j]
			}
			if loss(trial) <= f0-1e-4*t*floats.Dot(g, step) {
				break
			}
			t /= 2
		}
		if t < 1e-11 {
			break // no decrease left at working precision
		}
		copy(w, trial)
	}
	return gn
}
