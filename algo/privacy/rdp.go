package privacy

import (
	"errors"
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
)

// Orders are the Rényi orders α at which an Accountant tracks RDP: those
// of Opacus and TF Privacy (1.1, 1.2, …, 10.9, then 12, 13, …, 63).
var Orders = func() []float64 {
	var a []float64
	for x := 1; x < 100; x++ {
		a = append(a, 1+float64(x)/10)
	}
	for x := 12; x < 64; x++ {
		a = append(a, float64(x))
	}
	return a
}()

// SubsampledGaussianRDP is the RDP ε(α) of one step of the sampled
// Gaussian mechanism (Mironov, Talwar & Zhang 2019): each example enters
// the batch independently with probability q, the batch's clipped sum of
// sensitivity 1 gets N(0, σ²) noise. With A_α = E_{z∼μ₀}[(μ(z)/μ₀(z))^α],
// μ₀ = N(0, σ²), μ = (1 − q)μ₀ + qN(1, σ²), ε(α) = log A_α/(α − 1), where
// for integer α
//
//	A_α = Σ_{k=0}^{α} C(α, k) (1 − q)^{α−k} q^k e^{(k² − k)/(2σ²)}
//
// and for fractional α the two-sided series of their Section 3.3. q = 1
// is the Gaussian mechanism's α/(2σ²) (Example 19.5); q = 0 is 0.
func SubsampledGaussianRDP(q, sigma, alpha float64) float64 {
	switch {
	case q == 0:
		return 0
	case sigma == 0:
		return math.Inf(1)
	case q == 1:
		return alpha / (2 * sigma * sigma)
	}
	if a := math.Round(alpha); a == alpha {
		return logAInt(q, sigma, int(a)) / (alpha - 1)
	}
	return logAFrac(q, sigma, alpha) / (alpha - 1)
}

func logAInt(q, sigma float64, alpha int) float64 {
	s := math.Inf(-1)
	lq, l1q := math.Log(q), math.Log1p(-q)
	for k := 0; k <= alpha; k++ {
		fk := float64(k)
		s = logAdd(s, logBinom(float64(alpha), fk)+fk*lq+(float64(alpha)-fk)*l1q+(fk*fk-fk)/(2*sigma*sigma))
	}
	return s
}

// logAFrac sums A_α for fractional α as two series of terms signed by the
// generalised binomial coefficients, until both fall below e^{−30}.
func logAFrac(q, sigma, alpha float64) float64 {
	a0, a1 := math.Inf(-1), math.Inf(-1) // the positive and the negative parts of each series, netted
	n0, n1 := math.Inf(-1), math.Inf(-1)
	z0 := sigma*sigma*math.Log(1/q-1) + 0.5
	coef := 1.0 // C(α, i), generalised
	for i := 0; ; i++ {
		if i > 0 {
			coef *= (alpha - float64(i-1)) / float64(i)
		}
		fi, j := float64(i), alpha-float64(i)
		lc := math.Log(math.Abs(coef))
		t0 := lc + fi*math.Log(q) + j*math.Log1p(-q)
		t1 := lc + j*math.Log(q) + fi*math.Log1p(-q)
		e0 := math.Log(0.5) + logErfc((fi-z0)/(math.Sqrt2*sigma))
		e1 := math.Log(0.5) + logErfc((z0-j)/(math.Sqrt2*sigma))
		s0 := t0 + (fi*fi-fi)/(2*sigma*sigma) + e0
		s1 := t1 + (j*j-j)/(2*sigma*sigma) + e1
		if coef > 0 {
			a0, a1 = logAdd(a0, s0), logAdd(a1, s1)
		} else {
			n0, n1 = logAdd(n0, s0), logAdd(n1, s1)
		}
		if math.Max(s0, s1) < -30 || i > 10000 {
			break
		}
	}
	return logAdd(logSub(a0, n0), logSub(a1, n1))
}

// logSub is log(e^a − e^b) for a ≥ b.
func logSub(a, b float64) float64 {
	if math.IsInf(b, -1) {
		return a
	}
	if b >= a {
		return math.Inf(-1)
	}
	return a + math.Log(-math.Expm1(b-a))
}

// logErfc is log erfc(x), by the asymptotic series where erfc underflows.
func logErfc(x float64) float64 {
	if e := math.Erfc(x); e > 1e-300 {
		return math.Log(e)
	}
	// erfc(x) ≈ e^{−x²}/(x√π) (1 − 1/(2x²) + 3/(4x⁴))
	return -x*x - math.Log(x) - 0.5*math.Log(math.Pi) + math.Log(1-0.5/(x*x)+0.75/(x*x*x*x))
}

