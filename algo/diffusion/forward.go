package diffusion

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Forward is the forward noising SDE of the variance-preserving
// (Ornstein–Uhlenbeck) process dx = −½βx dt + √β dw, integrated by
// Euler–Maruyama (seed 001 [A29], eq 15.b and L1480–L1484): one Step moves
// every particle by x ← x − ½βx h + √(βh) ξ, ξ ~ N(0, I) — the noise scales
// with √h, not h. Its law at time t tends to that of a_t X_0 + b_t ε with
// a_t = e^{−βt/2}, b_t² = 1 − e^{−βt} (OU) as h → 0.
type Forward struct {
	X    []float64 // the particles
	beta float64
	h    float64
	t    float64
	rng  *rand.Rand
}

// NewForward starts the process at the particles x0 (copied) with rate
// β and time step h.
func NewForward(x0 []float64, beta, h float64, rng *rand.Rand) (*Forward, error) {
	if len(x0) == 0 || len(x0) > MaxParticle*2 {
		return nil, algo.BadParam("particles", len(x0), fmt.Sprintf("in 1..%d values", 2*MaxParticle))
	}
	if !(beta > 0 && beta <= MaxBeta) {
		return nil, algo.BadParam("beta", beta, fmt.Sprintf("in (0, %d]", MaxBeta))
	}
	if !(h > 0 && beta*h <= 1) {
		return nil, algo.BadParam("h", h, "> 0 with βh ≤ 1")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	return &Forward{X: append([]float64(nil), x0...), beta: beta, h: h, rng: rng}, nil
}

// Step is one Euler–Maruyama step of every particle.
func (f *Forward) Step() {
	drift := 1 - 0.5*f.beta*f.h
	noise := math.Sqrt(f.beta * f.h)
	for i, x := range f.X {
		f.X[i] = drift*x + noise*f.rng.NormFloat64()
	}
	f.t += f.h
}

// T is the time reached.
func (f *Forward) T() float64 { return f.t }

// Moments returns the exact mean and variance of a_t X_0 + b_t ε for X_0
// with mean m0 and variance v0 (per coordinate): m_t = a_t m0,
// v_t = a_t² v0 + 1 − e^{−βt} (seed 001 [A29]).
func Moments(beta, t, m0, v0 float64) (m, v float64) {
	a, b := OU(beta, t)
	return a * m0, a*a*v0 + b*b
}

// EulerMoments are the exact mean and variance of the Euler–Maruyama
// chain itself after k steps of h: with c = 1 − βh/2, m = cᵏ m0 and
// v = c²ᵏ v0 + βh (1 − c²ᵏ)/(1 − c²) — what the particles' moments estimate,
// a distance O(h) from the SDE's.
func EulerMoments(beta, h float64, k int, m0, v0 float64) (m, v float64) {
	c := 1 - 0.5*beta*h
	ck := math.Pow(c, float64(k))
	return ck * m0, ck*ck*v0 + beta*h*(1-ck*ck)/(1-c*c)
}
