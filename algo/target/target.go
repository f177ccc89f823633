// Package target holds the target densities that the lab's samplers draw
// from (seed 002 §3.2: Metropolis–Hastings, Gibbs; later HMC, MALA and
// Langevin dynamics).
//
// Every target here has a closed-form, normalised density and exactly known
// mean and covariance, so that a test can compare a chain's long-run
// averages with the truth and a pane can draw the true density under the
// samples. The samplers themselves must use nothing but LogP (and Grad, for
// the gradient-based ones), and must treat LogP as known only up to an
// additive constant: the notes' point is that MCMC needs the unnormalised
// joint p(x, z) only (Remark 3.2, seed 002 L1086).
//
// Targets are immutable values: their methods are safe for concurrent use,
// and LogP and Grad never allocate.
package target

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Target is a probability density on ℝ^Dim.
type Target interface {
	// Name is the name of its family, its Kind's String, e.g. "correlated".
	Name() string
	// Dim is the dimension of the space.
	Dim() int
	// LogP returns log p(x) for x of length Dim. For the targets of this
	// package it is the normalised log-density, but samplers may rely on it
	// only up to an additive constant. It is −Inf outside the support and
	// never allocates.
	LogP(x []float64) float64
	// Grad writes ∇ log p(x) into grad (length Dim). It never allocates.
	Grad(grad, x []float64)
	// Density returns the normalised density p(x), exactly, for drawing the
	// truth under a histogram of samples.
	Density(x []float64) float64
	// Mean returns the exact mean E[x] (a fresh slice).
	Mean() []float64
	// Cov returns the exact covariance matrix (fresh, Dim×Dim).
	Cov() [][]float64
	// Bounds returns a box [lo, hi] (fresh slices) that holds nearly all of
	// the mass and frames the density well for drawing.
	Bounds() (lo, hi []float64)
}

// Drawer is implemented by targets that can be sampled exactly (every
// preset here): the starting points of dispersed chains and the independent
// draws that Monte Carlo error is measured against.
type Drawer interface {
	// Draw writes an exact, independent draw from the target into dst
	// (length Dim), using only rng. It does not allocate.
	Draw(dst []float64, rng *rand.Rand)
}

// Conditionals is implemented by targets whose full conditionals
// p(x_i | x_{−i}) are, for some coordinates, standard laws that can be drawn
// exactly: what Gibbs sampling needs (seed 002 §3.2, L1108–1155).
type Conditionals interface {
	// HasConditional reports whether coordinate i's full conditional is
	// known in closed form. CondSample and CondLogPDF may be called only
	// for such i.
	HasConditional(i int) bool
	// CondSample draws x_i ~ p(x_i | x_{−i}); the value of x[i] is ignored.
	// It does not allocate.
	CondSample(i int, x []float64, rng *rand.Rand) float64
	// CondLogPDF returns the normalised log density of x_i = v under
	// p(x_i | x_{−i}); x[i] is ignored.
	CondLogPDF(i int, x []float64, v float64) float64
}

// Formula returns the target's density written out as one line, e.g.
// "p(x) = N(x; 0, 1²)", or its name when it has none.
func Formula(t Target) string {
	if f, ok := t.(interface{ Formula() string }); ok {
		return f.Formula()
	}
	return t.Name()
}

// Kind names a preset of New.
type Kind string

// The presets of New.
const (
	KindNormal     Kind = "normal"
	KindMixture    Kind = "mixture"
	KindBanana     Kind = "banana"
	KindCorrelated Kind = "correlated"
	KindDonut      Kind = "donut"
	KindFunnel     Kind = "funnel"
)

// String is the preset's name.
func (k Kind) String() string { return string(k) }

// Dim is the dimension of the preset's states: 1 for the normal, 2 for the
// others (known before New builds it, to size what a sampler keeps).
func (k Kind) Dim() int {
	if k == KindNormal {
		return 1
	}
	return 2
}

// kinds are the presets New knows.
var kinds = []Kind{KindNormal, KindMixture, KindBanana, KindCorrelated, KindDonut, KindFunnel, KindSquiggle}

// Default parameters of the presets.
const (
	// DefaultRho is the correlation of the "correlated" preset when the
	// caller has no preference.
	DefaultRho = 0.9
	// BananaA and BananaB are the scale and twist of the "banana" preset.
	BananaA = 2.0
	BananaB = 0.5
	// DonutR and DonutSigma are the radius and width of the "donut".
	DonutR     = 2.5
	DonutSigma = 0.4
	// FunnelTau is the log-scale standard deviation of the "funnel"
	// (Neal's value).
	FunnelTau = 3.0
)

// New returns a preset:
//
//	KindNormal      the 1-D standard normal N(0, 1)
//	KindMixture     ½N((3,3), I) + ½N((−3,−3), I), the 2-D setting of the
//	                notes' Fig 3.7 (see Fig37)
//	KindBanana      the twisted Gaussian of NewBanana with a = 2, b = 0.5
//	KindCorrelated  the 2-D Gaussian with unit variances and correlation rho
//	KindDonut       the ring of NewDonut with r = 2.5, σ = 0.4
//	KindFunnel      Neal's funnel of NewFunnel with τ = 3
//	KindSquiggle    chi-feng's sine-bent Gaussian of DefaultSquiggle
//
// rho is used by KindCorrelated only; it must lie in (−1, 1).
func New(kind Kind, rho float64) (Target, error) {
	switch kind {
	case KindNormal:
		return StdNormal(), nil
	case KindMixture:
		return Fig37(), nil
	case KindBanana:
		return NewBanana(BananaA, BananaB)
	case KindCorrelated:
		return NewCorrelated(rho)
	case KindDonut:
		return NewDonut(DonutR, DonutSigma)
	case KindFunnel:
		return NewFunnel(FunnelTau)
	case KindSquiggle:
		return DefaultSquiggle(), nil
	}
	return nil, algo.BadParam("kind", string(kind), fmt.Sprintf("one of %v", kinds))
}

// Shared constants.
var (
	log2Pi     = math.Log(2 * math.Pi)
	halfLog2Pi = 0.5 * log2Pi
)
