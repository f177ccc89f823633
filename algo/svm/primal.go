package svm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Method names how a Primal picks its subgradient.
type Method string

const (
	// Subgradient uses the full subgradient over all points (seed 001 §8,
	// L771).
	Subgradient Method = "subgradient"
	// SGD uses one uniformly drawn point, scaled by N so that its
	// expectation is the full subgradient (seed 001 L895–903).
	SGD Method = "sgd"
)

// String is the method's name.
func (m Method) String() string { return string(m) }

// Rule names a step-size schedule t_k (k = 1, 2, …).
type Rule string

const (
	// InvK is t_k = t0/k, the notes' "stochastic convex" row (seed 001
	// L911); with t0 = 1 it is the 1/(μk) rule for the μ = 1 strongly
	// convex ½‖w‖² term (Pegasos).
	InvK Rule = "1/k"
	// InvSqrtK is t_k = t0/√k, the classic subgradient rule.
	InvSqrtK Rule = "1/sqrt(k)"
	// Const is a fixed t_k = t0 (seed 001 L771): it does not converge on a
	// non-smooth objective, only hovers near the optimum.
	Const Rule = "const"
)

// String is the rule's name.
func (r Rule) String() string { return string(r) }

// PrimalConfig configures a Primal.
type PrimalConfig struct {
	C      float64 // error penalty, > 0
	Method Method
	Rule   Rule
	T0     float64 // step scale t0 > 0
}

// Primal minimises the linear soft-margin SVM's primal objective (seed 001
// eq 6.a, L552)
//
//	P(w, b) = ½‖w‖² + C Σ_i (1 − y_i(⟨w, x_i⟩ + b))⁺
//
// by subgradient steps (seed 001 L626–636 and L771, with the hinge's
// subgradient ℓ′(t) = −1 for t ≤ 1, else 0; the bias is not regularised):
//
//	w ← w − t_k [w − C Σ_{i: y_iŷ_i ≤ 1} y_i x_i],  b ← b + t_k C Σ_{i: y_iŷ_i ≤ 1} y_i
//
// (the notes' L626 prints ŷ_i = ⟨x_i, w, x_i, w⟩ + b and L767 ℓ(1 − yŷ):
// erratum E6 of the seed-001 catalogue; here ŷ_i = ⟨x_i, w⟩ + b and the loss
// is ℓ(yŷ)). SGD replaces the sum by N times one uniformly drawn term. The
// objective is not smooth, so the rates of Theorem 8.5 do not apply and it
// need not fall at every step: the engine keeps the best iterate (seed 001
// [A9]), whose objective approaches the dual optimum of the same C (strong
// duality) with diminishing steps. One Step is one update; it returns nil
// until the iterate stops being finite.
type Primal struct {
	x    [][]float64
	y    []float64
	cfg  PrimalConfig
	rng  *rand.Rand
	w    []float64
	gw   []float64
	b    float64
	k    int
	obj  float64
	best float64
	bw   []float64
	bb   float64
}

// NewPrimal starts at w = 0, b = 0 on points x (n×d, not copied) with labels
// y ∈ {−1, +1}; rng is used by SGD.
func NewPrimal(x [][]float64, y []float64, cfg PrimalConfig, rng *rand.Rand) (*Primal, error) {
	if len(x) < 2 || len(x) != len(y) {
		return nil, algo.BadParam("data", len(x), "at least 2 points, one label each")
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return nil, algo.BadParam("labels", fmt.Sprintf("y[%d] = %v", i, v), "each −1 or +1")
		}
	}
	if !(cfg.C > 0) || math.IsInf(cfg.C, 0) {
		return nil, algo.BadParam("C", cfg.C, "a finite number > 0")
	}
	if cfg.Method != Subgradient && cfg.Method != SGD {
		return nil, algo.BadParam("method", cfg.Method, fmt.Sprintf("one of %v", []Method{Subgradient, SGD}))
	}
	if cfg.Method == SGD && rng == nil {
		return nil, algo.BadParam("method", cfg.Method, "subgradient, or sgd with a random source")
	}
	switch cfg.Rule {
	case InvK, InvSqrtK, Const:
	default:
		return nil, algo.BadParam("step", cfg.Rule, fmt.Sprintf("one of %v", []Rule{InvK, InvSqrtK, Const}))
	}
	if !(cfg.T0 > 0) || math.IsInf(cfg.T0, 0) {
		return nil, algo.BadParam("t0", cfg.T0, "a finite number > 0")
	}
	d := len(x[0])
	p := &Primal{x: x, y: y, cfg: cfg, rng: rng, w: make([]float64, d), gw: make([]float64, d), bw: make([]float64, d)}
	p.obj = p.Objective(p.w, p.b)
	p.best = p.obj
	return p, nil
}

// Objective returns P(w, b).
func (p *Primal) Objective(w []float64, b float64) float64 {
	h := 0.0
	for i, x := range p.x {
		h += math.Max(0, 1-p.y[i]*(dotp(w, x)+b))
	}
	return 0.5*dotp(w, w) + p.cfg.C*h
}

func dotp(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// StepSize returns t_k for step k ≥ 1.
func (p *Primal) StepSize(k int) float64 {
	switch p.cfg.Rule {
	case InvK:
		return p.cfg.T0 / float64(k)
	case InvSqrtK:
		return p.cfg.T0 / math.Sqrt(float64(k))
	}
	return p.cfg.T0
}

// Step takes one subgradient step.
func (p *Primal) Step() error {
	t := p.StepSize(p.k + 1)
	copy(p.gw, p.w)
	gb := 0.0
	add := func(i int, scale float64) {
		if p.y[i]*(dotp(p.w, p.x[i])+p.b) <= 1 { // ℓ′_hinge = −1
			for j, v := range p.x[i] {
				p.gw[j] -= scale * p.y[i] * v
			}
			gb -= scale * p.y[i]
		}
	}
	if p.cfg.Method == SGD {
		add(p.rng.IntN(len(p.x)), p.cfg.C*float64(len(p.x)))
	} else {
		for i := range p.x {
			add(i, p.cfg.C)
		}
	}
	for j := range p.w {
		p.w[j] -= t * p.gw[j]
	}
	p.b -= t * gb
	p.k++
	p.obj = p.Objective(p.w, p.b)
	if math.IsNaN(p.obj) || math.IsInf(p.obj, 0) {
		return algo.Diverged("objective %v at step %d", p.obj, p.k)
	}
	if p.obj < p.best {
		p.best = p.obj
		copy(p.bw, p.w)
		p.bb = p.b
	}
	return nil
}

// Iter is the number of steps taken.
func (p *Primal) Iter() int { return p.k }

// W returns the current weights (a view) and bias.
func (p *Primal) W() ([]float64, float64) { return p.w, p.b }

// Obj returns P at the current iterate.
func (p *Primal) Obj() float64 { return p.obj }

// Best returns the best objective so far and its iterate (a view).
func (p *Primal) Best() (obj float64, w []float64, b float64) { return p.best, p.bw, p.bb }
