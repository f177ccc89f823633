// Package opt updates a model's parameters (tensor.Tensor leaves) from
// their gradients: SGD, momentum, Nesterov, RMSProp, Adam and AdamW, with
// learning-rate schedules (constant, step, cosine, each with an optional
// linear warmup) and clipping by the global gradient norm. A Step
// allocates nothing.
package opt

import (
	"fmt"
	"math"
	"slices"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// Method names an update rule.
type Method string

// The update rules, with η_t the scheduled rate, g the gradient, and (for
// every method) decoupled weight decay θ ← θ − η_t λ θ when λ > 0:
//
//	sgd       θ ← θ − η_t g
//	momentum  v ← μ v − η_t g;  θ ← θ + v                      (Polyak's heavy ball, as algo/optim)
//	nesterov  v ← μ v − η_t g;  θ ← θ + μ v − η_t g            (Sutskever et al. 2013: Nesterov's
//	          look-ahead step rewritten in the shifted variable θ + μv, so one gradient per step suffices)
//	rmsprop   s ← ρ s + (1−ρ) g²;  θ ← θ − η_t g / (√s + ε)     (Tieleman & Hinton 2012; ρ = Beta2)
//	adam      m ← β₁ m + (1−β₁) g;  s ← β₂ s + (1−β₂) g²;
//	          θ ← θ − η_t m̂ / (√ŝ + ε),  m̂ = m/(1−β₁ᵗ), ŝ = s/(1−β₂ᵗ)   (Kingma & Ba 2015; seed 002 Remark 6.3)
//	adamw     adam with decoupled decay, λ = 0.01 unless set    (Loshchilov & Hutter 2019)
//
// With decoupled decay, sgd is the same as adding (λ/2)‖θ‖² to the loss
// (seed 002 Remark 6.4's weight decay); for adam it is not, which is
// AdamW's point.
const (
	SGD      Method = "sgd"
	Momentum Method = "momentum"
	Nesterov Method = "nesterov"
	RMSProp  Method = "rmsprop"
	Adam     Method = "adam"
	AdamW    Method = "adamw"
)

// methods are the rules New accepts (a menu of them, and its order, is
// the sims').
var methods = []Method{SGD, Momentum, Nesterov, RMSProp, Adam, AdamW}

func (m Method) String() string { return string(m) }

// Moments is the number of vectors of state the rule keeps, each the size
// of the parameters (New allocates them): a velocity or first moment for
// all but sgd, and a second moment for rmsprop, adam and adamw ("" is
// adam).
func (m Method) Moments() int {
	switch m {
	case SGD:
		return 0
	case Momentum, Nesterov:
		return 1
	}
	return 2
}

// Config configures an optimiser. Zero values take the defaults.
type Config struct {
	Method      Method  // default adam
	LR          float64 // base rate η₀ > 0
	Momentum    float64 // μ of momentum and nesterov, in [0, 1); default 0.9
	Beta1       float64 // adam's first-moment decay, in [0, 1); default 0.9
	Beta2       float64 // second-moment decay (adam, rmsprop), in [0, 1); default 0.999 (rmsprop 0.9)
	Eps         float64 // denominator guard > 0; default 1e-8
	WeightDecay float64 // decoupled decay λ ≥ 0; adamw defaults to 0.01
	// ClipNorm > 0 rescales the gradients so that their global norm
	// ‖(g_1, …, g_P)‖ is at most ClipNorm before the update.
	ClipNorm float64
	Schedule Schedule
}

// Optimizer holds the parameters it updates and their state.
type Optimizer struct {
	cfg    Config
	params []*tensor.Tensor
	m, s   [][]float64 // first moment or velocity; second moment
	t      int
	rate   float64
	norm   float64
}

// New validates cfg and prepares the state for params (every one needs a
// Grad).
func New(params []*tensor.Tensor, cfg Config) (*Optimizer, error) {
	if cfg.Method == "" {
		cfg.Method = Adam
	}
	if !slices.Contains(methods, cfg.Method) {
		return nil, algo.BadParam("optimizer", cfg.Method, fmt.Sprintf("one of %v", methods))
	}
	if !(cfg.LR > 0) || math.IsInf(cfg.LR, 0) {
		return nil, algo.BadParam("lr", cfg.LR, "a finite number > 0")
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&cfg.Momentum, 0.9)
	def(&cfg.Beta1, 0.9)
	if cfg.Method == RMSProp {
		def(&cfg.Beta2, 0.9)
	}
	def(&cfg.Beta2, 0.999)
	def(&cfg.Eps, 1e-8)
	if cfg.Method == AdamW {
		def(&cfg.WeightDecay, 0.01)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"momentum", cfg.Momentum}, {"beta1", cfg.Beta1}, {"beta2", cfg.Beta2}} {
		if !(c.v >= 0 && c.v < 1) {
			return nil, algo.BadParam(c.name, c.v, "in [0, 1)")
		}
	}
	if !(cfg.Eps > 0) || math.IsInf(cfg.Eps, 0) {
		return nil, algo.BadParam("eps", cfg.Eps, "a finite number > 0")
	}
	if !(cfg.WeightDecay >= 0) || math.IsInf(cfg.WeightDecay, 0) {
		return nil, algo.BadParam("weight_decay", cfg.WeightDecay, "a finite number ≥ 0")
	}
	if !(cfg.ClipNorm >= 0) || math.IsInf(cfg.ClipNorm, 0) {
		return nil, algo.BadParam("clip", cfg.ClipNorm, "a finite number ≥ 0 (0: no clipping)")
	}
	if err := cfg.Schedule.validate(); err != nil {
		return nil, err
	}
	if len(params) == 0 {
		return nil, algo.BadParam("params", 0, "at least one tensor")
	}
	o := &Optimizer{cfg: cfg, params: slices.Clone(params), m: make([][]float64, len(params)), s: make([][]float64, len(params))}
	for i, p := range params {
		if p == nil || p.Grad == nil {
			return nil, algo.BadParam("params", fmt.Sprintf("entry %d", i), "tensors with gradients (tensor.New)")
		}
		if cfg.Method.Moments() >= 1 {
			o.m[i] = make([]float64, p.Size())
		}
		if cfg.Method.Moments() == 2 {
			o.s[i] = make([]float64, p.Size())
		}
	}
	return o, nil
}

