package robust

import "math"

// Huber is the Moreau envelope of |·| (seed 001 L1575, [A35]),
//
//	M^η(t) = min_s ½(s − t)² + η|s| = ½t² if |t| ≤ η, η|t| − ½η² if |t| ≥ η,
//
// with the second branch as it is, not the notes' η|t| − ½t² (erratum E28,
// which gives 0 at t = 2, η = 1 instead of 1.5, and is neither continuous
// nor convex). It is C¹: both branches meet at |t| = η with value ½η² and
// slope ±η.
func Huber(t, eta float64) float64 {
	if a := math.Abs(t); a > eta {
		return eta*a - eta*eta/2
	}
	return t * t / 2
}

// SoftThreshold is the minimiser s* = sgn(t)·max(|t| − η, 0) of the
// envelope's problem: the proximal map of η|·|.
func SoftThreshold(t, eta float64) float64 {
	return math.Copysign(math.Max(math.Abs(t)-eta, 0), t)
}

// Clipped is the variational loss ℓ̃ = min_{η∈[0,1]} η·ℓ + ψ(η) of
// L1579–L1581 with ψ(η) = c(1 − η): the objective is affine in η, so the
// minimum sits at an end, η = 1 (ℓ) or η = 0 (c): ℓ̃ = min(ℓ, c), the loss
// clipped at c.
func Clipped(loss, c float64) float64 { return math.Min(loss, c) }
