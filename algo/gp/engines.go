package gp

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
)

// Sequential is GP regression with the observations arriving one per Step
// (seed-003 catalogue G3: "one step: add the next observation"): it
// refits the posterior on the first n of them and predicts at fixed test
// points. Adding an observation never raises the posterior variance
// anywhere (conditioning on more data cannot add uncertainty). It
// converges (ErrConverged) once every observation is in.
type Sequential struct {
	kern  kernel.Kernel
	noise float64
	x     [][]float64 // in arrival order
	y     []float64
	test  [][]float64
	n     int
	post  *Posterior
	mean  []float64
	vari  []float64
}

// NewSequential starts from the prior; x and y (the observations, in the
// order they will arrive) and test are not copied.
func NewSequential(k kernel.Kernel, noise float64, x [][]float64, y []float64, test [][]float64) (*Sequential, error) {
	if len(x) != len(y) {
		return nil, algo.BadParam("data", len(x), fmt.Sprintf("%d inputs for %d targets", len(x), len(y)))
	}
	s := &Sequential{kern: k, noise: noise, x: x, y: y, test: test}
	if err := s.refit(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sequential) refit() error {
	post, err := Fit(s.kern, s.x[:s.n], s.y[:s.n], s.noise)
	if err != nil {
		return err
	}
	s.post = post
	s.mean, s.vari = post.Predict(s.test)
	return nil
}

// Step adds the next observation and refits (O(n³) for the factor, O(n²)
// per test point).
func (s *Sequential) Step() error {
	if s.n == len(s.x) {
		return algo.ErrConverged
	}
	s.n++
	if err := s.refit(); err != nil {
		s.n--
		return err
	}
	return nil
}

// N is the number of observations in.
func (s *Sequential) N() int { return s.n }

// Posterior is the current posterior.
func (s *Sequential) Posterior() *Posterior { return s.post }

// Mean and Variance are the latent posterior mean and variance at the test
// points (views, replaced at each Step and never modified).
func (s *Sequential) Mean() []float64     { return s.mean }
func (s *Sequential) Variance() []float64 { return s.vari }

// Fitter learns the squared-exponential hyperparameters by gradient ascent
// on the log marginal likelihood in log-parameters θ (seed 002 Algorithm 2,
// L1953–1981: "repeat: build K_θ, evaluate ℓ, compute ∇_θ ℓ, gradient
// step"). One Step is one accepted step θ ← θ + t∇ log p: a trial step that
// does not raise log p is halved until it does (backtracking), so log p
// never falls; after an accepted step t grows by half again. The run
// converges when ‖∇ log p‖∞ ≤ Tol, or when no step of size ≥ 1e-12 helps.
// Every θ stays in [−MaxLog, MaxLog]³.
type Fitter struct {
	x   [][]float64
	y   []float64
	tol float64
	t   float64
	ev  Evidence
	k   int
}

// MaxLog bounds each log-parameter: e^±15 spans the scales any sane data
// can support, and keeps the factorisations finite.
const MaxLog = 15

// NewFitter starts gradient ascent from h with initial step t0 > 0 and
// gradient tolerance tol ≥ 0.
func NewFitter(x [][]float64, y []float64, h Hyper, t0, tol float64) (*Fitter, error) {
	if len(x) == 0 {
		return nil, algo.BadParam("data", 0, "at least one observation")
	}
	if !(t0 > 0) || math.IsInf(t0, 0) {
		return nil, algo.BadParam("lr", t0, "a finite number > 0")
	}
	if !(tol >= 0) {
		return nil, algo.BadParam("tol", tol, "≥ 0")
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if h.Noise == 0 {
		return nil, algo.BadParam("noise", 0.0, "> 0 to learn it in log-space")
	}
	ev, err := LogMarginalSE(x, y, h)
	if err != nil {
		return nil, err
	}
	return &Fitter{x: x, y: y, tol: tol, t: t0, ev: ev}, nil
}

// Step takes one accepted gradient-ascent step (see Fitter).
func (f *Fitter) Step() error {
	if f.GradNorm() <= f.tol {
		return algo.ErrConverged
	}
	theta := f.ev.Hyper.LogParams()
	for f.t >= 1e-12 {
		var trial [3]float64
		for i := range trial {
			trial[i] = math.Max(-MaxLog, math.Min(MaxLog, theta[i]+f.t*f.ev.Grad[i]))
		}
		ev, err := LogMarginalSE(f.x, f.y, FromLog(trial))
		if err == nil && ev.LogML > f.ev.LogML {
			f.ev = ev
			f.t *= 1.5
			f.k++
			return nil
		}
		f.t /= 2
	}
	return algo.ErrConverged
}

// Evidence is the current log marginal likelihood, its terms and gradient.
func (f *Fitter) Evidence() Evidence { return f.ev }

// GradNorm is ‖∇_θ log p‖∞.
func (f *Fitter) GradNorm() float64 {
	g := 0.0
	for _, v := range f.ev.Grad {
		g = math.Max(g, math.Abs(v))
	}
	return g
}

// StepSize is the trial step t of the next Step.
func (f *Fitter) StepSize() float64 { return f.t }

// Iter is the number of accepted steps.
func (f *Fitter) Iter() int { return f.k }
