package target

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Funnel is Neal's funnel (R. M. Neal, "Slice sampling", Annals of
// Statistics 31(3), 2003, §8) in two dimensions, a hierarchical prior whose
// scale is itself random:
//
//	y ~ N(0, τ²),   x | y ~ N(0, e^y),
//
// with the log-scale y (Neal's v) on the vertical axis, so the picture is a
// funnel: a narrow neck for y < 0, a wide mouth for y > 0. It is not from the
// notes; it shows a geometry no single step size suits — in the neck the
// curvature of log p in x is e^{−y}, so a step that moves in the mouth blows
// up in the neck (HMC's "divergent transitions"). With state (x, y):
//
//	log p(x, y) = −y²/(2τ²) − log τ − x²/(2e^y) − y/2 − log 2π,
//	∂x log p = −x e^{−y},   ∂y log p = −y/τ² − ½ + ½ x² e^{−y}.
//
// Moments. E[y] = 0, Var[y] = τ², E[x] = E[E[x | y]] = 0,
// Var[x] = E[e^y] = e^{τ²/2} (the log-normal mean), Cov(x, y) =
// E[y E[x | y]] = 0. The marginal of x is heavy-tailed (its fourth moment is
// 3e^{2τ²}), so sample variances of x converge slowly. Build it with
// NewFunnel.
type Funnel struct {
	tau     float64
	logNorm float64 // −log τ − log 2π
}

// NewFunnel returns the funnel with log-scale standard deviation tau > 0
// (finite). Neal's is tau = 3.
func NewFunnel(tau float64) (Funnel, error) {
	if !(tau > 0) || math.IsInf(tau, 0) {
		return Funnel{}, algo.BadParam("tau", tau, "a finite number > 0")
	}
	return Funnel{tau: tau, logNorm: -math.Log(tau) - log2Pi}, nil
}

func (Funnel) Name() string { return string(KindFunnel) }
func (Funnel) Dim() int     { return 2 }

func (f Funnel) LogP(x []float64) float64 {
	u := x[1] / f.tau
	return -0.5*u*u - 0.5*x[0]*x[0]*math.Exp(-x[1]) - 0.5*x[1] + f.logNorm
}

func (f Funnel) Grad(grad, x []float64) {
	e := math.Exp(-x[1])
	grad[0] = -x[0] * e
	grad[1] = -x[1]/(f.tau*f.tau) - 0.5 + 0.5*x[0]*x[0]*e
}

func (f Funnel) Density(x []float64) float64 { return math.Exp(f.LogP(x)) }
func (Funnel) Mean() []float64               { return []float64{0, 0} }

func (f Funnel) Cov() [][]float64 {
	return [][]float64{{math.Exp(f.tau * f.tau / 2), 0}, {0, f.tau * f.tau}}
}

// Bounds is y ∈ ±2.5τ and x ∈ ±4e^{5τ/8}, four conditional standard
// deviations at y = 1.25τ: the box holds 97.9% of the mass for τ = 3 (the
// mouth above y ≈ 1.5τ is cut off at the sides) and leaves the neck visible.
func (f Funnel) Bounds() (lo, hi []float64) {
	hx := 4 * math.Exp(0.625*f.tau)
	return []float64{-hx, -2.5 * f.tau}, []float64{hx, 2.5 * f.tau}
}

// Formula is the density written out.
func (f Funnel) Formula() string {
	return fmt.Sprintf("y ~ N(0, %g²), x | y ~ N(0, e^y) (Neal's funnel)", f.tau)
}

// Draw writes an exact draw into dst: y, then x given y.
func (f Funnel) Draw(dst []float64, rng *rand.Rand) {
	y := f.tau * rng.NormFloat64()
	dst[0], dst[1] = math.Exp(y/2)*rng.NormFloat64(), y
}

// HasConditional is true for x (coordinate 0): x | y ~ N(0, e^y). The
// conditional of y given x, ∝ exp(−y²/(2τ²) − y/2 − x²e^{−y}/2), is not a
// standard law.
func (Funnel) HasConditional(i int) bool { return i == 0 }

// CondSample draws x ~ N(0, e^y) (i must be 0).
func (f Funnel) CondSample(i int, x []float64, rng *rand.Rand) float64 {
	if i != 0 {
		panic("target: the funnel's y has no closed-form conditional")
	}
	return math.Exp(x[1]/2) * rng.NormFloat64()
}

// CondLogPDF is log N(v; 0, e^y) (i must be 0).
func (f Funnel) CondLogPDF(i int, x []float64, v float64) float64 {
	if i != 0 {
		panic("target: the funnel's y has no closed-form conditional")
	}
	return -0.5*v*v*math.Exp(-x[1]) - 0.5*x[1] - halfLog2Pi
}
