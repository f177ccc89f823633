// Package fdiv estimates f-divergences D_f(q‖p) = ∫ p f(q/p) dx by their
// variational (Fenchel) lower bound (seed 001 §13, L1271–L1303 and
// L1333–L1335, catalogue [A23]):
//
//	D_f(q‖p) = max_S E_q[S(x)] − E_p[f*(S(x))],
//
// f* the convex conjugate of f (Definition 13.2), the maximum reached at
// S* = f′(q/p). Every S gives a lower bound (Fenchel–Young). The
// discriminator ascends the bound: this is the inner maximisation of a
// GAN (algo/gan).
//
// S is written S = g_f(V) with an output map g_f into the domain of f*
// (Nowozin et al. 2016, beyond the notes) so that the optimum is always
// V* = log(q/p); for two normal laws log(q/p) is a quadratic, so the
// family V(x) = a + b·u + c·u², u = (x − centre)/scale, holds it exactly
// and the ascent can reach the divergence itself.
package fdiv

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// Kind names an f-divergence.
type Kind string

// The divergences, with f, the output map g_f and A(v) = g_f(v),
// B(v) = f*(g_f(v)), so that the bound is E_q[A(V)] − E_p[B(V)]:
//
//	kl       f = t log t − t + 1     A = v               B = e^v − 1        KL(q‖p); the notes' +1 restored (L1299)
//	reverse  f = −log t              A = −e^{−v}         B = v − 1          KL(p‖q)
//	js       f = t log t − (t+1)log(t+1) + log 4
//	                                 A = log σ(v)        B = softplus(v) − log 4
//	                                 2·JS with the ½ factors (log 4 for disjoint supports); erratum E20's signs corrected
//	hellinger f = (√t − 1)²          A = 1 − e^{−v/2}    B = e^{v/2} − 1    ∫(√q − √p)²
const (
	KL        Kind = "kl"
	ReverseKL Kind = "reverse"
	JS        Kind = "js"
	Hellinger Kind = "hellinger"
)

// Kinds lists them.
var Kinds = []Kind{KL, ReverseKL, JS, Hellinger}

func (k Kind) String() string { return string(k) }

// VMax clips V to [−VMax, VMax] before an exponential (the catalogue's
// "e^S overflows; clip S"): a clipped V is still a function of x, so the
// bound stays a lower bound.
const VMax = 300

// clip bounds v; inside reports whether it was not clipped (the gradient
// through a clipped value is 0).
func clip(v float64) (float64, bool) {
	if v > VMax {
		return VMax, false
	}
	if v < -VMax {
		return -VMax, false
	}
	return v, true
}

// softplus is log(1 + e^v) without overflow.
func softplus(v float64) float64 {
	if v > 0 {
		return v + math.Log1p(math.Exp(-v))
	}
	return math.Log1p(math.Exp(v))
}

func sigmoid(v float64) float64 {
	if v >= 0 {
		return 1 / (1 + math.Exp(-v))
	}
	e := math.Exp(v)
	return e / (1 + e)
}

// Terms returns A(v), B(v) and their derivatives (see Kind).
func (k Kind) Terms(v float64) (a, b, da, db float64) {
	v, in := clip(v)
	switch k {
	case KL:
		e := math.Exp(v)
		a, b, da, db = v, e-1, 1, e
	case ReverseKL:
		e := math.Exp(-v)
		a, b, da, db = -e, v-1, e, 1
	case JS:
		a, b = -softplus(-v), softplus(v)-math.Log(4)
		da, db = sigmoid(-v), sigmoid(v)
	case Hellinger:
		e := math.Exp(v / 2)
		a, b, da, db = 1-1/e, e-1, 0.5/e, 0.5*e
	}
	if !in {
		da, db = 0, 0
	}
	return a, b, da, db
}

// F is f(t) for t > 0 (and its limit at 0).
func (k Kind) F(t float64) float64 {
	switch k {
	case KL:
		if t == 0 {
			return 1
		}
		return t*math.Log(t) - t + 1
	case ReverseKL:
		return -math.Log(t)
	case JS:
		if t == 0 {
			return math.Log(4)
		}
		return t*math.Log(t) - (t+1)*math.Log1p(t) + math.Log(4)
	case Hellinger:
		s := math.Sqrt(t) - 1
		return s * s
	}
	return math.NaN()
}

func (k Kind) valid() bool {
	for _, c := range Kinds {
		if c == k {
			return true
		}
	}
	return false
}

// Normal is N(Mean, SD²) on the line.
type Normal struct{ Mean, SD float64 }

// LogPDF is log of the density at x.
func (n Normal) LogPDF(x float64) float64 {
	z := (x - n.Mean) / n.SD
	return -0.5*z*z - math.Log(n.SD) - 0.5*math.Log(2*math.Pi)
}

