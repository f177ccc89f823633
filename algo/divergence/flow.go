package divergence

import (
	"math"

	"github.com/thelab/lab/algo"
)

// Gradient names the σ-derivative a Flow follows.
type Gradient string

const (
	// Exact is the derivative of (1.38): ∂KL/∂σ = 1/σ − (σ0² + (μ − μ0)²)/σ³.
	Exact Gradient = "exact"
	// Notes is (1.40) as printed, (σ² − σ0²)/σ³, which drops (μ − μ0)².
	Notes Gradient = "notes"
)

// String is the gradient's name.
func (g Gradient) String() string { return string(g) }

// FlowConfig configures a Flow: the target p = N(Mu0, Sigma0²), the start
// q = N(Mu, Sigma²), the step sizes and which σ-derivative to follow.
type FlowConfig struct {
	Mu0, Sigma0     float64
	Mu, Sigma       float64
	EtaMu, EtaSigma float64
	Gradient        Gradient
	// Tol ends the run (ErrConverged) once the exact gradient's norm is at
	// most Tol. Must be ≥ 0.
	Tol float64
}

// Flow is the KL gradient flow of Example 1.12 (seed 002 L513–530): gradient
// descent on KL(p‖q) = KL(N(μ0, σ0²) ‖ N(μ, σ²)) (eq 1.38) over the
// parameters (μ, σ) of q, one simultaneous update per Step:
//
//	μ ← μ − η_μ (μ − μ0)/σ²                                (1.41)
//	σ ← σ − η_σ (1/σ − (σ0² + (μ − μ0)²)/σ³)               (1.42), corrected
//
// both evaluated at the old (μ, σ). The notes' (1.40) and (1.42) print the
// σ-derivative as (σ² − σ0²)/σ³: the (μ − μ0)² term is missing (erratum in
// the seed-002 catalogue, §4). With Gradient = Exact the flow follows the
// true gradient and, for small enough steps, KL never increases; with
// Gradient = Notes it follows the printed formula, which has the same fixed
// point (μ0, σ0) but is not a descent direction while μ is far from μ0: it
// shrinks σ towards σ0 when the exact gradient would widen q to cover p, and
// the KL can rise (FlowConfig picks which, so the pane can show both). The
// iterates are written μ, σ here, not μ_n, σ_n as in L523–525, whose index
// clashes with the target's μ0, σ0 (catalogue §4).
//
// A step that would make σ ≤ 0 (the σ-derivative grows like 1/σ³, so a
// large η_σ overshoots) ends the run with ErrDiverged. Step does not
// allocate.
type Flow struct {
	cfg       FlowConfig
	mu, sigma float64
	kl        float64
	k         int
}

// NewFlow validates cfg and starts the flow.
func NewFlow(cfg FlowConfig) (*Flow, error) {
	switch {
	case !algo.Finite(cfg.Mu0):
		return nil, algo.BadParam("mu0", cfg.Mu0, "a finite number")
	case !(cfg.Sigma0 > 0) || math.IsInf(cfg.Sigma0, 0):
		return nil, algo.BadParam("sigma0", cfg.Sigma0, "a finite number > 0")
	case !algo.Finite(cfg.Mu):
		return nil, algo.BadParam("mu", cfg.Mu, "a finite number")
	case !(cfg.Sigma > 0) || math.IsInf(cfg.Sigma, 0):
		return nil, algo.BadParam("sigma", cfg.Sigma, "a finite number > 0")
	case !(cfg.EtaMu > 0) || math.IsInf(cfg.EtaMu, 0):
		return nil, algo.BadParam("eta_mu", cfg.EtaMu, "a finite number > 0")
	case !(cfg.EtaSigma > 0) || math.IsInf(cfg.EtaSigma, 0):
		return nil, algo.BadParam("eta_sigma", cfg.EtaSigma, "a finite number > 0")
	case cfg.Gradient != Exact && cfg.Gradient != Notes:
		return nil, algo.BadParam("gradient", cfg.Gradient, "exact or notes")
	case !(cfg.Tol >= 0) || math.IsInf(cfg.Tol, 0):
		return nil, algo.BadParam("tol", cfg.Tol, "a finite number ≥ 0")
	}
	f := &Flow{cfg: cfg, mu: cfg.Mu, sigma: cfg.Sigma}
	f.kl = KLNormal(cfg.Mu0, cfg.Sigma0, f.mu, f.sigma)
	return f, nil
}

// Step takes one gradient step (see Flow). Before stepping it returns
// ErrConverged once the exact gradient's norm is at most Tol.
func (f *Flow) Step() error {
	c := &f.cfg
	if f.GradNorm() <= c.Tol {
		return algo.ErrConverged
	}
	var dm, ds float64
	if c.Gradient == Notes {
		dm, ds = NotesGrad(c.Mu0, c.Sigma0, f.mu, f.sigma)
	} else {
		dm, ds = KLNormalGrad(c.Mu0, c.Sigma0, f.mu, f.sigma)
	}
	mu, sigma := f.mu-c.EtaMu*dm, f.sigma-c.EtaSigma*ds
	if !(sigma > 0) || !algo.Finite(mu) || math.IsInf(sigma, 0) {
		return algo.Diverged("σ = %.3g after step %d: η_σ = %g is too large for σ = %.3g (the σ-gradient grows like 1/σ³)",
			sigma, f.k+1, c.EtaSigma, f.sigma)
	}
	f.mu, f.sigma = mu, sigma
	f.kl = KLNormal(c.Mu0, c.Sigma0, mu, sigma)
	f.k++
	return nil
}

// Mu and Sigma are the current parameters of q.
func (f *Flow) Mu() float64 { return f.mu }

// Sigma is the current standard deviation of q.
func (f *Flow) Sigma() float64 { return f.sigma }

// KL is KL(p‖q) at the current q (eq 1.38).
func (f *Flow) KL() float64 { return f.kl }

// Iter is the number of steps taken.
func (f *Flow) Iter() int { return f.k }

// Config returns the flow's configuration.
func (f *Flow) Config() FlowConfig { return f.cfg }

// Grad returns the exact gradient of KL at the current q.
func (f *Flow) Grad() (dm, ds float64) {
	return KLNormalGrad(f.cfg.Mu0, f.cfg.Sigma0, f.mu, f.sigma)
}

// GradNorm is the Euclidean norm of the exact gradient.
func (f *Flow) GradNorm() float64 { return math.Hypot(f.Grad()) }
