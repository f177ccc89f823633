// Package estimate holds maximum-likelihood estimation (seed 002 §1.4,
// L196–307, and Ex 4.1, L1521–1544): the log-likelihood of i.i.d. data
// (eq 1.9), its closed-form maximisers for four models, the Fisher
// information, and two engines: one that refits as data arrive, and one
// that replicates the whole experiment to show the estimator's sampling
// distribution against its asymptotic normal law
// √n(θ̂ − θ) → N(0, I(θ)⁻¹) (L301).
package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
)

// Kind names a model.
type Kind string

// The models. Their parameters θ are, in order:
//
//	gaussian     y ~ N(μ, σ²)                  θ = (μ, σ²)
//	bernoulli    y ~ Bernoulli(p)              θ = (p)
//	exponential  y ~ Exp(λ), density λe^{−λy}  θ = (λ)
//	regression   y | x ~ N(a x, σ²), x ~ N(0,1)  θ = (a, σ²)   (Ex 1.4, eq 1.10)
const (
	Gaussian    Kind = "gaussian"
	Bernoulli   Kind = "bernoulli"
	Exponential Kind = "exponential"
	Regression  Kind = "regression"
)

// String is the model's name.
func (k Kind) String() string { return string(k) }

// Model is a model with its true parameters.
type Model struct {
	Kind  Kind
	Theta [2]float64
}

// NewModel validates the true parameters of a model: for gaussian μ finite
// and σ² > 0 (theta2); bernoulli p in (0, 1); exponential λ > 0;
// regression a finite and σ² > 0. Unused parameters are ignored.
func NewModel(kind Kind, theta1, theta2 float64) (Model, error) {
	m := Model{Kind: kind, Theta: [2]float64{theta1, theta2}}
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch m.Kind {
	case Gaussian, Regression:
		if !fin(theta1) {
			return Model{}, algo.BadParam("theta1", theta1, "a finite number")
		}
		if !(theta2 > 0) || !fin(theta2) {
			return Model{}, algo.BadParam("theta2", theta2, "a variance σ² > 0")
		}
	case Bernoulli:
		if !(theta1 > 0 && theta1 < 1) {
			return Model{}, algo.BadParam("theta1", theta1, "a probability in (0, 1)")
		}
	case Exponential:
		if !(theta1 > 0) || !fin(theta1) {
			return Model{}, algo.BadParam("theta1", theta1, "a rate λ > 0")
		}
	default:
		return Model{}, algo.BadParam("model", string(kind), fmt.Sprintf("one of %v", []Kind{Gaussian, Bernoulli, Exponential, Regression}))
	}
	return m, nil
}

// NumParams is 2 for gaussian and regression, 1 otherwise.
func (m Model) NumParams() int {
	if m.Kind == Gaussian || m.Kind == Regression {
		return 2
	}
	return 1
}

// ParamNames names the parameters.
func (m Model) ParamNames() []string {
	switch m.Kind {
	case Gaussian:
		return []string{"μ", "σ²"}
	case Bernoulli:
		return []string{"p"}
	case Exponential:
		return []string{"λ"}
	}
	return []string{"a", "σ²"}
}

// Draw returns one observation: the input x (regression only, x ~ N(0, 1);
// 0 otherwise) and the response y.
func (m Model) Draw(rng *rand.Rand) (x, y float64) {
	switch m.Kind {
	case Gaussian:
		return 0, m.Theta[0] + math.Sqrt(m.Theta[1])*rng.NormFloat64()
	case Bernoulli:
		if rng.Float64() < m.Theta[0] {
			return 0, 1
		}
		return 0, 0
	case Exponential:
		return 0, rng.ExpFloat64() / m.Theta[0]
	}
	x = rng.NormFloat64()
	return x, m.Theta[0]*x + math.Sqrt(m.Theta[1])*rng.NormFloat64()
}

