package optim

import "math"

// The convergence theorems of seed 001 §8 for gradient descent with a fixed
// step t (Definition 8.2). StronglyConvexRate (Theorem 8.7) is in
// functions.go.

// ConvexBound is the right-hand side of Theorem 8.5 (seed 001 §8,
// L805–L811): for convex, L-smooth f and a fixed step 0 < t ≤ 1/L,
//
//	f(x_k) − f* ≤ ‖x_0 − x*‖² / (2tk),   k ≥ 1,
//
// where x* is any minimiser (the bound is tightest for the one nearest x_0).
// r0sq is ‖x_0 − x*‖². ok is false when t is outside the theorem's range or
// k < 1 (the bound is infinite at k = 0).
func ConvexBound(L, t, r0sq float64, k int) (bound float64, ok bool) {
	if !(L > 0) || !(t > 0) || t > 1/L || k < 1 {
		return math.Inf(1), false
	}
	return r0sq / (2 * t * float64(k)), true
}

// NonConvexBound is the right-hand side of Theorem 8.8 (seed 001 §8,
// L883–L889): for L-smooth f (‖∇²f‖ ≤ L, erratum E8) and a fixed step
// 0 < t ≤ 1/L,
//
//	min_{i=0..k} ‖∇f(x_i)‖ ≤ √(2(f(x_0) − f*) / (t(k+1))).
//
// gap0 is f(x_0) − f*. ok is false when t is outside the theorem's range.
func NonConvexBound(L, t, gap0 float64, k int) (bound float64, ok bool) {
	if !(L > 0) || !(t > 0) || t > 1/L || k < 0 || gap0 < 0 {
		return math.Inf(1), false
	}
	return math.Sqrt(2 * gap0 / (t * float64(k+1))), true
}

// DescentLemma is the guaranteed decrease (★) of seed 001 §8 (L827): for
// L-smooth f and t ≤ 1/L one GD step satisfies f(x⁺) ≤ f(x) − (t/2)‖∇f(x)‖².
// It returns the right-hand side for f(x) = fx and ‖∇f(x)‖² = g2.
func DescentLemma(fx, t, g2 float64) float64 { return fx - t/2*g2 }

// StronglyConvexBound is the right-hand side of Theorem 8.7 (seed 001 §8,
// L871–L879) for an m-strongly convex, L-smooth f and a fixed step
// 0 < t ≤ 2/(m+L):
//
//	f(x_k) − f* ≤ γ^k (L/2) ‖x_0 − x*‖²,
//
// with γ from StronglyConvexRate (erratum E9: the notes leave γ open).
// r0sq is ‖x_0 − x*‖². ok is false when the theorem does not apply.
func StronglyConvexBound(m, L, t, r0sq float64, k int) (bound float64, ok bool) {
	gamma, ok := StronglyConvexRate(m, L, t)
	if !ok || k < 0 {
		return math.Inf(1), false
	}
	return math.Pow(gamma, float64(k)) * L / 2 * r0sq, true
}

// FirstK is the least k ≥ k0 at which a bound that does not increase with
// k falls to target or below: the iteration count a theorem guarantees for
// an ε. It searches by doubling and bisection, so it is cheap for counts of
// any size; ok is false when the bound stays above target up to 2^52.
func FirstK(bound func(k int) float64, target float64, k0 int) (k int, ok bool) {
	if bound(k0) <= target {
		return k0, true
	}
	lo, hi := k0, k0+1 // bound(lo) > target
	for bound(hi) > target {
		if hi > 1<<52 {
			return 0, false
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if bound(mid) <= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}
