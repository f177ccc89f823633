package optim

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/floats"
)

// Method names a first-order update rule.
type Method string

// The update rules of a Descent, with t the step size, β the momentum and
// g = ∇f:
//
//	gd        x ← x − t g(x)                        (Definition 8.2, seed 001 L733)
//	momentum  v ← βv − t g(x);  x ← x + v           (Polyak's heavy ball)
//	nesterov  v ← βv − t g(x + βv);  x ← x + v      (Nesterov's look-ahead)
//	adam      m ← β m + (1−β) g;  s ← β₂ s + (1−β₂) g²;
//	          x ← x − t m̂ / (√ŝ + ε), m̂ = m/(1−β^k), ŝ = s/(1−β₂^k)  (Kingma & Ba)
const (
	GD       Method = "gd"
	Momentum Method = "momentum"
	Nesterov Method = "nesterov"
	Adam     Method = "adam"
)

// String is the rule's name.
func (m Method) String() string { return string(m) }

// methods are the rules a Descent knows.
var methods = []Method{GD, Momentum, Nesterov, Adam}

// Adam's second-moment decay and denominator guard.
const (
	adamBeta2 = 0.999
	adamEps   = 1e-8
)

// DescentConfig configures a Descent.
type DescentConfig struct {
	Method Method
	LR     float64 // step size t > 0
	Beta   float64 // momentum (momentum, nesterov) or first-moment decay (adam), in [0, 1)
	// Tol ends the run (ErrConverged) when ‖∇f(x)‖ ≤ Tol.
	Tol float64
	// Blowup ends the run (ErrDiverged) when ‖x‖ exceeds it; default 1e8.
	Blowup float64
}

// Descent minimises an Objective by one of the Methods above, one iteration
// per Step.
type Descent struct {
	f   Objective
	cfg DescentConfig
	k   int
	x   []float64
	v   []float64 // velocity (momentum, nesterov) or first moment (adam)
	s   []float64 // second moment (adam)
	g   []float64 // ∇f at x
	y   []float64 // scratch: look-ahead point (nesterov)
	gy  []float64 // scratch: gradient at y
	fx  float64
}

// NewDescent validates cfg and starts at x0 (which is copied).
func NewDescent(f Objective, x0 []float64, cfg DescentConfig) (*Descent, error) {
	switch cfg.Method {
	case GD, Momentum, Nesterov, Adam:
	default:
		return nil, algo.BadParam("method", cfg.Method, fmt.Sprintf("one of %v", methods))
	}
	if !(cfg.LR > 0) || math.IsInf(cfg.LR, 0) {
		return nil, algo.BadParam("lr", cfg.LR, "a finite number > 0")
	}
	if !(cfg.Beta >= 0 && cfg.Beta < 1) {
		return nil, algo.BadParam("beta", cfg.Beta, "in [0, 1)")
	}
	if !(cfg.Tol >= 0) {
		return nil, algo.BadParam("tol", cfg.Tol, "≥ 0")
	}
	if err := checkStart(x0); err != nil {
		return nil, err
	}
	if cfg.Blowup == 0 {
		cfg.Blowup = 1e8
	}
	n := len(x0)
	d := &Descent{
		f: f, cfg: cfg,
		x: append([]float64(nil), x0...),
		v: make([]float64, n), s: make([]float64, n),
		g: make([]float64, n), y: make([]float64, n), gy: make([]float64, n),
	}
	d.eval()
	return d, nil
}

func (d *Descent) eval() {
	d.fx = d.f.Func(d.x)
	d.f.Grad(d.g, d.x)
}

// Step takes one iteration. It returns ErrConverged once ‖∇f‖ ≤ Tol (before
// moving) and an ErrDiverged error when f, ∇f or x stop being finite or x
// leaves the ball of radius Blowup.
func (d *Descent) Step() error {
	if d.GradNorm() <= d.cfg.Tol {
		return algo.ErrConverged
	}
	t, beta := d.cfg.LR, d.cfg.Beta
	switch d.cfg.Method {
	case GD:
		floats.AddScaled(d.x, -t, d.g)
	case Momentum:
		floats.Scale(beta, d.v)
		floats.AddScaled(d.v, -t, d.g)
		floats.Add(d.x, d.v)
	case Nesterov:
		floats.AddScaledTo(d.y, d.x, beta, d.v)
		d.f.Grad(d.gy, d.y)
		floats.Scale(beta, d.v)
		floats.AddScaled(d.v, -t, d.gy)
		floats.Add(d.x, d.v)
	case Adam:
		k := float64(d.k + 1)
		c1 := 1 - math.Pow(beta, k)
		c2 := 1 - math.Pow(adamBeta2, k)
		for i, gi := range d.g {
			d.v[i] = beta*d.v[i] + (1-beta)*gi
			d.s[i] = adamBeta2*d.s[i] + (1-adamBeta2)*gi*gi
			d.x[i] -= t * (d.v[i] / c1) / (math.Sqrt(d.s[i]/c2) + adamEps)
		}
	}
	d.k++
	d.eval()
	return checkStep(d.fx, d.g, d.x, d.cfg.Blowup, d.k)
}

// Iter is the number of steps taken.
func (d *Descent) Iter() int { return d.k }

// X returns the current iterate (a view: do not modify).
func (d *Descent) X() []float64 { return d.x }

// F returns f at the current iterate.
func (d *Descent) F() float64 { return d.fx }

// GradNorm returns ‖∇f‖₂ at the current iterate.
func (d *Descent) GradNorm() float64 { return floats.Norm(d.g, 2) }

// checkStart validates a starting point x0: non-empty and finite.
func checkStart(x0 []float64) error {
	if len(x0) == 0 || !algo.AllFinite(x0) {
		return algo.BadParam("x0", x0, "a non-empty vector of finite numbers")
	}
	return nil
}

// checkStep is the divergence test after step k of Descent and Newton: an
// ErrDiverged error when f(x) or ∇f(x) is not finite or x has left the
// ball of radius blowup, else nil.
func checkStep(fx float64, g, x []float64, blowup float64, k int) error {
	if math.IsNaN(fx) || math.IsInf(fx, 0) || !algo.AllFinite(g) {
		return algo.Diverged("f(x) = %v at step %d", fx, k)
	}
	return checkBlowup(x, blowup, k)
}

// checkBlowup returns an ErrDiverged error when ‖x‖ > blowup after step k.
func checkBlowup(x []float64, blowup float64, k int) error {
	if nx := floats.Norm(x, 2); nx > blowup {
		return algo.Diverged("‖x‖ = %.3g > %.3g at step %d", nx, blowup, k)
	}
	return nil
}
