package target

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/thelab/lab/algo"
)

// Mixture is a finite mixture of isotropic Gaussians with a shared scale,
//
//	p(x) = Σ_k w_k N(x; μ_k, σ² I),
//
// in any dimension d. With ℓ_k(x) = log w_k − ‖x − μ_k‖²/(2σ²) and the
// responsibilities r_k(x) = exp(ℓ_k − logsumexp ℓ):
//
//	log p(x) = logsumexp_k ℓ_k(x) − (d/2) log(2πσ²),
//	∇ log p(x) = Σ_k r_k(x) (μ_k − x)/σ²,
//	E[x] = Σ_k w_k μ_k =: m,
//	Cov[x] = σ² I + Σ_k w_k (μ_k − m)(μ_k − m)ᵀ   (law of total covariance).
//
// Build it with NewMixture or Fig37.
type Mixture struct {
	d       int
	logw    []float64 // log w_k
	mu      []float64 // K×d, row-major
	sigma   float64
	half    float64 // 1/(2σ²)
	logNorm float64 // −(d/2) log(2πσ²)
}

// NewMixture returns the mixture with the given weights (positive, summing
// to one within 1e-9; they are renormalised), component means (one per
// weight, all of the same dimension ≥ 1, finite) and shared standard
// deviation sigma > 0. The inputs are copied.
func NewMixture(weights []float64, means [][]float64, sigma float64) (*Mixture, error) {
	if len(weights) == 0 {
		return nil, algo.BadParam("weights", weights, "a non-empty list of positive numbers summing to 1")
	}
	sum := 0.0
	for _, w := range weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, algo.BadParam("weights", weights, "a non-empty list of positive numbers summing to 1")
		}
		sum += w
	}
	if math.Abs(sum-1) > 1e-9 {
		return nil, algo.BadParam("weights", weights, "a non-empty list of positive numbers summing to 1")
	}
	if len(means) != len(weights) || len(means[0]) == 0 {
		return nil, algo.BadParam("means", means, fmt.Sprintf("%d non-empty vectors, one per weight", len(weights)))
	}
	d := len(means[0])
	for _, m := range means {
		if len(m) != d || !algo.AllFinite(m) {
			return nil, algo.BadParam("means", means, fmt.Sprintf("%d finite vectors of the same dimension", len(weights)))
		}
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, algo.BadParam("sigma", sigma, "a finite number > 0")
	}
	mx := &Mixture{
		d:       d,
		logw:    make([]float64, len(weights)),
		mu:      make([]float64, 0, len(weights)*d),
		sigma:   sigma,
		half:    1 / (2 * sigma * sigma),
		logNorm: -0.5 * float64(d) * (log2Pi + 2*math.Log(sigma)),
	}
	for k, w := range weights {
		mx.logw[k] = math.Log(w / sum)
		mx.mu = append(mx.mu, means[k]...)
	}
	return mx, nil
}

// Fig37 returns the "mixture" preset, ½N((3, 3), I) + ½N((−3, −3), I): the
// "2D 2-Gaussian mixture" of the notes' Fig 3.7 (seed 002 L1106, L1115),
// whose means and scale the notes do not give; these are the catalogue's
// (seed-002-catalog C4), under which a random walk with step 0.5 stays in
// one mode while step 2.0 visits both. Its mean is 0 and its covariance
// [[10, 9], [9, 10]].
func Fig37() *Mixture {
	m, err := NewMixture([]float64{0.5, 0.5}, [][]float64{{3, 3}, {-3, -3}}, 1)
	if err != nil {
		panic(err) // constant, valid arguments
	}
	return m
}

func (*Mixture) Name() string { return string(KindMixture) }
func (m *Mixture) Dim() int   { return m.d }

// K is the number of components.
func (m *Mixture) K() int { return len(m.logw) }

