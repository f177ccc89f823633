// Package laplace holds the Laplace approximation (seed 002 §3.3,
// L1168–1219; catalogue C7): Newton's method to the mode ẑ of a
// log-density, and the Gaussian q(z) = N(z | ẑ, H⁻¹), H = −∇² log p(ẑ),
// with the divergences between q and the target computed on a grid.
package laplace

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
)

// Model is a log-density with its gradient and Hessian, known up to an
// additive constant (Remark 3.6, L1184: the Laplace approximation needs
// only the maximiser and the Hessian).
type Model interface {
	Name() string
	Dim() int
	// LogP is log p(z) up to a constant: −Inf outside the support.
	LogP(z []float64) float64
	// Grad writes ∇ log p(z) into g.
	Grad(g, z []float64)
	// Hess writes ∇² log p(z) into h (Dim×Dim, row-major).
	Hess(h, z []float64)
	// Bounds is a box that holds nearly all of p's mass, for the grid on
	// which p is normalised and drawn.
	Bounds() (lo, hi []float64)
}

// ChiSquare is the χ² distribution with k degrees of freedom, the notes'
// Fig 3.9 (L1186, "a 10-DOF χ² distribution"):
//
//	log p(z) = (k/2 − 1) log z − z/2 − (k/2) log 2 − log Γ(k/2),   z > 0,
//	d/dz log p = (k/2 − 1)/z − ½,   d²/dz² log p = −(k/2 − 1)/z².
//
// For k > 2 it is log-concave with mode ẑ = k − 2 and curvature
// H = (k/2 − 1)/ẑ² = 1/(2(k − 2)), so the Laplace approximation is
// N(k − 2, 2(k − 2)) — N(8, 16) for k = 10 (catalogue C7 [D]) — while the
// target has mean k and variance 2k: q sits left of the skewed p and
// puts mass Φ(−√((k−2)/2)) on z ≤ 0, where p = 0, so KL(q‖p) = ∞.
type ChiSquare struct {
	k       float64
	logNorm float64
}

// NewChiSquare returns χ²_k for k in (2, 1000].
func NewChiSquare(k float64) (ChiSquare, error) {
	if !(k > 2 && k <= 1000) {
		return ChiSquare{}, algo.BadParam("k", k, "in (2, 1000] (the mode k − 2 must be positive)")
	}
	lg, _ := math.Lgamma(k / 2)
	return ChiSquare{k: k, logNorm: -k/2*math.Ln2 - lg}, nil
}

func (c ChiSquare) Name() string { return fmt.Sprintf("χ²(%g)", c.k) }
func (ChiSquare) Dim() int       { return 1 }

func (c ChiSquare) LogP(z []float64) float64 {
	if !(z[0] > 0) {
		return math.Inf(-1)
	}
	return (c.k/2-1)*math.Log(z[0]) - z[0]/2 + c.logNorm
}

func (c ChiSquare) Grad(g, z []float64) { g[0] = (c.k/2-1)/z[0] - 0.5 }
func (c ChiSquare) Hess(h, z []float64) { h[0] = -(c.k/2 - 1) / (z[0] * z[0]) }

// Bounds is [0, k + 10√(2k) + 30], beyond which the mass is below 6e-12
// (below 1e-12 from k = 4 on):
// wide enough to normalise p and take its moments on a grid (draw a
// narrower window).
func (c ChiSquare) Bounds() (lo, hi []float64) {
	return []float64{0}, []float64{c.k + 10*math.Sqrt(2*c.k) + 30}
}

// K is the degrees of freedom.
func (c ChiSquare) K() float64 { return c.k }

// Mean and Var are the exact moments k and 2k.
func (c ChiSquare) Mean() float64 { return c.k }
func (c ChiSquare) Var() float64  { return 2 * c.k }

// Logistic is the posterior of Bayesian logistic regression (Example 3.4,
// L1188–1219, with the features φ_n generalised from the notes' scalar x_n
// to vectors, e.g. (1, x_n) for an intercept):
//
//	θ ~ N(0, τ² I),   p(y_n = 1 | θ) = σ(θᵀφ_n),
//	log p(θ | y) = −‖θ‖²/(2τ²) + Σ_n (y_n a_n − log(1 + e^{a_n})) + const,   a_n = θᵀφ_n,
//	∇ log p = −θ/τ² + Σ_n φ_n (y_n − σ(a_n))                    (eq 3.4),
//	∇² log p = −I/τ² − Σ_n φ_n φ_nᵀ σ(a_n)(1 − σ(a_n))          (eq 3.5),
//
// computed with the stable softplus and sigmoid. The Hessian is negative
// definite everywhere, so the posterior is log-concave and pure Newton
// converges (the catalogue's "must get right").
type Logistic struct {
	phi  [][]float64
	y    []float64
	tau  float64
	name string
}

// NewLogistic returns the posterior for features phi (n rows of d ≥ 1
// finite values), labels y (0 or 1) and prior standard deviation tau > 0.
// The inputs are not copied: do not modify them.
func NewLogistic(name string, phi [][]float64, y []float64, tau float64) (*Logistic, error) {
	if len(phi) == 0 || len(phi) != len(y) || len(phi[0]) == 0 {
		return nil, algo.BadParam("data", len(phi), "at least one row, one label per row")
	}
	for i, row := range phi {
		if len(row) != len(phi[0]) {
			return nil, algo.BadParam("data", i, "rows of one length")
		}
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, algo.BadParam("data", v, "finite features")
			}
		}
		if y[i] != 0 && y[i] != 1 {
			return nil, algo.BadParam("labels", y[i], "0 or 1")
		}
	}
	if !(tau > 0) || math.IsInf(tau, 0) {
		return nil, algo.BadParam("tau", tau, "a finite number > 0")
	}
	return &Logistic{phi: phi, y: y, tau: tau, name: name}, nil
}

