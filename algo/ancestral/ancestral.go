// Package ancestral samples generative models by ancestral sampling: each
// variable is drawn given its parents in the graphical model, in topological
// order (seed 002 Remark 2.2, L651–653; §3.1, Examples 3.1 and 3.3). One Step
// draws one observation together with its latent variables.
package ancestral

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dp"
	"github.com/thelab/lab/algo/mixture"
)

// GMM draws from a fixed Gaussian mixture in the plane, one point per Step:
// z ~ Categorical(π), then x | z ~ N(μ_z, Σ_z) (Remark 2.2, L651). The remark
// prints the prior as p(z) = ∏_k z_k; it is p(z) = ∏_k π_k^{z_k} (eq 2.8),
// which is what Categorical(π) draws (erratum in the seed-002 catalogue, §4).
type GMM struct {
	comps []mixture.Component
	chol  [][3]float64 // l11, l21, l22 of each Σ_k
	p     []float64    // the weights, for dp.Categorical
	rng   *rand.Rand
	z     int
	x     [2]float64
	n     int
}

// NewGMM validates a mixture (weights ≥ 0 summing to 1 within 1e-9, finite
// means, symmetric positive definite covariances) and prepares to draw.
func NewGMM(comps []mixture.Component, rng *rand.Rand) (*GMM, error) {
	if len(comps) < 1 || len(comps) > mixture.MaxK {
		return nil, algo.BadParam("k", len(comps), fmt.Sprintf("in 1..%d", mixture.MaxK))
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	g := &GMM{comps: append([]mixture.Component(nil), comps...), rng: rng, z: -1,
		chol: make([][3]float64, len(comps)), p: make([]float64, len(comps))}
	total := 0.0
	for k, c := range comps {
		if !(c.Weight >= 0) || math.IsInf(c.Weight, 0) {
			return nil, algo.BadParam("weights", c.Weight, fmt.Sprintf("finite and ≥ 0 (component %d)", k+1))
		}
		total += c.Weight
		g.p[k] = c.Weight
		if !algo.Finite(c.Mean[0]) || !algo.Finite(c.Mean[1]) {
			return nil, algo.BadParam("means", c.Mean, fmt.Sprintf("finite (component %d)", k+1))
		}
		l, ok := chol2(c.Cov)
		if !ok {
			return nil, algo.BadParam("covariances", c.Cov, fmt.Sprintf("symmetric positive definite (component %d)", k+1))
		}
		g.chol[k] = l
	}
	if math.Abs(total-1) > 1e-9 {
		return nil, algo.BadParam("weights", total, "summing to 1")
	}
	return g, nil
}

// chol2 factors a symmetric positive definite 2×2 matrix.
func chol2(c [2][2]float64) ([3]float64, bool) {
	if c[0][1] != c[1][0] || !(c[0][0] > 0) || !algo.Finite(c[0][1]) || !algo.Finite(c[1][1]) {
		return [3]float64{}, false
	}
	l11 := math.Sqrt(c[0][0])
	l21 := c[0][1] / l11
	d := c[1][1] - l21*l21
	if !(d > 0) {
		return [3]float64{}, false
	}
	return [3]float64{l11, l21, math.Sqrt(d)}, true
}

// Step draws the next (z, x). It does not allocate.
func (g *GMM) Step() error {
	g.z = dp.Categorical(g.rng, g.p)
	g.x = gauss2(g.rng, g.comps[g.z].Mean, g.chol[g.z])
	g.n++
	return nil
}

// gauss2 draws N(m, LLᵀ) for the Cholesky factor l = (l11, l21, l22).
func gauss2(rng *rand.Rand, m [2]float64, l [3]float64) [2]float64 {
	e1, e2 := rng.NormFloat64(), rng.NormFloat64()
	return [2]float64{m[0] + l[0]*e1, m[1] + l[1]*e1 + l[2]*e2}
}

// Last returns the last draw; z is −1 before the first.
func (g *GMM) Last() (z int, x [2]float64) { return g.z, g.x }

// N is the number of draws.
func (g *GMM) N() int { return g.n }

// Components returns the mixture (a fresh slice).
func (g *GMM) Components() []mixture.Component {
	return append([]mixture.Component(nil), g.comps...)
}

// HierConfig is the hierarchical GMM of Example 3.1 (seed 002 L927–956) in
// the plane, with isotropic covariances:
//
//	π ~ Dirichlet(α, ..., α),  μ_k ~ N(M0, τ²I),  z_n | π ~ Cat(π),  x_n | z_n, μ ~ N(μ_{z_n}, σ²I).
type HierConfig struct {
	K     int        // number of components, 1..mixture.MaxK (Fig 3.1: 4)
	Alpha float64    // symmetric Dirichlet concentration, > 0
	M0    [2]float64 // mean of the component means
	Tau   float64    // standard deviation of the component means, > 0
	Sigma float64    // within-component standard deviation, > 0
}

// NewHierGMM draws the global latent variables π and μ_1..μ_K of Example 3.1
// and returns a GMM that draws the local ones, (z_n, x_n), one per Step.
func NewHierGMM(cfg HierConfig, rng *rand.Rand) (*GMM, error) {
	if cfg.K < 1 || cfg.K > mixture.MaxK {
		return nil, algo.BadParam("k", cfg.K, fmt.Sprintf("in 1..%d", mixture.MaxK))
	}
	if !(cfg.Alpha > 0) || math.IsInf(cfg.Alpha, 0) {
		return nil, algo.BadParam("alpha", cfg.Alpha, "finite and > 0")
	}
	if !(cfg.Tau > 0) || math.IsInf(cfg.Tau, 0) {
		return nil, algo.BadParam("tau", cfg.Tau, "finite and > 0")
	}
	if !(cfg.Sigma > 0) || math.IsInf(cfg.Sigma, 0) {
		return nil, algo.BadParam("sigma", cfg.Sigma, "finite and > 0")
	}
	if !algo.Finite(cfg.M0[0]) || !algo.Finite(cfg.M0[1]) {
		return nil, algo.BadParam("m0", cfg.M0, "finite")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	pi := make([]float64, cfg.K)
	if cfg.K == 1 {
		pi[0] = 1
	} else {
		alpha := make([]float64, cfg.K)
		for k := range alpha {
			alpha[k] = cfg.Alpha
		}
		dp.Dirichlet(rng, alpha, pi)
	}
	comps := make([]mixture.Component, cfg.K)
	v := cfg.Sigma * cfg.Sigma
	for k := range comps {
		comps[k] = mixture.Component{
			Weight: pi[k],
			Mean:   [2]float64{cfg.M0[0] + cfg.Tau*rng.NormFloat64(), cfg.M0[1] + cfg.Tau*rng.NormFloat64()},
			Cov:    [2][2]float64{{v, 0}, {0, v}},
		}
	}
	return NewGMM(comps, rng) // a Dirichlet draw sums to 1 within 1e-12

}