// Closed returns D_f(q‖p) for two normal laws: closed forms for kl,
// reverse and hellinger (Bhattacharyya), quadrature for js.
func Closed(k Kind, q, p Normal) float64 {
	kl := func(a, b Normal) float64 {
		d := a.Mean - b.Mean
		return math.Log(b.SD/a.SD) + (a.SD*a.SD+d*d)/(2*b.SD*b.SD) - 0.5
	}
	switch k {
	case KL:
		return kl(q, p)
	case ReverseKL:
		return kl(p, q)
	case Hellinger:
		s2 := q.SD*q.SD + p.SD*p.SD
		d := q.Mean - p.Mean
		return 2 - 2*math.Sqrt(2*q.SD*p.SD/s2)*math.Exp(-d*d/(4*s2))
	}
	return Integrate(q, p, func(x float64) float64 { return k.Integrand(q.LogPDF(x), p.LogPDF(x)) })
}

// Integrand is p·f(q/p) from log q and log p, without overflow where one
// density is far below the other.
func (k Kind) Integrand(lq, lp float64) float64 {
	if k == JS {
		// q log(2q/(q+p)) + p log(2p/(q+p)).
		m := math.Max(lq, lp)
		lm := m + math.Log(math.Exp(lq-m)+math.Exp(lp-m)) - math.Ln2
		return math.Exp(lq)*(lq-lm) + math.Exp(lp)*(lp-lm)
	}
	return math.Exp(lp) * k.F(math.Exp(lq-lp))
}

// quadNodes is the number of Simpson intervals of Integrate (even).
const quadNodes = 2000

// Integrate is ∫ h by Simpson's rule over both laws' means ± 12 s.d.
func Integrate(q, p Normal, h func(x float64) float64) float64 {
	s := math.Max(q.SD, p.SD)
	lo := math.Min(q.Mean, p.Mean) - 12*s
	hi := math.Max(q.Mean, p.Mean) + 12*s
	w := (hi - lo) / quadNodes
	sum := h(lo) + h(hi)
	for i := 1; i < quadNodes; i++ {
		c := 2.0
		if i%2 == 1 {
			c = 4
		}
		sum += c * h(lo+float64(i)*w)
	}
	return sum * w / 3
}

// Quadratic is V(x) = A + B·u + C·u², u = (x − Centre)/Scale.
type Quadratic struct {
	A, B, C       float64
	Centre, Scale float64
}

// At is V(x).
func (v Quadratic) At(x float64) float64 {
	u := (x - v.Centre) / v.Scale
	return v.A + u*(v.B+u*v.C)
}

// LogRatio is the quadratic equal to log(q/p): the optimum V*.
func LogRatio(q, p Normal, centre, scale float64) Quadratic {
	// log q − log p in x, re-expanded in u: x = centre + scale·u.
	c2 := 1/(2*p.SD*p.SD) - 1/(2*q.SD*q.SD)
	c1 := q.Mean/(q.SD*q.SD) - p.Mean/(p.SD*p.SD)
	c0 := p.Mean*p.Mean/(2*p.SD*p.SD) - q.Mean*q.Mean/(2*q.SD*q.SD) + math.Log(p.SD/q.SD)
	return Quadratic{
		A:      c0 + c1*centre + c2*centre*centre,
		B:      (c1 + 2*c2*centre) * scale,
		C:      c2 * scale * scale,
		Centre: centre, Scale: scale,
	}
}

// Bound is the population bound E_q[A(V)] − E_p[B(V)] by quadrature: at
// most Closed(k, q, p), with equality at V = LogRatio.
func Bound(k Kind, q, p Normal, v Quadratic) float64 {
	return Integrate(q, p, func(x float64) float64 {
		a, b, _, _ := k.Terms(v.At(x))
		return math.Exp(q.LogPDF(x))*a - math.Exp(p.LogPDF(x))*b
	})
}

// Estimator ascends the sample bound
//
//	Ĵ(V) = (1/n) Σ A(V(x_i)) − (1/m) Σ B(V(y_j)),  x_i ~ q, y_j ~ p,
//
// over the quadratic V by gradient ascent with momentum, on samples drawn
// once.
type Estimator struct {
	kind    Kind
	xs, ys  []float64 // samples of q and of p, as u
	V       Quadratic
	lr, mom float64
	vel     [3]float64
	// est and grad are Ĵ and ∇Ĵ at the current V, evaluated when V last
	// moved (in NewEstimator, then at the end of each Step): the next Step
	// ascends along grad, so that a step costs one evaluation and what is
	// reported between steps is of the V that is shown (issue 28.1).
	est       float64
	grad      [3]float64
	steps     int
	centre, s float64
}

// MaxSamples bounds n and m.
const MaxSamples = 1_000_000

