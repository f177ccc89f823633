package privacy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Kind names an additive noise mechanism M(D) = f(D) + noise.
type Kind string

const (
	// Laplace adds Lap(0, b) noise, b = Δ₁/eps: (eps, 0)-DP.
	Laplace Kind = "laplace"
	// Gaussian adds N(0, σ²) noise: (α, αΔ²/(2σ²))-RDP for every α > 1
	// (seed 001 Example 19.5 with Σ = σ²I, catalogue E32).
	Gaussian Kind = "gaussian"
)

func (k Kind) String() string { return string(k) }

// Mechanism is a 1-D additive mechanism on a query of sensitivity Delta
// (|f(D) − f(D′)| ≤ Delta on neighbouring datasets), drawn for two
// neighbours whose query values are 0 (D′) and Delta (D): the worst case.
// Scale is the Laplace b or the Gaussian σ.
type Mechanism struct {
	Kind  Kind
	Delta float64
	Scale float64
}

// NewMechanism validates Δ > 0 and the noise scale > 0.
func NewMechanism(kind Kind, delta, scale float64) (*Mechanism, error) {
	if kind != Laplace && kind != Gaussian {
		return nil, algo.BadParam("kind", kind, "laplace or gaussian")
	}
	if !(delta > 0) || math.IsInf(delta, 0) {
		return nil, algo.BadParam("delta", delta, "finite and > 0")
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, algo.BadParam("scale", scale, "finite and > 0")
	}
	return &Mechanism{Kind: kind, Delta: delta, Scale: scale}, nil
}

// Density is the output density at x of the mechanism on a dataset whose
// query value is mu.
func (m *Mechanism) Density(x, mu float64) float64 {
	if m.Kind == Laplace {
		return math.Exp(-math.Abs(x-mu)/m.Scale) / (2 * m.Scale)
	}
	z := (x - mu) / m.Scale
	return math.Exp(-z*z/2) / (m.Scale * math.Sqrt(2*math.Pi))
}

// LogRatio is log p_D(x)/p_D′(x), the privacy loss at output x, for the
// query values Delta (D) and 0 (D′).
func (m *Mechanism) LogRatio(x float64) float64 {
	if m.Kind == Laplace {
		return (math.Abs(x) - math.Abs(x-m.Delta)) / m.Scale
	}
	return (2*x*m.Delta - m.Delta*m.Delta) / (2 * m.Scale * m.Scale)
}

// Sample draws M(D) for a dataset whose query value is mu.
func (m *Mechanism) Sample(rng *rand.Rand, mu float64) float64 {
	if m.Kind == Laplace {
		// the difference of two exponentials is Laplace
		return mu + m.Scale*(rng.ExpFloat64()-rng.ExpFloat64())
	}
	return mu + m.Scale*rng.NormFloat64()
}

// PureEpsilon is the smallest eps of (eps, 0)-DP: Δ/b for Laplace, +Inf
// for Gaussian (whose privacy loss is unbounded).
func (m *Mechanism) PureEpsilon() float64 {
	if m.Kind == Laplace {
		return m.Delta / m.Scale
	}
	return math.Inf(1)
}

// Renyi is the closed-form Rényi divergence D_α(M(D)‖M(D′)) of order
// α > 1 (Definition 19.3, L1664–L1672):
//
//	Gaussian: αΔ²/(2σ²) (Example 19.5; 0.375 for N(1, 2²) vs N(0, 2²) at α = 3);
//	Laplace:  (1/(α−1)) log[ α/(2α−1) e^{(α−1)Δ/b} + (α−1)/(2α−1) e^{−αΔ/b} ]
//
// (Mironov 2017, Table II), which tends to Δ/b as α → ∞.
func (m *Mechanism) Renyi(alpha float64) float64 {
	if m.Kind == Gaussian {
		return alpha * m.Delta * m.Delta / (2 * m.Scale * m.Scale)
	}
	t := m.Delta / m.Scale
	a := math.Log(alpha/(2*alpha-1)) + (alpha-1)*t
	b := math.Log((alpha-1)/(2*alpha-1)) - alpha*t
	return logAdd(a, b) / (alpha - 1)
}

