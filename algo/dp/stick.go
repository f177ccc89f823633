package dp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MaxAlpha bounds the concentration α of the stick-breaking and CRP engines:
// beyond it a truncated stick needs tens of thousands of pieces.
const MaxAlpha = 1000

// Stick is one draw of a Dirichlet process DP(α, G) by stick-breaking (seed
// 002 §4.2, Def 4.3, L1645–1687), G = N(0, 1), one piece per Step:
//
//	V_k ~ Beta(1, α),  C_k = V_k ∏_{j<k} (1 − V_j),  Φ_k ~ G.
//
// The notes print the product as ∏_{j=1}^{k−1} (1 − V_k) (eq 4.15, L1681), with
// the index k inside the product; that is a typo (erratum in the seed-002
// catalogue, §4): the remaining stick after k − 1 breaks is |I_k| =
// ∏_{j<k}(1 − V_j) (L1660–1662), and C_k = |I_k| V_k. The engine keeps |I_k|
// as a running product. V is drawn by inversion, V = 1 − U^{1/α} (the
// Beta(1, α) CDF is 1 − (1 − v)^α), one uniform per piece.
//
// E[C_k] = (1/(1+α))·(α/(1+α))^{k−1} and E|I_{k+1}| = (α/(1+α))^k. The draw is
// truncated once the remaining stick is below Tol: Step then returns
// algo.ErrConverged, and Σ_k C_k + Remaining() = 1 up to rounding.
type Stick struct {
	alpha, tol float64
	rng        *rand.Rand
	rest       float64   // |I_{k+1}|, the stick still to break
	weights    []float64 // C_1 .. C_k
	atoms      []float64 // Φ_1 .. Φ_k
}

// NewStick validates α in (0, MaxAlpha] and the truncation tol in
// [1e-12, 0.5] and starts a draw with the whole stick.
func NewStick(alpha, tol float64, rng *rand.Rand) (*Stick, error) {
	if !(alpha > 0 && alpha <= MaxAlpha) {
		return nil, algo.BadParam("alpha", alpha, fmt.Sprintf("in (0, %d]", MaxAlpha))
	}
	if !(tol >= 1e-12 && tol <= 0.5) {
		return nil, algo.BadParam("tol", tol, "in [1e-12, 0.5]")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	return &Stick{alpha: alpha, tol: tol, rng: rng, rest: 1}, nil
}

// Step breaks one more piece off the remaining stick, or returns
// algo.ErrConverged once it is shorter than tol.
func (s *Stick) Step() error {
	if s.rest < s.tol {
		return algo.ErrConverged
	}
	v := 1 - math.Pow(s.rng.Float64(), 1/s.alpha)
	s.weights = append(s.weights, s.rest*v)
	s.atoms = append(s.atoms, s.rng.NormFloat64())
	s.rest *= 1 - v
	return nil
}

// Weights returns C_1..C_k (a view: do not modify).
func (s *Stick) Weights() []float64 { return s.weights }

// Atoms returns Φ_1..Φ_k (a view: do not modify).
func (s *Stick) Atoms() []float64 { return s.atoms }

// Remaining is the unbroken stick |I_{k+1}| = 1 − Σ C_j.
func (s *Stick) Remaining() float64 { return s.rest }

// Done reports whether the draw is truncated.
func (s *Stick) Done() bool { return s.rest < s.tol }

// Alpha is the concentration.
func (s *Stick) Alpha() float64 { return s.alpha }

// StickMean is E[C_k] = (1/(1+α))(α/(1+α))^{k−1} for k ≥ 1.
func StickMean(alpha float64, k int) float64 {
	return math.Pow(alpha/(1+alpha), float64(k-1)) / (1 + alpha)
}
