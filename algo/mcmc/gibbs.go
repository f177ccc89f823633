package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo/target"
)

// maxStepOut bounds the stepping-out of a slice update to this many widths
// on each side (Neal's m).
const maxStepOut = 50

// Gibbs is Gibbs sampling with a systematic scan (seed 002 §3.2,
// L1108–1155): one Step is one sweep
//
//	z₁ ~ p(z₁ | z₂, ..., z_m),  z₂ ~ p(z₂ | z₁, z₃, ..., z_m),  ...,  z_m ~ p(z_m | z₁, ..., z_{m−1}).
//
// Each coordinate update is Metropolis–Hastings whose proposal is the full
// conditional, π(z'|z) = r(z'_i | z_{−i}) 1{z'_{−i} = z_{−i}} (eq 3.3), and
// whose acceptance probability is identically one (L1145–1151):
//
//	r(z') π(z|z') / (r(z) π(z'|z)) = r(z'_i|z_{−i}) r(z_i|z_{−i}) / (r(z_i|z_{−i}) r(z'_i|z_{−i})) = 1.
//
// The engine computes that ratio at every closed-form update, from the
// joint LogP and the conditional's own density, and keeps the largest
// |log α| seen: it must be zero up to rounding (MaxLogRatio), the catalogue's
// oracle for C5.
//
// Coordinates whose conditional is not a standard law (the banana's x₁,
// the funnel's y, both coordinates of the donut; see target.Conditionals)
// are updated by slice sampling (R. M. Neal, "Slice sampling", Annals of
// Statistics 31(3), 2003, §4: stepping out by the width w, then shrinkage),
// which uses only log p and also leaves the conditional, hence the joint,
// invariant (Remark 3.5, L1155). It never rejects either: every update
// moves. Step does not allocate.
type Gibbs struct {
	p        Density
	cond     target.Conditionals // nil when the target has none
	exact    []bool              // coordinate i has a closed-form conditional
	rng      *rand.Rand
	width    float64
	x        []float64
	logpx    float64
	n        int
	maxRatio float64 // largest |log α| over closed-form updates
	maxTerms float64 // largest sum of the |terms| of such a log α: its rounding scale
	sweepMax float64 // largest |log α| in the last sweep
	checks   int     // closed-form updates checked
	evals    int     // log p evaluations by the slice updates
}

// NewGibbs starts the sampler at x0 (copied). width (finite, > 0) is the
// initial bracket of the slice updates, used only for coordinates without
// a closed-form conditional.
func NewGibbs(p Density, x0 []float64, width float64, rng *rand.Rand) (*Gibbs, error) {
	if err := checkTarget(p); err != nil {
		return nil, err
	}
	if err := checkStep("width", width); err != nil {
		return nil, err
	}
	lp, err := startAt(p, x0, rng)
	if err != nil {
		return nil, err
	}
	g := &Gibbs{p: p, rng: rng, width: width, x: append([]float64(nil), x0...), logpx: lp, exact: make([]bool, p.Dim())}
	if c, ok := p.(target.Conditionals); ok {
		g.cond = c
		for i := range g.exact {
			g.exact[i] = c.HasConditional(i)
		}
	}
	return g, nil
}

// Step makes one sweep over the coordinates, in order.
func (g *Gibbs) Step() error {
	g.sweepMax = 0
	for i := range g.x {
		if g.exact[i] {
			g.drawExact(i)
		} else {
			g.slice(i)
		}
	}
	g.n++
	return nil
}

// drawExact draws x_i from its conditional and records the MH log ratio of
// that move: [log p(z') + log π(z_i|z_{−i})] − [log p(z) + log π(z'_i|z_{−i})].
func (g *Gibbs) drawExact(i int) {
	old := g.x[i]
	v := g.cond.CondSample(i, g.x, g.rng)
	g.x[i] = v
	lpNew := g.p.LogP(g.x)
	lqOld, lqNew := g.cond.CondLogPDF(i, g.x, old), g.cond.CondLogPDF(i, g.x, v)
	logRatio := lpNew + lqOld - g.logpx - lqNew
	g.maxTerms = math.Max(g.maxTerms, math.Abs(lpNew)+math.Abs(lqOld)+math.Abs(g.logpx)+math.Abs(lqNew))
	a := math.Abs(logRatio)
	if math.IsNaN(a) {
		a = math.Inf(1)
	}
	g.maxRatio = math.Max(g.maxRatio, a)
	g.sweepMax = math.Max(g.sweepMax, a)
	g.checks++
	g.logpx = lpNew
}

// logAt is log p with coordinate i set to v (x is restored).
func (g *Gibbs) logAt(i int, v float64) float64 {
	old := g.x[i]
	g.x[i] = v
	lp := g.p.LogP(g.x)
	g.x[i] = old
	g.evals++
	return lp
}

// slice replaces x_i by a slice-sampling update of its conditional: a level
// log y = log p(x) − Exp(1) under the current point, an interval of width w
// placed at random around x_i and stepped out until both ends are below the
// level (at most maxStepOut widths each way), then points drawn uniformly
// in it, shrinking it towards x_i after each one below the level, until
// one is above.
func (g *Gibbs) slice(i int) {
	x0 := g.x[i]
	level := g.logpx - g.rng.ExpFloat64()
	lo := x0 - g.width*g.rng.Float64()
	hi := lo + g.width
	j := int(maxStepOut * g.rng.Float64())
	k := maxStepOut - 1 - j
	for ; j > 0 && g.logAt(i, lo) > level; j-- {
		lo -= g.width
	}
	for ; k > 0 && g.logAt(i, hi) > level; k-- {
		hi += g.width
	}
	for {
		v := lo + (hi-lo)*g.rng.Float64()
		if lp := g.logAt(i, v); lp > level {
			g.x[i], g.logpx = v, lp
			return
		}
		if v < x0 {
			lo = v
		} else {
			hi = v
		}
		if hi-lo < 1e-300 { // cannot happen for a finite log p at x0; stay put
			return
		}
	}
}

func (g *Gibbs) X() []float64                           { return g.x }
func (g *Gibbs) Steps() int                             { return g.n }
func (g *Gibbs) Accepted() int                          { return g.n }
func (g *Gibbs) Proposal() (z []float64, accepted bool) { return g.x, true }

// Exact reports whether coordinate i is drawn from its closed-form
// conditional (otherwise it is slice-sampled).
func (g *Gibbs) Exact(i int) bool { return g.exact[i] }

// MaxLogRatio is the largest |log α| of the Metropolis–Hastings ratio of a
// closed-form conditional update so far, and the number of updates checked.
func (g *Gibbs) MaxLogRatio() (maxAbs float64, checked int) { return g.maxRatio, g.checks }

// LogRatioScale is the largest sum of the absolute values of the four
// log densities a checked log α adds up: the scale against which |log α|
// is rounding and log α = 0 holds exactly. Rounding leaves an ulp or less
// of it, and on the correlated Gaussian, whose conditionals divide by
// 1 − ρ², up to about ε/(1 − ρ²) of it (45 ulps at ρ = 0.99).
func (g *Gibbs) LogRatioScale() float64 { return g.maxTerms }

// SweepLogRatio is the largest |log α| of the closed-form updates of the
// last sweep (0 when it had none).
func (g *Gibbs) SweepLogRatio() float64 { return g.sweepMax }

// SliceEvals is the number of log p evaluations the slice updates made.
func (g *Gibbs) SliceEvals() int { return g.evals }