// Example34 is the notes' Example 3.4 in one dimension with the
// catalogue's data (C7 [M]): x = (−2, −1, −0.5, 0.5, 1, 2, 3, −3),
// y = (0, 0, 1, 0, 1, 1, 1, 0), τ = 2. Newton from w = 0 gives
// 0.7458, 1.0753, 1.1937, 1.2053, 1.20534628; the Laplace variance is
// 0.56095.
func Example34(tau float64) (*Logistic, error) {
	xs := []float64{-2, -1, -0.5, 0.5, 1, 2, 3, -3}
	ys := []float64{0, 0, 1, 0, 1, 1, 1, 0}
	phi := make([][]float64, len(xs))
	for i, x := range xs {
		phi[i] = []float64{x}
	}
	return NewLogistic("logistic (Ex 3.4)", phi, ys, tau)
}

func (l *Logistic) Name() string { return l.name }
func (l *Logistic) Dim() int     { return len(l.phi[0]) }

func (l *Logistic) dot(theta, phi []float64) float64 {
	a := 0.0
	for j, v := range phi {
		a += theta[j] * v
	}
	return a
}

func (l *Logistic) LogP(theta []float64) float64 {
	lp := 0.0
	for _, t := range theta {
		lp -= t * t / (2 * l.tau * l.tau)
	}
	for n, phi := range l.phi {
		a := l.dot(theta, phi)
		lp += l.y[n]*a - stable.Softplus(a)
	}
	return lp
}

func (l *Logistic) Grad(g, theta []float64) {
	for j, t := range theta {
		g[j] = -t / (l.tau * l.tau)
	}
	for n, phi := range l.phi {
		r := l.y[n] - stable.Sigmoid(l.dot(theta, phi))
		for j, v := range phi {
			g[j] += v * r
		}
	}
}

func (l *Logistic) Hess(h, theta []float64) {
	d := len(theta)
	clear(h[:d*d])
	for j := range d {
		h[j*d+j] = -1 / (l.tau * l.tau)
	}
	for _, phi := range l.phi {
		s := stable.Sigmoid(l.dot(theta, phi))
		w := s * (1 - s)
		for i := range d {
			for j := range d {
				h[i*d+j] -= w * phi[i] * phi[j]
			}
		}
	}
}

// Bounds is a box about the posterior mode ẑ with half-width 8 Laplace
// standard deviations √((H⁻¹)_jj) per coordinate (at least 1, at most 4τ:
// the posterior is never wider than the prior), found by running Newton
// once. The posterior's skew makes one tail longer than the Laplace
// Gaussian's; 8 of its standard deviations hold it for the lab's data sets.
func (l *Logistic) Bounds() (lo, hi []float64) {
	d := l.Dim()
	nw, err := NewNewton(l, make([]float64, d), 1e-10)
	if err == nil {
		for range 100 {
			if nw.Step() != nil {
				break
			}
		}
	}
	mode, cov := make([]float64, d), make([][]float64, d)
	if err == nil {
		mode = nw.Z()
		cov, _ = nw.Laplace()
	}
	lo, hi = make([]float64, d), make([]float64, d)
	for j := range d {
		r := 4 * l.tau
		if cov != nil && cov[j] != nil && cov[j][j] > 0 {
			r = math.Min(math.Max(8*math.Sqrt(cov[j][j]), 1), r)
		}
		lo[j], hi[j] = mode[j]-r, mode[j]+r
	}
	return lo, hi
}

// Data returns the features and labels (views: do not modify).
func (l *Logistic) Data() (phi [][]float64, y []float64) { return l.phi, l.y }

// Tau is the prior standard deviation.
func (l *Logistic) Tau() float64 { return l.tau }

// Gaussian is the log-density of N(m, diag(s²)), for which the Laplace
// approximation is exact (a test oracle: Newton converges in one step and
// the divergences vanish).
type Gaussian struct{ M, S []float64 }

func (g Gaussian) Name() string { return "gaussian" }
func (g Gaussian) Dim() int     { return len(g.M) }
func (g Gaussian) LogP(z []float64) float64 {
	lp := 0.0
	for i, v := range z {
		u := (v - g.M[i]) / g.S[i]
		lp -= 0.5*u*u + math.Log(g.S[i]) + 0.5*math.Log(2*math.Pi)
	}
	return lp
}
func (g Gaussian) Grad(gr, z []float64) {
	for i, v := range z {
		gr[i] = -(v - g.M[i]) / (g.S[i] * g.S[i])
	}
}
func (g Gaussian) Hess(h, z []float64) {
	d := len(z)
	clear(h[:d*d])
	for i := range d {
		h[i*d+i] = -1 / (g.S[i] * g.S[i])
	}
}
func (g Gaussian) Bounds() (lo, hi []float64) {
	for i := range g.M {
		lo = append(lo, g.M[i]-8*g.S[i])
		hi = append(hi, g.M[i]+8*g.S[i])
	}
	return lo, hi
}