// component returns ℓ_k(x) = log w_k − ‖x − μ_k‖²/(2σ²).
func (m *Mixture) component(k int, x []float64) float64 {
	mu := m.mu[k*m.d : (k+1)*m.d]
	ss := 0.0
	for i, xi := range x[:m.d] {
		e := xi - mu[i]
		ss += e * e
	}
	return m.logw[k] - ss*m.half
}

// logSumExp returns logsumexp_k ℓ_k(x) in one pass without allocating:
// the running maximum ℓ* and s = Σ_k e^{ℓ_k − ℓ*}, rescaled when ℓ*
// grows, so each component costs one exp (the first none). This is the
// MH step's hot path.
func (m *Mixture) logSumExp(x []float64) float64 {
	hi, s := math.Inf(-1), 0.0
	for k := range m.logw {
		l := m.component(k, x)
		if l <= hi {
			s += math.Exp(l - hi)
			continue
		}
		if k > 0 {
			s *= math.Exp(hi - l) // a new maximum (or NaN, which propagates)
		}
		s++
		hi = l
	}
	if math.IsInf(hi, 0) || math.IsNaN(hi) {
		return hi
	}
	return hi + math.Log(s)
}

func (m *Mixture) LogP(x []float64) float64 { return m.logSumExp(x) + m.logNorm }

// Grad accumulates Σ_k r_k(x)(μ_k − x)/σ² in one pass with a streaming
// log-sum-exp: the running maximum ℓ* of the ℓ_k, s = Σ_k e^{ℓ_k − ℓ*} and
// the gradient numerator scaled by e^{−ℓ*}, both rescaled whenever ℓ*
// grows; then ∇ log p = numerator/s. One exp per component (two when the
// maximum moves), no allocation.
func (m *Mixture) Grad(grad, x []float64) {
	for i := range grad[:m.d] {
		grad[i] = 0
	}
	inv := 1 / (m.sigma * m.sigma)
	hi, s := math.Inf(-1), 0.0
	for k := range m.logw {
		l := m.component(k, x)
		w := 1.0
		switch {
		case k == 0:
			hi = l
		case l > hi:
			scale := math.Exp(hi - l)
			s *= scale
			for i := range grad[:m.d] {
				grad[i] *= scale
			}
			hi = l
		default:
			w = math.Exp(l - hi)
		}
		s += w
		mu := m.mu[k*m.d : (k+1)*m.d]
		for i := range grad[:m.d] {
			grad[i] += w * (mu[i] - x[i]) * inv
		}
	}
	for i := range grad[:m.d] {
		grad[i] /= s
	}
}

func (m *Mixture) Density(x []float64) float64 { return math.Exp(m.LogP(x)) }

func (m *Mixture) Mean() []float64 {
	mean := make([]float64, m.d)
	for k, lw := range m.logw {
		w := math.Exp(lw)
		for i := range mean {
			mean[i] += w * m.mu[k*m.d+i]
		}
	}
	return mean
}

func (m *Mixture) Cov() [][]float64 {
	mean := m.Mean()
	cov := make([][]float64, m.d)
	for i := range cov {
		cov[i] = make([]float64, m.d)
		cov[i][i] = m.sigma * m.sigma
	}
	for k, lw := range m.logw {
		w := math.Exp(lw)
		mu := m.mu[k*m.d : (k+1)*m.d]
		for i := range cov {
			for j := range cov[i] {
				cov[i][j] += w * (mu[i] - mean[i]) * (mu[j] - mean[j])
			}
		}
	}
	return cov
}

// Bounds is the smallest box holding every μ_k ± 4σ.
func (m *Mixture) Bounds() (lo, hi []float64) {
	lo, hi = make([]float64, m.d), make([]float64, m.d)
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
		for k := range m.logw {
			lo[i] = math.Min(lo[i], m.mu[k*m.d+i]-4*m.sigma)
			hi[i] = math.Max(hi[i], m.mu[k*m.d+i]+4*m.sigma)
		}
	}
	return lo, hi
}