// NewEstimator prepares the ascent from V = 0 on samples xs of q and ys
// of p (both kept), with step size lr and momentum mom.
func NewEstimator(k Kind, xs, ys []float64, lr, mom float64) (*Estimator, error) {
	if !k.valid() {
		return nil, algo.BadParam("divergence", k, fmt.Sprint(Kinds))
	}
	if len(xs) < 2 || len(xs) > MaxSamples {
		return nil, algo.BadParam("n", len(xs), fmt.Sprintf("in 2..%d samples of q", MaxSamples))
	}
	if len(ys) < 2 || len(ys) > MaxSamples {
		return nil, algo.BadParam("m", len(ys), fmt.Sprintf("in 2..%d samples of p", MaxSamples))
	}
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, algo.BadParam("lr", lr, "> 0")
	}
	if !(mom >= 0 && mom < 1) {
		return nil, algo.BadParam("momentum", mom, "in [0, 1)")
	}
	if !algo.AllFinite(xs) || !algo.AllFinite(ys) {
		return nil, algo.BadParam("samples", "not finite", "finite numbers")
	}
	// Standardise by the pooled samples so that (1, u, u²) are of one
	// scale and plain gradient steps work for any pair of laws.
	var sum, sq float64
	for _, s := range [][]float64{xs, ys} {
		for _, x := range s {
			sum += x
		}
	}
	nAll := float64(len(xs) + len(ys))
	centre := sum / nAll
	for _, s := range [][]float64{xs, ys} {
		for _, x := range s {
			sq += (x - centre) * (x - centre)
		}
	}
	scale := math.Sqrt(sq / nAll)
	if !(scale > 0) {
		return nil, algo.BadParam("samples", "all equal", "a spread of values")
	}
	e := &Estimator{kind: k, lr: lr, mom: mom, centre: centre, s: scale,
		V: Quadratic{Centre: centre, Scale: scale}}
	e.xs, e.ys = standardise(xs, centre, scale), standardise(ys, centre, scale)
	e.est, e.grad = e.eval()
	return e, nil
}

func standardise(x []float64, c, s float64) []float64 {
	u := make([]float64, len(x))
	for i, v := range x {
		u[i] = (v - c) / s
	}
	return u
}

// eval returns Ĵ at V and its gradient in (A, B, C).
func (e *Estimator) eval() (float64, [3]float64) {
	var j float64
	var g [3]float64
	for _, set := range []struct {
		u    []float64
		sign float64
	}{{e.xs, 1}, {e.ys, -1}} {
		var val float64
		var gs [3]float64
		for _, u := range set.u {
			v := e.V.A + u*(e.V.B+u*e.V.C)
			a, b, da, db := e.kind.Terms(v)
			t, dt := a, da
			if set.sign < 0 {
				t, dt = b, db
			}
			val += t
			gs[0] += dt
			gs[1] += dt * u
			gs[2] += dt * u * u
		}
		n := float64(len(set.u))
		j += set.sign * val / n
		for i := range g {
			g[i] += set.sign * gs[i] / n
		}
	}
	return j, g
}

// Step is one ascent step: v ← μv + η∇Ĵ(θ), θ ← θ + v, with the
// gradient at θ kept from the last evaluation; then Ĵ and ∇Ĵ at the new
// θ, which Estimate and GradNorm report and the next Step ascends along.
// It returns algo.Diverged when the bound at the new θ stops being
// finite.
func (e *Estimator) Step() error {
	for i := range e.vel {
		e.vel[i] = e.mom*e.vel[i] + e.lr*e.grad[i]
	}
	e.V.A += e.vel[0]
	e.V.B += e.vel[1]
	e.V.C += e.vel[2]
	e.steps++
	e.est, e.grad = e.eval()
	if !algo.Finite(e.est) || !algo.Finite(e.V.A+e.V.B+e.V.C) || !algo.AllFinite(e.grad[:]) {
		return algo.Diverged("the bound is not finite at step %d: lower the step size lr", e.steps)
	}
	return nil
}

// Estimate is Ĵ at the current V (V = 0 before the first Step).
func (e *Estimator) Estimate() float64 { return e.est }

// GradNorm is ‖∇Ĵ‖ at the current V, in its coefficients (A, B, C).
func (e *Estimator) GradNorm() float64 {
	g := e.grad
	return math.Sqrt(g[0]*g[0] + g[1]*g[1] + g[2]*g[2])
}

// Steps is the number of steps taken.
func (e *Estimator) Steps() int { return e.steps }

// Kind is the divergence estimated.
func (e *Estimator) Kind() Kind { return e.kind }

// Standardisation returns the centre and scale of u.
func (e *Estimator) Standardisation() (centre, scale float64) { return e.centre, e.s }
