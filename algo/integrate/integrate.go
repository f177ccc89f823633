// Package integrate holds the numerical quadrature that the lab's engines
// and their tests share: composite Gauss–Legendre rules over a partition
// of an interval (for densities with kinks or jumps, split at them), and
// Gauss–Hermite rules for expectations under a Gaussian.
//
// The nodes and weights come from gonum's integrate/quad; this package only
// maps them onto panels and onto N(m, s²), and precomputes them so that a
// rule can be applied many times without allocating.
package integrate

import (
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/integrate/quad"
)

// Legendre is an n-point Gauss–Legendre rule on [−1, 1], exact for
// polynomials of degree 2n − 1.
type Legendre struct{ x, w []float64 }

// NewLegendre returns the n-point rule; n must be in 1..1000.
func NewLegendre(n int) (Legendre, error) {
	if n < 1 || n > 1000 {
		return Legendre{}, algo.BadParam("order", n, "in 1..1000")
	}
	r := Legendre{x: make([]float64, n), w: make([]float64, n)}
	quad.Legendre{}.FixedLocations(r.x, r.w, -1, 1)
	return r, nil
}

// Pieces returns ∫ f over [breaks[0], breaks[len−1]], applying the rule on
// `panels` equal panels inside each piece [breaks[i], breaks[i+1]]. Split
// the range at the points where f has a jump or a kink: the rule is then
// exponentially accurate on each smooth piece. breaks must increase.
func (r Legendre) Pieces(f func(float64) float64, breaks []float64, panels int) float64 {
	total := 0.0
	for i := 0; i+1 < len(breaks); i++ {
		a, b := breaks[i], breaks[i+1]
		h := (b - a) / float64(panels)
		for p := 0; p < panels; p++ {
			lo := a + float64(p)*h
			c, half := lo+h/2, h/2
			s := 0.0
			for j, x := range r.x {
				s += r.w[j] * f(c+half*x)
			}
			total += s * half
		}
	}
	return total
}

// Integrate is ∫_a^b f by a 20-point Gauss–Legendre rule on `panels` equal
// panels: the default rule of the lab's quadrature checks.
func Integrate(f func(float64) float64, a, b float64, panels int) float64 {
	return legendre20.Pieces(f, []float64{a, b}, panels)
}

var legendre20 = mustLegendre(20)

func mustLegendre(n int) Legendre {
	r, err := NewLegendre(n)
	if err != nil {
		panic(err)
	}
	return r
}

// Normal is a quadrature rule for the standard normal: for Z ~ N(0, 1),
// E[f(Z)] ≈ Σ_i W_i f(Z_i). The weights sum to one.
type Normal struct {
	Z, W []float64
}

// Hermite is the n-point Gauss–Hermite rule, exact when f is a polynomial
// of degree up to 2n − 1: the best rule for smooth f. For an f with
// structure on a scale much finer than one standard deviation (the
// log-density of a mixture of narrow components, say) its error decays
// slowly; use NewPanelNormal then.
type Hermite = Normal

// NewPanelNormal returns the rule that applies a `order`-point
// Gauss–Legendre rule on `panels` equal panels of [−8, 8] to f(z) φ(z),
// φ the standard normal density, with the weights renormalised to sum to one
// (the mass beyond ±8 is 1.2e-15). It resolves f on the scale 16/panels.
func NewPanelNormal(panels, order int) (Normal, error) {
	if panels < 1 || panels > 1000 {
		return Normal{}, algo.BadParam("panels", panels, "in 1..1000")
	}
	r, err := NewLegendre(order)
	if err != nil {
		return Normal{}, err
	}
	const half = 8.0
	n := panels * order
	h := Normal{Z: make([]float64, 0, n), W: make([]float64, 0, n)}
	width := 2 * half / float64(panels)
	total := 0.0
	for p := range panels {
		c := -half + (float64(p)+0.5)*width
		for j, x := range r.x {
			z := c + width/2*x
			w := r.w[j] * width / 2 * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
			h.Z, h.W = append(h.Z, z), append(h.W, w)
			total += w
		}
	}
	for i := range h.W {
		h.W[i] /= total
	}
	return h, nil
}

// NewHermite returns the n-point rule; n must be in 1..200.
func NewHermite(n int) (Normal, error) {
	if n < 1 || n > 200 {
		return Hermite{}, algo.BadParam("order", n, "in 1..200")
	}
	x, w := make([]float64, n), make([]float64, n)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	// ∫ e^{−x²} f(x) dx ≈ Σ w f(x); with z = √2 x, E[f(Z)] = π^{−½} ∫ e^{−x²} f(√2 x) dx.
	h := Hermite{Z: x, W: w}
	for i := range x {
		h.Z[i] = math.Sqrt2 * x[i]
		h.W[i] = w[i] / math.SqrtPi
	}
	return h, nil
}

// Expect returns E[f(X)] for X ~ N(m, s²) by the rule.
func (h Normal) Expect(f func(float64) float64, m, s float64) float64 {
	e := 0.0
	for i, z := range h.Z {
		e += h.W[i] * f(m+s*z)
	}
	return e
}

// Grid returns the tensor-product rule in d dimensions: n^d nodes (row i of
// z, flattened: z[i*d : (i+1)*d]) and weights with E[f(Z)] ≈ Σ_i w_i f(z_i)
// for Z ~ N(0, I_d). d must be in 1..3.
func (h Normal) Grid(d int) (z, w []float64, err error) {
	if d < 1 || d > 3 {
		return nil, nil, algo.BadParam("dim", d, "in 1..3")
	}
	n := len(h.Z)
	total := 1
	for range d {
		total *= n
	}
	z, w = make([]float64, total*d), make([]float64, total)
	idx := make([]int, d)
	for i := range total {
		w[i] = 1
		for k := range d {
			z[i*d+k] = h.Z[idx[k]]
			w[i] *= h.W[idx[k]]
		}
		for k := range d {
			if idx[k]++; idx[k] < n {
				break
			}
			idx[k] = 0
		}
	}
	return z, w, nil
}

// Len is the number of nodes.
func (h Normal) Len() int { return len(h.Z) }