// Formula is the density written out, e.g.
// "p = 0.5 N((3,3), I) + 0.5 N((−3,−3), I)".
func (m *Mixture) Formula() string {
	var b strings.Builder
	b.WriteString("p = ")
	for k, lw := range m.logw {
		if k > 0 {
			b.WriteString(" + ")
		}
		fmt.Fprintf(&b, "%.3g N((", math.Exp(lw))
		for i := range m.d {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strings.ReplaceAll(strconv.FormatFloat(m.mu[k*m.d+i], 'g', 4, 64), "-", "−"))
		}
		b.WriteString("), ")
		if m.sigma != 1 {
			fmt.Fprintf(&b, "%g²", m.sigma)
		}
		b.WriteString("I)")
	}
	return b.String()
}

// Draw writes an exact draw into dst: a component k with probability w_k,
// then N(μ_k, σ²I).
func (m *Mixture) Draw(dst []float64, rng *rand.Rand) {
	u := rng.Float64()
	k := len(m.logw) - 1
	for j, lw := range m.logw {
		if u -= math.Exp(lw); u < 0 {
			k = j
			break
		}
	}
	for i := range dst[:m.d] {
		dst[i] = m.mu[k*m.d+i] + m.sigma*rng.NormFloat64()
	}
}

// HasConditional is true for every coordinate: with isotropic components
// the full conditional of x_i is again a mixture of Gaussians,
//
//	p(x_i | x_{−i}) = Σ_k π_k N(x_i; μ_ki, σ²),
//	π_k ∝ w_k Π_{j≠i} N(x_j; μ_kj, σ²),
//
// whose weights π_k are the responsibilities given the other coordinates
// (Bayes' rule on the component label; the N(x_i; ·) factors do not enter).
func (m *Mixture) HasConditional(i int) bool { return i >= 0 && i < m.d }

// condLogWeight is log w_k − Σ_{j≠i} (x_j − μ_kj)²/(2σ²), the unnormalised
// log π_k of the conditional of x_i.
func (m *Mixture) condLogWeight(k, i int, x []float64) float64 {
	mu := m.mu[k*m.d : (k+1)*m.d]
	ss := 0.0
	for j, xj := range x[:m.d] {
		if j != i {
			e := xj - mu[j]
			ss += e * e
		}
	}
	return m.logw[k] - ss/(2*m.sigma*m.sigma)
}

// CondSample draws x_i ~ p(x_i | x_{−i}): a component by its conditional
// weight, then its Gaussian. It does not allocate.
func (m *Mixture) CondSample(i int, x []float64, rng *rand.Rand) float64 {
	hi := math.Inf(-1)
	for k := range m.logw {
		hi = math.Max(hi, m.condLogWeight(k, i, x))
	}
	total := 0.0
	for k := range m.logw {
		total += math.Exp(m.condLogWeight(k, i, x) - hi)
	}
	u := rng.Float64() * total
	k := len(m.logw) - 1
	for j := range m.logw {
		if u -= math.Exp(m.condLogWeight(j, i, x) - hi); u < 0 {
			k = j
			break
		}
	}
	return m.mu[k*m.d+i] + m.sigma*rng.NormFloat64()
}

// CondLogPDF is log p(x_i = v | x_{−i}), by log-sum-exp over components.
func (m *Mixture) CondLogPDF(i int, x []float64, v float64) float64 {
	s2 := m.sigma * m.sigma
	hiW, hi := math.Inf(-1), math.Inf(-1)
	for k := range m.logw {
		w := m.condLogWeight(k, i, x)
		e := v - m.mu[k*m.d+i]
		hiW = math.Max(hiW, w)
		hi = math.Max(hi, w-e*e/(2*s2))
	}
	sw, s := 0.0, 0.0
	for k := range m.logw {
		w := m.condLogWeight(k, i, x)
		e := v - m.mu[k*m.d+i]
		sw += math.Exp(w - hiW)
		s += math.Exp(w - e*e/(2*s2) - hi)
	}
	return hi + math.Log(s) - hiW - math.Log(sw) - 0.5*(log2Pi+math.Log(s2))
}
