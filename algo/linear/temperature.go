package linear

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
)

// SoftmaxT writes the tempered softmax p_k = exp(z_k/T) / Σ_l exp(z_l/T)
// (seed 001 §4, eq 4.b, L447, with the scores divided by a temperature T)
// into p and returns LSE(z/T) = log Σ_l exp(z_l/T). It goes through
// stable.Softmax, which subtracts the largest score first, so logits of
// 10³ at T = 10⁻³ neither overflow nor lose the small probabilities'
// exponents. p must have len(z); it may not be z.
func SoftmaxT(p, z []float64, temp float64) float64 {
	for i, v := range z {
		p[i] = v / temp
	}
	return stable.Softmax(p, p)
}

// EntropyT is the Shannon entropy H = −Σ p_k log p_k (nats) of
// p = softmax(z/T), from the exact log-probabilities log p_k = z_k/T − lse
// (lse as returned by SoftmaxT): a p_k that underflows to 0 contributes
// 0·(finite) = 0, never 0·(−Inf).
func EntropyT(p, z []float64, temp, lse float64) float64 {
	h := 0.0
	for i, v := range z {
		h -= p[i] * (v/temp - lse)
	}
	return math.Max(h, 0)
}

// SoftmaxLimits returns the two limits of softmax(z/T) as the temperature
// runs to its ends: T → ∞ gives the uniform law 1/c (entropy log c); T → 0
// gives the one-hot vector of the argmax, split evenly between m tied
// maxima (entropy log m, 0 for a unique maximum).
func SoftmaxLimits(z []float64) (hot, cold []float64, ties int) {
	c := len(z)
	hot, cold = make([]float64, c), make([]float64, c)
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
	for i, v := range z {
		hot[i] = 1 / float64(c)
		if v == m {
			ties++
		}
	}
	for i, v := range z {
		if v == m {
			cold[i] = 1 / float64(ties)
		}
	}
	return hot, cold, ties
}

// Temperature sweeps the temperature of a softmax over fixed logits z
// (seed 001 §4, L423–L455: the log-odds, the sigmoid of Definition 4.2
// and the softmax of eq 4.b).
//
// One step moves T one point along a logarithmic grid from TMax down to
// TMin and back (there and back, forever: the pane animates), and
// recomputes p = softmax(z/T), its entropy and LSE(z/T). As T → ∞ the law
// tends to uniform (entropy log c), as T → 0 to the one-hot vector of the
// argmax (entropy 0, or log m with m tied maxima). The entropy is
// non-decreasing in T: with β = 1/T, H = LSE(βz) − β E_p[z], so
// dH/dβ = −β Var_p(z) and dH/dT = Var_p(z)/T³ ≥ 0.
type Temperature struct {
	z      []float64
	grid   []float64 // T values, from TMax down to TMin
	i, dir int
	steps  int
	p      []float64
	lse, h float64
	varZ   float64
}

// The bounds of a sweep: |z_k| ≤ MaxLogit (the sweep is exact far beyond
// it), temperatures up to MaxTemperature, grids of 2..MaxSweepPoints.
const (
	MaxLogit       = 1e4
	MaxTemperature = 1e6
	MaxSweepPoints = 10000
)

// NewTemperature validates c ≥ 2 finite logits with |z_k| ≤ MaxLogit,
// 0 < tMin < tMax ≤ MaxTemperature and a grid of 2..MaxSweepPoints points,
// and sits at tMax.
func NewTemperature(z []float64, tMax, tMin float64, points int) (*Temperature, error) {
	if len(z) < 2 {
		return nil, algo.BadParam("logits", len(z), "at least 2 classes")
	}
	for i, v := range z {
		if !(math.Abs(v) <= MaxLogit) {
			return nil, algo.BadParam("logits", v, fmt.Sprintf("finite, |z| ≤ %g (logit %d)", MaxLogit, i+1))
		}
	}
	if !(tMin > 0) || tMin > MaxTemperature {
		return nil, algo.BadParam("t_min", tMin, fmt.Sprintf("in (0, %g]", MaxTemperature))
	}
	if !(tMax > tMin) || tMax > MaxTemperature {
		return nil, algo.BadParam("t_max", tMax, fmt.Sprintf("in (t_min = %g, %g]", tMin, MaxTemperature))
	}
	if points < 2 || points > MaxSweepPoints {
		return nil, algo.BadParam("points", points, fmt.Sprintf("in 2..%d", MaxSweepPoints))
	}
	e := &Temperature{z: append([]float64(nil), z...), grid: LogGrid(tMax, tMin, points), dir: 1, p: make([]float64, len(z))}
	e.update()
	return e, nil
}

// LogGrid returns n points from a to b, evenly spaced in log.
func LogGrid(a, b float64, n int) []float64 {
	g := make([]float64, n)
	la, lb := math.Log(a), math.Log(b)
	for k := range g {
		g[k] = math.Exp(la + (lb-la)*float64(k)/float64(n-1))
	}
	g[0], g[n-1] = a, b
	return g
}

// Step moves to the next temperature of the there-and-back sweep. It never
// ends.
func (e *Temperature) Step() error {
	if e.i+e.dir < 0 || e.i+e.dir >= len(e.grid) {
		e.dir = -e.dir
	}
	e.i += e.dir
	e.steps++
	e.update()
	return nil
}

func (e *Temperature) update() {
	t := e.T()
	e.lse = SoftmaxT(e.p, e.z, t)
	e.h = EntropyT(e.p, e.z, t, e.lse)
	m, s := 0.0, 0.0
	for i, v := range e.z {
		m += e.p[i] * v
	}
	for i, v := range e.z {
		s += e.p[i] * (v - m) * (v - m)
	}
	e.varZ = s
}

// T is the current temperature; Grid the sweep's temperatures (a view);
// Index the position on it; Steps the steps taken.
func (e *Temperature) T() float64        { return e.grid[e.i] }
func (e *Temperature) Grid() []float64   { return e.grid }
func (e *Temperature) Index() int        { return e.i }
func (e *Temperature) Steps() int        { return e.steps }
func (e *Temperature) Logits() []float64 { return e.z }

// P is softmax(z/T) (a view, valid until the next Step).
func (e *Temperature) P() []float64 { return e.p }

// Entropy is H(p) in nats; LSE is LSE(z/T); VarZ is Var_p(z), so that
// dH/dT = VarZ/T³.
func (e *Temperature) Entropy() float64 { return e.h }
func (e *Temperature) LSE() float64     { return e.lse }
func (e *Temperature) VarZ() float64    { return e.varZ }

// MaxProb is max_k p_k.
func (e *Temperature) MaxProb() float64 {
	m := 0.0
	for _, v := range e.p {
		m = math.Max(m, v)
	}
	return m
}
