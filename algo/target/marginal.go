package target

import (
	"math"
)

// Marginals is implemented by targets whose one-dimensional marginal laws
// are known, in closed form or as a one-dimensional integral of closed
// forms: the exact quantiles that a sampler's quantiles are checked
// against (a chain that has not reached a region shows it there, whatever
// its R̂ says). Every preset implements it.
type Marginals interface {
	// MarginalCDF returns P(x_i ≤ v) under the target, to about 1e-7
	// (the donut's to 5e-6: see Donut.MarginalCDF).
	MarginalCDF(i int, v float64) float64
}

// Quantile returns the p-quantile (0 < p < 1) of coordinate i's marginal,
// by bisection on MarginalCDF to 1e-7 of the Bounds' width; false when the
// target does not implement Marginals.
func Quantile(t Target, i int, p float64) (float64, bool) {
	m, ok := t.(Marginals)
	if !ok || !(p > 0 && p < 1) {
		return math.NaN(), false
	}
	blo, bhi := t.Bounds()
	w := bhi[i] - blo[i]
	lo, hi := blo[i], bhi[i]
	for m.MarginalCDF(i, lo) > p {
		lo -= w
	}
	for m.MarginalCDF(i, hi) < p {
		hi += w
	}
	for hi-lo > 1e-7*w {
		mid := (lo + hi) / 2
		if m.MarginalCDF(i, mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, true
}

// phi is the standard normal CDF.
func phi(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// simpson integrates f over [a, b] by Simpson's rule on n (even) intervals.
func simpson(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for k := 1; k < n; k++ {
		s += float64(2+2*(k%2)) * f(a+float64(k)*h)
	}
	return s * h / 3
}

// expectNormal is E[f(U)] for U ~ N(0, 1), over |U| ≤ 10 (the rest weighs
// 2·10⁻²³), by Simpson's rule: f is bounded (a probability) and smooth in
// the uses below, so 2000 intervals leave an error below 1e-9.
func expectNormal(f func(u float64) float64) float64 {
	return simpson(func(u float64) float64 { return math.Exp(-u*u/2) / math.Sqrt(2*math.Pi) * f(u) }, -10, 10, 2000)
}

// MarginalCDF of N(μ, σ²).
func (n Normal) MarginalCDF(_ int, v float64) float64 { return phi((v - n.mu) / n.sigma) }

// MarginalCDF of either coordinate: both are N(0, 1).
func (Correlated) MarginalCDF(_ int, v float64) float64 { return phi(v) }

// MarginalCDF of coordinate i: Σ_k w_k Φ((v − μ_{k,i})/σ).
func (m *Mixture) MarginalCDF(i int, v float64) float64 {
	s := 0.0
	for k, lw := range m.logw {
		s += math.Exp(lw) * phi((v-m.mu[k*m.d+i])/m.sigma)
	}
	return s
}

// MarginalCDF: x₁ ~ N(0, a²); x₂ = b(x₁² − a²) + ε, so
// P(x₂ ≤ v) = E_u[Φ(v − b a²(u² − 1))], u ~ N(0, 1).
func (bn Banana) MarginalCDF(i int, v float64) float64 {
	if i == 0 {
		return phi(v / bn.a)
	}
	return expectNormal(func(u float64) float64 { return phi(v - bn.b*bn.a*bn.a*(u*u-1)) })
}

// MarginalCDF: y ~ N(0, τ²) and x | y ~ N(0, e^y), so
// P(x ≤ v) = E_u[Φ(v e^{−τu/2})], u ~ N(0, 1).
func (f Funnel) MarginalCDF(i int, v float64) float64 {
	if i == 1 {
		return phi(v / f.tau)
	}
	return expectNormal(func(u float64) float64 { return phi(v * math.Exp(-f.tau*u/2)) })
}

// MarginalCDF of either coordinate (the law is invariant under rotation):
// x₁ = ρ cos θ with θ uniform and ρ of density ∝ ρ e^{−(ρ−r)²/(2σ²)}, so
// P(x₁ ≤ v) = E_ρ[1 − arccos(clamp(v/ρ, −1, 1))/π], integrated over
// ρ ∈ (max(0, r − 12σ), r + 12σ) in two pieces split at ρ = |v|, where the
// integrand has a square-root kink (Simpson's error there is O(h^1.5):
// up to 3e-6 with these steps at the preset, 5e-6 at r = 2, σ = 1, largest
// at |v| near r).
func (d Donut) MarginalCDF(_ int, v float64) float64 {
	lo, hi := math.Max(0, d.r-12*d.sigma), d.r+12*d.sigma
	dens := func(rho float64) float64 {
		u := (rho - d.r) / d.sigma
		return rho * math.Exp(-u*u/2)
	}
	f := func(rho float64) float64 {
		c := -1.0
		if rho > 0 {
			c = math.Max(-1, math.Min(1, v/rho))
		} else if v >= 0 {
			c = 1
		}
		return dens(rho) * (1 - math.Acos(c)/math.Pi)
	}
	num := 0.0
	if k := math.Abs(v); k > lo && k < hi {
		num = simpson(f, lo, k, 2000) + simpson(f, k, hi, 2000)
	} else {
		num = simpson(f, lo, hi, 4000)
	}
	return num / simpson(dens, lo, hi, 4000)
}
