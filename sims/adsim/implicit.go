package adsim

import (
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// implicitDemo is one of the implicit sim's four examples.
type implicitDemo string

const (
	demoHeron  implicitDemo = "heron"  // §1.9: unrolled against IFT derivatives
	demoCircle implicitDemo = "circle" // §1.10: the circle, where the IFT fails at y = 0
	demoLU     implicitDemo = "lu"     // §1.11: implicit JVPs and VJPs on one LU
	demoLP     implicitDemo = "lp"     // §1.12: an LP's sensitivity through its KKT system
)

func (d implicitDemo) String() string { return string(d) }

// implicit's parameters.
var (
	imDemo = param.Choice("demo", []implicitDemo{demoHeron, demoCircle, demoLU, demoLP}, demoHeron,
		"heron: √a by x ← ½(x + a/x), dx/da unrolled vs by the IFT (§1.9); circle: dy/dx = −x/y on x² + y² = 1, "+
			"the IFT failing at y = 0 (§1.10); lu: implicit JVPs and VJPs sharing one LU (§1.11); "+
			"lp: dx*/db of a linear program through its KKT system, against re-solving (§1.12)")
	imA      = param.Float("a", 2, "heron: the number a whose root is sought").Range(0, 1e6).OpenMin()
	imX0     = param.Float("x0", 1, "heron: the start x₀ (> 0, and a/x₀² finite: x₀ ≳ √a·1e-154; x₀ < 0 would find −√a)").Range(0, 1e6).OpenMin()
	imPoints = param.Int("points", 10, "circle: steps across the circle, x = 1 − 2k/points on the upper branch, back on the lower").
			Range(2, 400)
	imB1    = param.Float("b1", 4, "lp: the right-hand side b₁ of x₁ + x₂ ≤ b₁ at the start").Range(0.5, 20)
	imB2    = param.Float("b2", 6, "lp: the right-hand side b₂ of x₁ + 3x₂ ≤ b₂").Range(0.5, 20)
	imDelta = param.Float("delta", 0.25, "lp: how far each step moves b₁").Range(-2, 2)
)

// Implicit differentiates through the solution of an equation rather than
// through the steps that found it (seed 000 §1.8): Heron's square root,
// the circle, implicit JVPs and VJPs with one LU, and a linear program's
// sensitivity to its right-hand side.
var Implicit = &sims.Spec{
	Name:   "implicit",
	Title:  "Implicit differentiation: Heron unrolled vs IFT, the circle, JVP/VJP on one LU, LP sensitivity",
	Source: "seed 000 §1.8, §1.8.1–1.8.2 (eqs 1.42–1.53, Theorems 1.1–1.2, Example 1.1)",
	Steps:  20,
	Speed:  1,
	// Heron converges in six steps: the race is replayed.
	Replay: sims.ReplayPause,
	Params: param.List(imDemo, imA, imX0, imPoints, imB1, imB2, imDelta),
	New:    newImplicit,
	Size:   implicitSize,

	Metrics: implicitMetrics,
}

// implicitSize is the demo's: the circle's table holds a lap of rows, two
// a point (about 360 bytes each, with the Frame's copy, in a slice grown
// by appending); the others are small and fixed, Heron's the largest (its
// unrolled graph).
func implicitSize(cfg sims.Config) int64 {
	if imDemo.Get(cfg.Values) == demoCircle {
		return implicitBase + 2*360*int64(imPoints.Get(cfg.Values))
	}
	return implicitBase + 48<<10
}

// implicitBase is what implicit holds whatever its demo: the sim and the
// Frame's charts and texts.
const implicitBase = 16 << 10

func newImplicit(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	switch imDemo.Get(v) {
	case demoCircle:
		return newCircle(imPoints.Get(v)), nil
	case demoLU:
		return newImplicitLU()
	case demoLP:
		return newLPSens(imB1.Get(v), imB2.Get(v), imDelta.Get(v))
	}
	return newHeron(imA.Get(v), imX0.Get(v))
}