// InverseFisher returns the diagonal of I(θ)⁻¹, the per-observation Fisher
// information's inverse at the true θ: the asymptotic variance of
// √n(θ̂_j − θ_j) (L301; catalogue A5 [D]). The information matrices of the
// two-parameter models are diagonal:
//
//	gaussian     I = diag(1/σ², 1/(2σ⁴))          I⁻¹ = (σ², 2σ⁴)
//	bernoulli    I = 1/(p(1 − p))                 I⁻¹ = p(1 − p)
//	exponential  I = 1/λ²                         I⁻¹ = λ²
//	regression   I = diag(E[x²]/σ², 1/(2σ⁴))      I⁻¹ = (σ², 2σ⁴)  (E[x²] = 1)
func (m Model) InverseFisher() [2]float64 {
	switch m.Kind {
	case Gaussian, Regression:
		v := m.Theta[1]
		return [2]float64{v, 2 * v * v}
	case Bernoulli:
		p := m.Theta[0]
		return [2]float64{p * (1 - p)}
	}
	l := m.Theta[0]
	return [2]float64{l * l}
}

// Stats are the sufficient statistics of i.i.d. data, accumulated one
// observation at a time in a numerically stable way (Welford's update for
// the mean and the centred sum of squares).
type Stats struct {
	N             int
	Mean, M2      float64 // of y: x̄ and Σ(y − ȳ)²
	Sxx, Sxy, Syy float64 // regression: Σx², Σxy, Σy²
}

// Add accumulates one observation.
func (s *Stats) Add(x, y float64) {
	s.N++
	d := y - s.Mean
	s.Mean += d / float64(s.N)
	s.M2 += d * (y - s.Mean)
	s.Sxx += x * x
	s.Sxy += x * y
	s.Syy += y * y
}

// MLE returns the maximum-likelihood estimate (closed forms [D] from the
// first-order conditions of eq 1.9):
//
//	gaussian     μ̂ = ȳ, σ̂² = (1/N) Σ (y − ȳ)²           (Ex 4.1, L1531: 1/N, not 1/(N − 1))
//	bernoulli    p̂ = ȳ
//	exponential  λ̂ = 1/ȳ
//	regression   â = Σxy/Σx², σ̂² = (1/N) Σ (y − â x)²    (Ex 1.4: least squares, Remark 1.6)
//
// ok is false while it does not exist: before the first observation, for
// a variance before the second, for Bernoulli while ȳ is 0 or 1 (p̂ on the
// boundary: the log-likelihood is then maximised at 0 or 1 but I(p̂) is
// infinite), for the exponential while ȳ = 0.
func (s *Stats) MLE(k Kind) (theta [2]float64, ok bool) {
	n := float64(s.N)
	switch k {
	case Gaussian:
		return [2]float64{s.Mean, s.M2 / n}, s.N >= 2 && s.M2 > 0
	case Bernoulli:
		return [2]float64{s.Mean}, s.N >= 1 && s.Mean > 0 && s.Mean < 1
	case Exponential:
		return [2]float64{1 / s.Mean}, s.N >= 1 && s.Mean > 0
	}
	if s.N < 2 || !(s.Sxx > 0) {
		return [2]float64{}, false
	}
	a := s.Sxy / s.Sxx
	rss := math.Max(s.Syy-a*s.Sxy, 0) // Σ(y − âx)² = Σy² − âΣxy at â
	return [2]float64{a, rss / n}, rss > 0
}

// LogLik returns the log-likelihood l(θ) = Σ_n log p_θ(y_n) (eq 1.9) from
// the statistics; −Inf where θ is outside the parameter space (or a
// Bernoulli p of 0 or 1 meets data that contradict it).
func (s *Stats) LogLik(k Kind, theta [2]float64) float64 {
	n := float64(s.N)
	switch k {
	case Gaussian:
		v := theta[1]
		if !(v > 0) {
			return math.Inf(-1)
		}
		d := s.Mean - theta[0]
		return -n/2*math.Log(2*math.Pi*v) - (s.M2+n*d*d)/(2*v)
	case Bernoulli:
		p, ones := theta[0], s.Mean*n
		if !(p >= 0 && p <= 1) {
			return math.Inf(-1)
		}
		return stable.XLogY(ones, p) + stable.XLogY(n-ones, 1-p)
	case Exponential:
		l := theta[0]
		if !(l > 0) {
			return math.Inf(-1)
		}
		return n*math.Log(l) - l*s.Mean*n
	}
	v := theta[1]
	if !(v > 0) {
		return math.Inf(-1)
	}
	a := theta[0]
	return -n/2*math.Log(2*math.Pi*v) - (s.Syy-2*a*s.Sxy+a*a*s.Sxx)/(2*v) // eq 1.11
}