// KL is the limit α → 1 of Renyi: Δ²/(2σ²), or Δ/b + e^{−Δ/b} − 1.
func (m *Mechanism) KL() float64 {
	if m.Kind == Gaussian {
		return m.Delta * m.Delta / (2 * m.Scale * m.Scale)
	}
	t := m.Delta / m.Scale
	return t + math.Exp(-t) - 1
}

// Power is the best test's true-positive rate at false-positive rate fpr
// for telling M(D) from M(D′) (the Neyman–Pearson threshold test on x):
// the trade-off curve of the hypothesis-test view of DP (L1656–L1660).
// Gaussian: Φ(Φ⁻¹(fpr) + Δ/σ).
func (m *Mechanism) Power(fpr float64) float64 {
	if fpr <= 0 {
		return 0
	}
	if fpr >= 1 {
		return 1
	}
	if m.Kind == Gaussian {
		return normCDF(normQuantile(fpr) + m.Delta/m.Scale)
	}
	// threshold c: reject D′ (say "D") when x > c; fpr = Pr_{D′}[x > c]
	b := m.Scale
	var c float64
	if fpr <= 0.5 {
		c = -b * math.Log(2*fpr)
	} else {
		c = b * math.Log(2*(1-fpr))
	}
	// Pr_D[x > c] with D centred at Δ
	if c >= m.Delta {
		return 0.5 * math.Exp(-(c-m.Delta)/b)
	}
	return 1 - 0.5*math.Exp(-(m.Delta-c)/b)
}

// DPPowerBound is the largest true-positive rate any test of an (eps,
// delta)-DP mechanism can reach at false-positive rate fpr: min{1,
// e^eps·fpr + delta, 1 − e^{−eps}(1 − delta − fpr)}. The notes state one of
// the two inequalities with FPR and TPR swapped (catalogue E30); both hold.
func DPPowerBound(eps, delta, fpr float64) float64 {
	a := math.Exp(eps)*fpr + delta
	b := 1 - math.Exp(-eps)*(1-delta-fpr)
	return math.Min(1, math.Min(a, b))
}

// GaussianDelta is the exact δ(eps) of the Gaussian mechanism with noise
// multiplier μ⁻¹ = σ/Δ (Balle & Wang 2018): Φ(μ/2 − eps/μ) − e^eps Φ(−μ/2 −
// eps/μ), μ = Δ/σ: the smallest δ for which it is (eps, δ)-DP.
func GaussianDelta(mu, eps float64) float64 {
	return normCDF(mu/2-eps/mu) - math.Exp(eps)*normCDF(-mu/2-eps/mu)
}

// RenyiEstimator is a Monte Carlo estimate of D_α(M(D)‖M(D′)) =
// (1/(α−1)) log E_{x∼M(D)} e^{(α−1)L(x)}, L the privacy loss, from draws
// of M(D): a running log-mean-exp, exact to rounding however large the
// exponents.
type RenyiEstimator struct {
	Alpha  float64
	n      int
	logSum float64
}

// NewRenyiEstimator validates α > 1.
func NewRenyiEstimator(alpha float64) (*RenyiEstimator, error) {
	if !(alpha > 1) || math.IsInf(alpha, 0) {
		return nil, algo.BadParam("alpha", alpha, "finite and > 1")
	}
	return &RenyiEstimator{Alpha: alpha, logSum: math.Inf(-1)}, nil
}

// Add takes one draw's privacy loss L(x).
func (r *RenyiEstimator) Add(loss float64) {
	r.n++
	r.logSum = logAdd(r.logSum, (r.Alpha-1)*loss)
}

// Value is the estimate so far (NaN before any draw).
func (r *RenyiEstimator) Value() float64 {
	if r.n == 0 {
		return math.NaN()
	}
	return (r.logSum - math.Log(float64(r.n))) / (r.Alpha - 1)
}

// N is the number of draws.
func (r *RenyiEstimator) N() int { return r.n }

// logAdd is log(e^a + e^b).
func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

func normQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// String describes the mechanism's noise.
func (m *Mechanism) String() string {
	if m.Kind == Laplace {
		return fmt.Sprintf("Laplace b = %.3g", m.Scale)
	}
	return fmt.Sprintf("Gaussian σ = %.3g", m.Scale)
}
