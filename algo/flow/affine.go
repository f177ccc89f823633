// Package flow holds normalizing flows and the change of variables (seed
// 001 §14, L1343–L1418, catalogue [A25]–[A28]): p = T_# r has density
// p(x) = r(T⁻¹x)·|det ∇T⁻¹(x)| (Theorem 14.2), computed as a sum of logs;
// a 1-D affine flow fitted by maximum likelihood, an increasing
// triangular map inverted by bisection one halving at a time, stacked
// Real-NVP coupling layers trained on the tape of algo/tensor, and
// inverse-CDF sampling (Theorem 14.4).
package flow

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// log2Pi is log 2π.
var log2Pi = math.Log(2 * math.Pi)

// Affine is the 1-D flow T(z) = e^α z + b of r = N(0, 1), fitted to data
// by gradient descent on the negative log-likelihood (L1366)
//
//	NLL(α, b) = (1/n) Σ [½((x_i − b)e^{−α})² + α] + ½ log 2π,
//
// whose minimiser is b = the sample mean, e^α = the population (1/n)
// standard deviation ([A25]'s derived check). The scale is kept positive
// by the exp parameterisation. The steps are natural-gradient steps: the
// gradient divided by the Fisher information diag(2, e^{−2α}) of (α, b),
// so that one step size suits data of any scale.
type Affine struct {
	x        []float64
	Alpha, B float64
	lr       float64
	// nll and (ga, gb) are the NLL and its gradient at the current
	// (α, b), evaluated when they last moved (in NewAffine, then at the
	// end of each Step): the next Step moves along them, so that a step
	// costs one pass over the data and what is reported between steps is
	// of the flow that is drawn (issue 28.1).
	nll, ga, gb float64
	steps       int
}

// NewAffine starts at T = identity (α = 0, b = 0) on data x (kept), with
// step size lr.
func NewAffine(x []float64, lr float64) (*Affine, error) {
	if len(x) < 2 {
		return nil, algo.BadParam("n", len(x), "at least 2 points")
	}
	if !algo.AllFinite(x) {
		return nil, algo.BadParam("data", "not finite", "finite numbers")
	}
	if !(lr > 0 && lr <= 1) {
		return nil, algo.BadParam("lr", lr, "in (0, 1]")
	}
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo == hi {
		return nil, algo.BadParam("data", "all equal", "a spread of values: a flow of zero scale is not invertible")
	}
	a := &Affine{x: x, lr: lr}
	a.nll, a.ga, a.gb = a.eval()
	return a, nil
}

func (a *Affine) eval() (nll, ga, gb float64) {
	e := math.Exp(-a.Alpha)
	for _, x := range a.x {
		r := (x - a.B) * e
		nll += 0.5 * r * r
		ga -= r * r
		gb -= r * e
	}
	n := float64(len(a.x))
	return nll/n + a.Alpha + 0.5*log2Pi, ga/n + 1, gb / n
}

// Step is one natural-gradient step on (α, b), along the gradient at
// (α, b) kept from the last evaluation; then the NLL and its gradient at
// the new (α, b), which NLL and GradNorm report and the next Step follows.
func (a *Affine) Step() error {
	a.B -= a.lr * a.gb * math.Exp(2*a.Alpha)
	a.Alpha -= a.lr * a.ga / 2
	a.steps++
	a.nll, a.ga, a.gb = a.eval()
	if !algo.Finite(a.Alpha) || !algo.Finite(a.B) || !algo.Finite(a.nll) || !algo.Finite(a.ga) || !algo.Finite(a.gb) {
		return algo.Diverged("the affine flow's NLL is not finite at step %d: lower lr", a.steps)
	}
	return nil
}

// NLL is the negative log-likelihood at the current (α, b).
func (a *Affine) NLL() float64 { return a.nll }

// GradNorm is ‖∇NLL‖ in (α, b) at the current (α, b).
func (a *Affine) GradNorm() float64 { return math.Hypot(a.ga, a.gb) }

// Density is p(x) = r((x − b)e^{−α}) e^{−α} (Theorem 14.2).
func (a *Affine) Density(x float64) float64 {
	z := (x - a.B) * math.Exp(-a.Alpha)
	return math.Exp(-0.5*z*z-0.5*log2Pi) * math.Exp(-a.Alpha)
}

// MLE returns the closed-form optimum: the sample mean, the population
// s.d. and the NLL there, ½ log(2πe σ̂²).
func MLE(x []float64) (mean, sd, nll float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(sd / float64(len(x)))
	return mean, sd, 0.5*log2Pi + 0.5 + math.Log(sd)
}

// Steps is the number of steps taken.
func (a *Affine) Steps() int { return a.steps }

func (a *Affine) String() string { return fmt.Sprintf("T(z) = %.4g z + %.4g", math.Exp(a.Alpha), a.B) }
