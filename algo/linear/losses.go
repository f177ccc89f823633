package linear

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
)

// Loss is a margin loss ℓ(t) of the confidence t = yŷ, y = ±1 (seed 001 §6,
// Definition 6.1 and L560–L586).
type Loss string

// The loss zoo of §6 and its catalogue entry (B7):
//
//	0-1          𝕀[t ≤ 0]                (L562)
//	hinge        (1 − t)⁺                (Definition 6.1)
//	perceptron   max(−t, 0)              (L263, Remark 6.5)
//	logistic     log(1 + e^{−t})         (eq 4.a, natural log)
//	squared      (1 − t)²                (= (y − ŷ)² for y = ±1)
//	exponential  e^{−t}                  (AdaBoost's loss)
const (
	ZeroOne     Loss = "0-1"
	Hinge       Loss = "hinge"
	PerceptronL Loss = "perceptron"
	LogisticL   Loss = "logistic"
	Squared     Loss = "squared"
	Exponential Loss = "exponential"
)

// Losses lists the zoo in display order.
var Losses = []Loss{ZeroOne, Hinge, PerceptronL, LogisticL, Squared, Exponential}

// Value is ℓ(t).
func (l Loss) Value(t float64) float64 {
	switch l {
	case ZeroOne:
		if t <= 0 {
			return 1
		}
		return 0
	case Hinge:
		return math.Max(1-t, 0)
	case PerceptronL:
		return math.Max(-t, 0)
	case LogisticL:
		return stable.Softplus(-t)
	case Squared:
		return (1 - t) * (1 - t)
	case Exponential:
		return math.Exp(-t)
	}
	return math.NaN()
}

// Convex reports whether ℓ is convex (all but the 0-1 loss).
func (l Loss) Convex() bool { return l != ZeroOne }

// Derivatives returns the one-sided derivatives ℓ′(0⁻) and ℓ′(0⁺) (for
// the 0-1 loss, which jumps at 0, both are NaN).
func (l Loss) Derivatives() (left, right float64) { return l.slopes(0) }

// CalibratedByTheorem applies Theorem 6.3 (Bartlett, seed 001 L578–L580):
// a convex ℓ is classification calibrated iff it is differentiable at 0
// with ℓ′(0) < 0. ok is false for the 0-1 loss, which is not convex (it is
// calibrated trivially: its minimiser is the Bayes rule, L568).
func (l Loss) CalibratedByTheorem() (calibrated, ok bool) {
	if !l.Convex() {
		return false, false
	}
	left, right := l.Derivatives()
	return left == right && right < 0, true
}

// ConditionalRisk is C_p(ŷ) = E[ℓ(Yŷ) | X = x] = p ℓ(ŷ) + (1 − p) ℓ(−ŷ) for
// p = Pr[Y = +1 | X = x] (L566–L570).
func (l Loss) ConditionalRisk(p, yhat float64) float64 {
	return p*l.Value(yhat) + (1-p)*l.Value(-yhat)
}

// ClosedFormMinimiser is the minimiser of C_p over ŷ ∈ ℝ (catalogue B7,
// derived; not in the notes), for 0 < p < 1:
//
//	hinge        sgn(2p − 1)   (any ŷ in [−1, 1] at p = ½)
//	perceptron   0
//	logistic     ln(p/(1 − p))
//	squared      2p − 1
//	exponential  ½ ln(p/(1 − p))
//
// The 0-1 loss has no unique minimiser (every ŷ of the sign of 2p − 1); ok
// is false for it.
func (l Loss) ClosedFormMinimiser(p float64) (yhat float64, ok bool) {
	switch l {
	case Hinge:
		switch {
		case p > 0.5:
			return 1, true
		case p < 0.5:
			return -1, true
		}
		return 0, true
	case PerceptronL:
		return 0, true
	case LogisticL:
		return math.Log(p / (1 - p)), true
	case Squared:
		return 2*p - 1, true
	case Exponential:
		return 0.5 * math.Log(p/(1-p)), true
	}
	return math.NaN(), false
}

// slopes returns the one-sided derivatives ℓ′(t⁻), ℓ′(t⁺) at any t (the
// subgradient conventions of L634–L636 are the left ones at the kinks).
func (l Loss) slopes(t float64) (left, right float64) {
	switch l {
	case Hinge:
		switch {
		case t < 1:
			return -1, -1
		case t > 1:
			return 0, 0
		}
		return -1, 0
	case PerceptronL:
		switch {
		case t < 0:
			return -1, -1
		case t > 0:
			return 0, 0
		}
		return -1, 0
	case LogisticL:
		d := -stable.Sigmoid(-t)
		return d, d
	case Squared:
		d := -2 * (1 - t)
		return d, d
	case Exponential:
		d := -math.Exp(-t)
		return d, d
	}
	return math.NaN(), math.NaN()
}

