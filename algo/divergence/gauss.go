package divergence

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"gonum.org/v1/gonum/mat"
)

// KLNormal returns KL(N(m0, s0²) ‖ N(m1, s1²)) (eq 1.38, seed 002 L501):
//
//	log(s1/s0) + (s0² + (m0 − m1)²)/(2 s1²) − ½.
//
// s0 and s1 are standard deviations (> 0).
func KLNormal(m0, s0, m1, s1 float64) float64 {
	d := m0 - m1
	return math.Log(s1/s0) + (s0*s0+d*d)/(2*s1*s1) - 0.5
}

// KLNormalGrad returns the gradient of (1.38) in the second argument's
// parameters (m1, s1):
//
//	∂/∂m1 = (m1 − m0)/s1²                        (eq 1.39)
//	∂/∂s1 = 1/s1 − (s0² + (m0 − m1)²)/s1³.
//
// The notes print ∂/∂s1 = 1/s1 − s0²/s1³ (eq 1.40, L519), dropping the
// (m0 − m1)² term (erratum in the seed-002 catalogue, §4); see NotesGrad.
func KLNormalGrad(m0, s0, m1, s1 float64) (dm, ds float64) {
	d := m0 - m1
	return (m1 - m0) / (s1 * s1), 1/s1 - (s0*s0+d*d)/(s1*s1*s1)
}

// NotesGrad returns (1.39) and the σ-derivative exactly as the notes print
// it in (1.40), (s1² − s0²)/s1³. It agrees with KLNormalGrad only when
// m1 = m0; elsewhere it is not the gradient of any function of (m1, s1)
// that the flow decreases, though it has the same fixed point (m0, s0).
func NotesGrad(m0, s0, m1, s1 float64) (dm, ds float64) {
	return (m1 - m0) / (s1 * s1), (s1*s1 - s0*s0) / (s1 * s1 * s1)
}

// EntropyNormal returns the differential entropy ½ log(2πe s²) of N(m, s²)
// (eq 1.29), negative when s < 1/√(2πe).
func EntropyNormal(s float64) float64 {
	return 0.5*math.Log(2*math.Pi*math.E) + math.Log(s)
}

// KLGaussian returns KL(N(m0, S0) ‖ N(m1, S1)) in d dimensions:
//
//	½ ( tr(S1⁻¹S0) + (m1 − m0)ᵀ S1⁻¹ (m1 − m0) − d + log det S1 − log det S0 ),
//
// whose d = 1 case is (1.38) and whose diagonal-S0 case is the mean-field
// KL of Ex 3.6 (L1315). The covariances must be symmetric positive
// definite; an error names "S0" or "S1" otherwise.
func KLGaussian(m0 []float64, s0 mat.Symmetric, m1 []float64, s1 mat.Symmetric) (float64, error) {
	d := len(m0)
	if len(m1) != d || s0.SymmetricDim() != d || s1.SymmetricDim() != d {
		return 0, algo.BadParam("m1", m1, fmt.Sprintf("dimensions that agree (%d)", d))
	}
	var c0, c1 mat.Cholesky
	if !c0.Factorize(s0) {
		return 0, algo.BadParam("S0", "not positive definite", "a symmetric positive definite matrix")
	}
	if !c1.Factorize(s1) {
		return 0, algo.BadParam("S1", "not positive definite", "a symmetric positive definite matrix")
	}
	var x mat.Dense
	if err := c1.SolveTo(&x, s0); err != nil {
		return 0, err
	}
	tr := mat.Trace(&x)
	diff := mat.NewVecDense(d, nil)
	for i := range d {
		diff.SetVec(i, m1[i]-m0[i])
	}
	var sol mat.VecDense
	if err := c1.SolveVecTo(&sol, diff); err != nil {
		return 0, err
	}
	maha := mat.Dot(diff, &sol)
	return 0.5 * (tr + maha - float64(d) + c1.LogDet() - c0.LogDet()), nil
}
