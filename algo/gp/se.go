package gp

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/kernel"
)

// Hyper are the hyperparameters of a GP with the squared-exponential kernel
//
//	k(x, z) = Variance · exp(−‖x − z‖²/(2·Lengthscale²))
//
// (seed 002 eq 4.25, L1902; the lab's rbf with γ = 1/(2ℓ²)) and noise
// variance Noise.
type Hyper struct {
	Lengthscale float64
	Variance    float64
	Noise       float64
}

// Validate reports the first hyperparameter out of range.
func (h Hyper) Validate() error {
	if !(h.Lengthscale > 0) || math.IsInf(h.Lengthscale, 0) {
		return algo.BadParam("lengthscale", h.Lengthscale, "a finite number > 0")
	}
	if !(h.Variance > 0) || math.IsInf(h.Variance, 0) {
		return algo.BadParam("variance", h.Variance, "a finite number > 0")
	}
	if !(h.Noise >= 0) || math.IsInf(h.Noise, 0) {
		return algo.BadParam("noise", h.Noise, "a finite variance ≥ 0")
	}
	return nil
}

// Kernel returns the squared-exponential kernel as a kernel.Kernel.
func (h Hyper) Kernel() kernel.Kernel {
	return kernel.Scaled{C: h.Variance, K: kernel.RBF{Gamma: 1 / (2 * h.Lengthscale * h.Lengthscale)}}
}

// String prints the hyperparameters compactly.
func (h Hyper) String() string {
	return fmt.Sprintf("ℓ=%.3g σ_f²=%.3g σ²=%.3g", h.Lengthscale, h.Variance, h.Noise)
}

// LogParams returns θ = (log ℓ, log σ_f², log σ²).
func (h Hyper) LogParams() [3]float64 {
	return [3]float64{math.Log(h.Lengthscale), math.Log(h.Variance), math.Log(h.Noise)}
}

// FromLog is the inverse of LogParams.
func FromLog(t [3]float64) Hyper {
	return Hyper{Lengthscale: math.Exp(t[0]), Variance: math.Exp(t[1]), Noise: math.Exp(t[2])}
}

// Evidence is the log marginal likelihood of a GP with squared-exponential
// kernel and its gradient with respect to the log-parameters θ = (log ℓ,
// log σ_f², log σ²).
type Evidence struct {
	Hyper      Hyper
	LogML      float64 // log p(y | θ)
	DataFit    float64 // −½ yᵀC⁻¹y
	Complexity float64 // −½ log|C|
	Grad       [3]float64
	Jitter     float64
	post       *Posterior
}

// Posterior is the GP posterior at these hyperparameters, which the
// evidence was computed from (nil for the zero Evidence).
func (e Evidence) Posterior() *Posterior { return e.post }

// LogMarginalSE returns log p(y | θ) for the squared-exponential GP (seed
// 003 L1037; seed 002 L1959) and its gradient, which the notes do not give
// (seed 003 stops at L1037; seed 002 Algorithm 2 leaves it abstract). With
// a = C⁻¹y (Rasmussen & Williams 2006, eq 5.9),
//
//	∂ log p / ∂θ_j = ½ tr((aaᵀ − C⁻¹) ∂C/∂θ_j)
//
// and, with R² the matrix of squared distances and K the kernel matrix,
//
//	∂C/∂log ℓ = K ∘ R²/ℓ²,  ∂C/∂log σ_f² = K,  ∂C/∂log σ² = σ² I.
//
// Working in log-parameters keeps them positive under any step. The cost is
// O(n³): a Cholesky factor and the inverse from it (LAPACK dpotri), then
// one pass over the lower triangle that reuses K from the factorisation
// (no kernel evaluation).
func LogMarginalSE(x [][]float64, y []float64, h Hyper) (Evidence, error) {
	if err := h.Validate(); err != nil {
		return Evidence{}, err
	}
	post, gram, err := fitGram(h.Kernel(), x, y, h.Noise)
	if err != nil {
		return Evidence{}, err
	}
	e := Evidence{Hyper: h, Jitter: post.Jitter(), post: post}
	e.LogML, e.DataFit, e.Complexity = post.LogMarginal()
	n := len(x)
	if n == 0 {
		return e, nil
	}
	cinv, err := post.f.inverse()
	if err != nil {
		return Evidence{}, fmt.Errorf("GP evidence: %w", err)
	}
	a := post.a
	l2 := h.Lengthscale * h.Lengthscale
	// Off the diagonal each pair counts twice; on it r² = 0 and K_ii = σ_f².
	var gl, gv, gn float64
	for i := 0; i < n; i++ {
		xi := x[i]
		ci, ki := cinv[i*n:i*n+i], gram[i*n:i*n+i]
		for j, kij := range ki {
			w := a[i]*a[j] - ci[j] // (aaᵀ − C⁻¹)_ij
			xj := x[j]
			r2 := 0.0
			for d, v := range xi {
				t := v - xj[d]
				r2 += t * t
			}
			gl += 2 * w * kij * r2 / l2
			gv += 2 * w * kij
		}
		w := a[i]*a[i] - cinv[i*n+i]
		gv += w * h.Variance
		gn += w * h.Noise
	}
	e.Grad = [3]float64{0.5 * gl, 0.5 * gv, 0.5 * gn}
	return e, nil
}