// Steps is the number of updates taken.
func (o *Optimizer) Steps() int { return o.t }

// Rate is the rate η_t of the last update.
func (o *Optimizer) Rate() float64 { return o.rate }

// GradNorm is the global gradient norm seen by the last update, before
// clipping.
func (o *Optimizer) GradNorm() float64 { return o.norm }

// Reset forgets the moments and the step count (the parameters keep their
// values).
func (o *Optimizer) Reset() {
	for i := range o.params {
		clear(o.m[i])
		clear(o.s[i])
	}
	o.t = 0
}

// Step updates every parameter from its Grad. It returns an ErrDiverged
// error, after the update, if a parameter or the gradient norm is no
// longer finite.
//
//go:norace
func (o *Optimizer) Step() error {
	c := &o.cfg
	eta := c.Schedule.Rate(c.LR, o.t)
	o.rate = eta
	o.t++
	sq := 0.0
	for _, p := range o.params {
		for _, g := range p.Grad {
			sq += g * g
		}
	}
	o.norm = math.Sqrt(sq)
	if !algo.Finite(o.norm) {
		return algo.Diverged("gradient norm %g at step %d", o.norm, o.t)
	}
	scale := 1.0
	if c.ClipNorm > 0 && o.norm > c.ClipNorm {
		scale = c.ClipNorm / o.norm
	}
	decay := 1 - eta*c.WeightDecay
	t := float64(o.t)
	c1, c2 := 1-math.Pow(c.Beta1, t), 1-math.Pow(c.Beta2, t)
	mu, b1, b2, eps := c.Momentum, c.Beta1, c.Beta2, c.Eps
	for i, p := range o.params {
		th, m, s := p.Data, o.m[i], o.s[i]
		if decay != 1 {
			for j := range th {
				th[j] *= decay
			}
		}
		switch c.Method {
		case SGD:
			for j, g := range p.Grad {
				th[j] -= eta * scale * g
			}
		case Momentum:
			for j, g := range p.Grad {
				m[j] = mu*m[j] - eta*scale*g
				th[j] += m[j]
			}
		case Nesterov:
			for j, g := range p.Grad {
				m[j] = mu*m[j] - eta*scale*g
				th[j] += mu*m[j] - eta*scale*g
			}
		case RMSProp:
			for j, g := range p.Grad {
				g *= scale
				s[j] = b2*s[j] + (1-b2)*g*g
				th[j] -= eta * g / (math.Sqrt(s[j]) + eps)
			}
		case Adam, AdamW:
			for j, g := range p.Grad {
				g *= scale
				m[j] = b1*m[j] + (1-b1)*g
				s[j] = b2*s[j] + (1-b2)*g*g
				th[j] -= eta * (m[j] / c1) / (math.Sqrt(s[j]/c2) + eps)
			}
		}
		if !algo.AllFinite(th) {
			return algo.Diverged("parameter %d is no longer finite at step %d", i, o.t)
		}
	}
	return nil
}
