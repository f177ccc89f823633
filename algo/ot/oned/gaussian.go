package oned

import "math"

// NormalQuantile returns the t-quantile of N(m, s²), m − s√2 erfc⁻¹(2t).
// Go's math.Erfcinv(x) is Erfinv(1 − x), so the lower tail is no more
// accurate than through 2t − 1: the result is the quantile of a t′ within
// 2⁻⁵⁵ ≈ 2.8e-17 of t (a relative 3e-7 at t = 1e-10), and −Inf for
// t ≤ 2⁻⁵⁵.
func NormalQuantile(m, s, t float64) float64 { return m - s*math.Sqrt2*math.Erfcinv(2*t) }

// NormalCDF returns Φ((x − m)/s).
func NormalCDF(m, s, x float64) float64 { return 0.5 * math.Erfc(-(x-m)/(s*math.Sqrt2)) }

// GaussianW2Sq returns W₂²(N(m1, s1²), N(m2, s2²)) = (m1 − m2)² + (s1 − s2)²
// (Ex 5.7, L2548–2589): the monotone map T(x) = m2 + (s2/s1)(x − m1)
// sends m1 + s1 Z to m2 + s2 Z.
func GaussianW2Sq(m1, s1, m2, s2 float64) float64 {
	return (m1-m2)*(m1-m2) + (s1-s2)*(s1-s2)
}

// GaussianGeodesic returns the mean and standard deviation of the
// displacement interpolation between N(m0, s0²) and N(m1, s1²) at t
// (Ex 5.6, L2524–2546): both linear in t, m_t = (1 − t)m0 + t m1 and
// s_t = (1 − t)s0 + t s1.
func GaussianGeodesic(m0, s0, m1, s1, t float64) (m, s float64) {
	return (1-t)*m0 + t*m1, (1-t)*s0 + t*s1
}
