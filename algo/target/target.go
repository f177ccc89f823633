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

	"github.com/thelab/lab/algo"
)

// Target is a probability density on ℝ^Dim.
type Target interface {
	// Name is the preset's name, e.g. "correlated".
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

// Names lists the presets that New knows, in menu order.
var Names = []string{"normal", "mixture", "banana", "correlated"}

// Default parameters of the presets.
const (
	// DefaultRho is the correlation of the "correlated" preset when the
	// caller has no preference.
	DefaultRho = 0.9
	// BananaA and BananaB are the scale and twist of the "banana" preset.
	BananaA = 2.0
	BananaB = 0.5
)

// New returns a preset by name:
//
//	normal      the 1-D standard normal N(0, 1)
//	mixture     ½N((3,3), I) + ½N((−3,−3), I), the 2-D setting of the
//	            notes' Fig 3.7 (see Fig37)
//	banana      the twisted Gaussian of NewBanana with a = 2, b = 0.5
//	correlated  the 2-D Gaussian with unit variances and correlation rho
//
// rho is used by "correlated" only; it must lie in (−1, 1).
func New(name string, rho float64) (Target, error) {
	switch name {
	case "normal":
		return StdNormal(), nil
	case "mixture":
		return Fig37(), nil
	case "banana":
		return NewBanana(BananaA, BananaB)
	case "correlated":
		return NewCorrelated(rho)
	}
	return nil, algo.BadParam("target", name, fmt.Sprintf("one of %v", Names))
}

// Shared constants.
var (
	log2Pi     = math.Log(2 * math.Pi)
	halfLog2Pi = 0.5 * log2Pi
)

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