func logBinom(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// Accountant adds up the RDP of a sequence of mechanisms at every order
// of Orders (sequential composition, Proposition 19.4(3), L1680: the
// ε(α) of the steps add) and converts the total to (eps, delta)-DP by
//
//	eps(δ) = min_α ε(α) + log(1/δ)/(α − 1)
//
// (Mironov 2017, Prop. 3), the conversion of Abadi et al.'s moments
// accountant and of TF Privacy's compute_dp_sgd_privacy: one epoch at
// q = 0.004, σ = 1.3, δ = 1e-5 gives eps = 0.711. This exact accountant
// replaces the notes' informal "ε√k-DP" (catalogue E34).
type Accountant struct {
	rdp []float64 // per order of Orders
}

// NewAccountant starts with nothing spent.
func NewAccountant() *Accountant { return &Accountant{rdp: make([]float64, len(Orders))} }

// ComposeSGM adds steps steps of the sampled Gaussian mechanism with
// sampling rate q and noise multiplier sigma (noise σ·C on a clipped sum
// of sensitivity C). It allocates nothing.
func (a *Accountant) ComposeSGM(q, sigma float64, steps int) {
	for i, al := range Orders {
		a.rdp[i] += float64(steps) * SubsampledGaussianRDP(q, sigma, al)
	}
}

// Compose adds one mechanism whose RDP at order α is rdp(α): a Gaussian
// release adds αΔ²/(2σ²) (Mechanism.Renyi).
func (a *Accountant) Compose(rdp func(alpha float64) float64) {
	for i, al := range Orders {
		a.rdp[i] += rdp(al)
	}
}

// RDP is the total ε(α) at Orders[i].
func (a *Accountant) RDP(i int) float64 { return a.rdp[i] }

// Epsilon converts the total to (eps, delta)-DP, 0 < δ < 1, and returns
// the order that attains the minimum. Nothing spent gives eps = 0.
func (a *Accountant) Epsilon(delta float64) (eps, order float64) { return a.Repeated(1, delta) }

// Repeated is Epsilon for k repetitions of everything composed so far
// (k times the RDP at every order), without composing them.
func (a *Accountant) Repeated(k int, delta float64) (eps, order float64) {
	return a.convert(k, delta, MironovEpsilon)
}

// convert is the least ε over the orders of k repetitions of the total by
// the conversion conv, and its order; 0 when nothing is spent (and never
// below 0: Balle's conversion can go under it where little is spent).
func (a *Accountant) convert(k int, delta float64, conv func(alpha, rho, delta float64) float64) (eps, order float64) {
	eps = math.Inf(1)
	spent := false
	for i, al := range Orders {
		r := float64(k) * a.rdp[i]
		if r > 0 {
			spent = true
		}
		if e := conv(al, r, delta); e < eps {
			eps, order = e, al
		}
	}
	if !spent {
		return 0, order
	}
	return max(eps, 0), order
}

// SGMEpsilon is eps(δ) after steps steps of the sampled Gaussian
// mechanism.
func SGMEpsilon(q, sigma float64, steps int, delta float64) float64 {
	a := NewAccountant()
	a.ComposeSGM(q, sigma, 1)
	e, _ := a.Repeated(steps, delta)
	return e
}

// MaxSigma bounds the noise multipliers SigmaFor searches.
const MaxSigma = 1000

// CheckTarget returns nil when steps steps of the sampled Gaussian
// mechanism at rate q with noise multiplier per·sigma stay within the
// privacy target (target, delta) by the accountant m, and otherwise an
// error that says how far they go and what would reach it: the σ needed
// for these steps and the steps this σ allows. per converts the caller's σ
// into the multiplier on the clipped sum (1, or b for DP-SGD's noise on the
// mean).
func CheckTarget(m Method, q, sigma, per float64, steps int, target, delta float64) error {
	if !(target > 0) {
		return algo.BadParam("target", target, "> 0")
	}
	if !(delta > 0 && delta < 1) {
		return algo.BadParam("delta", delta, "in (0, 1)")
	}
	got := SGMEpsilonBy(m, q, per*sigma, steps, delta)
	if got <= target {
		return nil
	}
	need := SigmaFor(m, q, steps, target, delta) / per
	allowed := StepsFor(m, q, per*sigma, target, delta, steps)
	msg := fmt.Sprintf("privacy target ε = %.3g (δ = %.2g) unreachable: σ = %.3g for %d steps at q = %.3g spends ε = %.3g",
		target, delta, sigma, steps, q, got)
	if !math.IsInf(need, 1) {
		msg += fmt.Sprintf("; σ ≥ %.3g would reach it", need)
	}
	if allowed > 0 {
		msg += fmt.Sprintf(", or at most %d steps at this σ", allowed)
	} else {
		msg += " (at this σ even one step spends more)"
	}
	return errors.New(msg)
}

// SigmaFor is the smallest noise multiplier (to 0.1%) whose steps stay
// within (target, delta) by the accountant m, or +Inf beyond MaxSigma.
func SigmaFor(m Method, q float64, steps int, target, delta float64) float64 {
	lo, hi := 0.0, 1.0
	for SGMEpsilonBy(m, q, hi, steps, delta) > target {
		if lo, hi = hi, 2*hi; hi > MaxSigma {
			return math.Inf(1)
		}
	}
	for hi-lo > 1e-3*hi {
		mid := (lo + hi) / 2
		if SGMEpsilonBy(m, q, mid, steps, delta) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// StepsFor is the largest number of steps, below limit, that stay within
// (target, delta) by the accountant m (0 when not even one does).
func StepsFor(m Method, q, sigma, target, delta float64, limit int) int {
	lo, hi := 0, limit // eps(lo) ≤ target < eps(hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if SGMEpsilonBy(m, q, sigma, mid, delta) <= target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