// MinimiserRange bounds the numerical search for the risk minimiser.
const MinimiserRange = 12

// NumericMinimiser minimises C_p(ŷ) over [−MinimiserRange, MinimiserRange]
// numerically, by bisection on the sign of its one-sided derivatives
//
//	C′_p(ŷ±) = p ℓ′(ŷ±) − (1 − p) ℓ′(−ŷ∓),
//
// which for a convex ℓ brackets the minimiser: ŷ is one when C′(ŷ−) ≤ 0 ≤
// C′(ŷ+). It stops at a point that satisfies this, or after the bracket
// shrinks to rounding (precision ~10⁻¹⁵, where a search on C_p itself
// could not beat ~10⁻⁸). For the 0-1 loss it returns NaN.
func (l Loss) NumericMinimiser(p float64) float64 {
	if !l.Convex() {
		return math.NaN()
	}
	a, b := -float64(MinimiserRange), float64(MinimiserRange)
	for k := 0; k < 200; k++ {
		m := (a + b) / 2
		if m == a || m == b {
			return m
		}
		lm, rm := l.slopes(m)
		ln, rn := l.slopes(-m)
		right := p*rm - (1-p)*ln
		left := p*lm - (1-p)*rn
		switch {
		case right < 0:
			a = m
		case left > 0:
			b = m
		default:
			return m
		}
	}
	return (a + b) / 2
}

// Calibration sweeps p = Pr[Y = +1 | x] over a grid and, at each p, finds
// the minimiser ŷ*(p) of every convex loss's conditional risk numerically
// (Definition 6.2, L572–L576): ℓ is classification calibrated when sgn ŷ*(p)
// = sgn(2p − 1), the Bayes rule, for every p ≠ ½. One Step is one p of the
// grid p_k = k/(K + 1), k = 1..K; a last Step sets p to Focus, the value
// the pane dwells on; then Step returns ErrConverged.
type Calibration struct {
	k, grid int
	focus   float64
	p       float64
	argmin  []float64 // per loss in Losses, at p
	agree   []bool    // per loss: sign agreed with the Bayes rule so far
}

// NewCalibration sweeps grid points, then rests at focus ∈ (0, 1).
func NewCalibration(grid int, focus float64) (*Calibration, error) {
	if grid < 1 || grid > 10000 {
		return nil, algo.BadParam("grid", grid, "in 1..10000")
	}
	if !(focus > 0 && focus < 1) {
		return nil, algo.BadParam("p", focus, "in (0, 1)")
	}
	c := &Calibration{grid: grid, focus: focus, p: math.NaN(),
		argmin: make([]float64, len(Losses)), agree: make([]bool, len(Losses))}
	for i := range c.agree {
		c.agree[i] = true
	}
	for i := range c.argmin {
		c.argmin[i] = math.NaN()
	}
	return c, nil
}

// Step moves to the next p and minimises every conditional risk there.
func (c *Calibration) Step() error {
	if c.k > c.grid {
		return algo.ErrConverged
	}
	c.k++
	if c.k <= c.grid {
		c.p = float64(c.k) / float64(c.grid+1)
	} else {
		c.p = c.focus
	}
	bayes := math.Copysign(1, 2*c.p-1)
	for i, l := range Losses {
		c.argmin[i] = l.NumericMinimiser(c.p)
		if l.Convex() && c.p != 0.5 {
			// |ŷ*| below 10⁻⁸ is a zero minimiser: no sign (perceptron).
			if math.Abs(c.argmin[i]) < 1e-8 || math.Copysign(1, c.argmin[i]) != bayes {
				c.agree[i] = false
			}
		}
	}
	return nil
}

// P is the current p (NaN before the first Step); Steps the steps taken.
func (c *Calibration) P() float64 { return c.p }
func (c *Calibration) Steps() int { return c.k }

// Done reports whether the sweep has reached Focus.
func (c *Calibration) Done() bool { return c.k > c.grid }

// Argmin returns ŷ*(p) for loss i of Losses at the current p (NaN for 0-1).
func (c *Calibration) Argmin(i int) float64 { return c.argmin[i] }

// SignsAgree reports whether every minimiser of loss i so far had the sign
// of the Bayes rule: calibration as observed on the grid.
func (c *Calibration) SignsAgree(i int) bool { return c.agree[i] }

// String describes the sweep's position.
func (c *Calibration) String() string {
	return fmt.Sprintf("calibration sweep %d/%d, p = %.3f", c.k, c.grid+1, c.p)
}
