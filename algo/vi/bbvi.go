package vi

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/integrate"
)

// Density1D is what BBVI needs of its target: the unnormalised
// log-density log p(x, z) of a 1-D latent z and its derivative in z (the
// derivative only for the reparameterisation gradient). Every 1-D
// target.Target is one.
type Density1D interface {
	Dim() int
	LogP(z []float64) float64
	Grad(grad, z []float64)
}

// Estimator names a Monte Carlo estimator of the ELBO's gradient.
type Estimator string

const (
	// Score is the score-function estimator of eq (3.14) (seed 002 L1424)
	// and eq (6.8): (1/S) Σ_s (log p(z_s) − log q_λ(z_s)) ∇_λ log q_λ(z_s),
	// z_s ~ q_λ.
	Score Estimator = "score"
	// Reparam is the reparameterisation estimator of eq (6.12): with
	// z = m + s ε, ε ~ N(0, 1), (1/S) Σ_s ∇_λ (log p(z_s) − log q_λ(z_s)).
	Reparam Estimator = "reparam"
)

// String is the estimator's name.
func (e Estimator) String() string { return string(e) }

// BBVIConfig configures a BBVI.
type BBVIConfig struct {
	// Estimator is the gradient estimator the ascent follows; both are
	// computed at every step, so their variances can be compared.
	Estimator Estimator
	// Samples is S, the Monte Carlo samples per estimate (1..10000).
	Samples int
	// LR is the (constant) step size η of the ascent λ ← λ + η ĝ.
	LR float64
	// M0 and S0 are the start, q = N(M0, S0²).
	M0, S0 float64
}

// BBVI is black-box variational inference (seed 002 §3.4, L1416–1430) on a
// 1-D target with the Gaussian family q_λ = N(m, s²), λ = (m, ω), ω = log s:
// stochastic gradient ascent on ELBO(λ) = E_q[log p(x, z) − log q_λ(z)]
// (L1420). One Step draws S samples for each of the two unbiased gradient
// estimators, with f(z) = log p(z) − log q_λ(z) and z = m + sε:
//
//	score    ĝ = f(z) ∇_λ log q_λ(z),   ∇_m log q = ε/s,   ∇_ω log q = ε² − 1   (3.14)
//	reparam  ĝ = ∇_λ f(m + sε) = ( ∂_z log p(z),  s ε ∂_z log p(z) + 1 )     (6.12)
//
// (for a Gaussian q the path derivative of −log q_λ(z) contributes exactly
// the entropy's gradient (0, 1)), moves λ by η times the chosen one's mean,
// and records both estimators' single-sample means and variances at the
// current λ. The score-function estimator "suffers from high variance"
// (L1428); the reparameterised one is typically far less noisy (Remark
// 6.13). For reference the exact ELBO and its gradient,
//
//	ELBO = E_q[log p(z)] + log s + ½ log 2πe,
//	∇_m = E_q[∂_z log p(z)],   ∇_ω = s E[ε ∂_z log p(z)] + 1,
//
// are computed by quadrature (integrate.NewPanelNormal(64, 8)) at every
// step. Step does not allocate.
type BBVI struct {
	p     Density1D
	cfg   BBVIConfig
	rng   *rand.Rand
	rule  integrate.Normal
	m, w  float64 // λ = (m, ω)
	k     int
	buf   [1]float64
	gbuf  [1]float64
	stats [2]EstimatorStats // by estimator: score, reparam
	exact [2]float64        // exact ∇ELBO at the current λ
	at    [2]float64        // exact ∇ELBO at the λ where stats were taken
	elbo  float64           // exact ELBO at the current λ
	// single-sample estimates of the last step, for the histograms
	lastScore, lastRep []float64 // S×2, row-major (∇_m, ∇_ω)
}

// EstimatorStats are one estimator's single-sample statistics at one λ:
// the mean and (unbiased) variance over the S samples, per component
// (∇_m, ∇_ω).
type EstimatorStats struct {
	Mean, Var [2]float64
}

// NewBBVI validates cfg and starts at q = N(M0, S0²).
func NewBBVI(p Density1D, cfg BBVIConfig, rng *rand.Rand) (*BBVI, error) {
	switch {
	case p == nil || p.Dim() != 1:
		return nil, algo.BadParam("target", p, "a 1-D density")
	case cfg.Estimator != Score && cfg.Estimator != Reparam:
		return nil, algo.BadParam("estimator", cfg.Estimator, "score or reparam")
	case cfg.Samples < 1 || cfg.Samples > 10000:
		return nil, algo.BadParam("samples", cfg.Samples, "in 1..10000")
	case !(cfg.LR > 0) || cfg.LR > 10:
		return nil, algo.BadParam("lr", cfg.LR, "in (0, 10]")
	case math.IsNaN(cfg.M0) || math.IsInf(cfg.M0, 0):
		return nil, algo.BadParam("m0", cfg.M0, "a finite number")
	case !(cfg.S0 > 0) || math.IsInf(cfg.S0, 0):
		return nil, algo.BadParam("s0", cfg.S0, "a finite number > 0")
	case rng == nil:
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	rule, err := integrate.NewPanelNormal(64, 8)
	if err != nil {
		return nil, err
	}
	b := &BBVI{p: p, cfg: cfg, rng: rng, rule: rule, m: cfg.M0, w: math.Log(cfg.S0),
		lastScore: make([]float64, 2*cfg.Samples), lastRep: make([]float64, 2*cfg.Samples)}
	b.elbo, b.exact = b.Exact(b.m, b.w)
	if !algo.Finite(b.elbo) {
		return nil, algo.BadParam("m0", cfg.M0, fmt.Sprintf("a start where the ELBO is finite (it is %v)", b.elbo))
	}
	return b, nil
}

func (b *BBVI) logp(z float64) float64 {
	b.buf[0] = z
	return b.p.LogP(b.buf[:])
}

func (b *BBVI) dlogp(z float64) float64 {
	b.buf[0] = z
	b.p.Grad(b.gbuf[:], b.buf[:])
	return b.gbuf[0]
}

// Exact returns the ELBO and its gradient (∇_m, ∇_ω) at λ = (m, ω) by
// quadrature.
func (b *BBVI) Exact(m, w float64) (elbo float64, grad [2]float64) {
	s := math.Exp(w)
	var el, gm, gw float64
	for i, z := range b.rule.Z {
		x := m + s*z
		wt := b.rule.W[i]
		el += wt * b.logp(x)
		d := b.dlogp(x)
		gm += wt * d
		gw += wt * z * d
	}
	return el + w + 0.5*math.Log(2*math.Pi*math.E), [2]float64{gm, s*gw + 1}
}

// SingleSample returns one draw of each estimator at λ = (m, ω) from the
// standard normal draw eps: ∇_m and ∇_ω.
func (b *BBVI) SingleSample(m, w, eps float64, est Estimator) (gm, gw float64) {
	s := math.Exp(w)
	z := m + s*eps
	if est == Score {
		// log q_λ(z) = −½ε² − ω − ½ log 2π.
		f := b.logp(z) + 0.5*eps*eps + w + 0.5*math.Log(2*math.Pi)
		return f * eps / s, f * (eps*eps - 1)
	}
	d := b.dlogp(z)
	return d, s*eps*d + 1
}

// Step draws S samples for each estimator at the current λ, records their
// statistics, and moves λ by η times the chosen estimator's mean.
func (b *BBVI) Step() error {
	S := b.cfg.Samples
	for e, est := range []Estimator{Score, Reparam} {
		dst := b.lastScore
		if est == Reparam {
			dst = b.lastRep
		}
		for i := range S {
			dst[2*i], dst[2*i+1] = b.SingleSample(b.m, b.w, b.rng.NormFloat64(), est)
		}
		b.stats[e] = meanVar(dst, S)
	}
	b.at = b.exact
	chosen := b.stats[0]
	if b.cfg.Estimator == Reparam {
		chosen = b.stats[1]
	}
	m := b.m + b.cfg.LR*chosen.Mean[0]
	w := b.w + b.cfg.LR*chosen.Mean[1]
	if !algo.Finite(m) || !algo.Finite(w) || w > 50 || w < -50 {
		return algo.Diverged("λ = (%.3g, log s = %.3g) after step %d: lower lr or use more samples", m, w, b.k+1)
	}
	b.m, b.w = m, w
	b.k++
	b.elbo, b.exact = b.Exact(b.m, b.w)
	return nil
}

// meanVar returns the per-component mean and unbiased variance of S rows of
// two values (variance 0 when S = 1).
func meanVar(x []float64, S int) EstimatorStats {
	var st EstimatorStats
	for c := range 2 {
		mean := 0.0
		for i := range S {
			mean += x[2*i+c]
		}
		mean /= float64(S)
		v := 0.0
		for i := range S {
			e := x[2*i+c] - mean
			v += e * e
		}
		if S > 1 {
			v /= float64(S - 1)
		}
		st.Mean[c], st.Var[c] = mean, v
	}
	return st
}

// Lambda returns the current q's mean m and standard deviation s.
func (b *BBVI) Lambda() (m, s float64) { return b.m, math.Exp(b.w) }

// ELBO is the exact ELBO at the current λ; ExactGrad its gradient.
func (b *BBVI) ELBO() float64 { return b.elbo }

// ExactGrad is the exact gradient (∇_m, ∇_ω) of the ELBO at the current λ.
func (b *BBVI) ExactGrad() [2]float64 { return b.exact }

// StatsGrad is the exact gradient at the λ where the last step's
// statistics were taken.
func (b *BBVI) StatsGrad() [2]float64 { return b.at }

// Stats returns the last step's statistics of the score-function and of the
// reparameterisation estimator (taken at the λ before the step).
func (b *BBVI) Stats() (score, reparam EstimatorStats) { return b.stats[0], b.stats[1] }

// LastSamples returns the last step's single-sample estimates, S rows of
// (∇_m, ∇_ω) each (views: they change at the next step).
func (b *BBVI) LastSamples() (score, reparam []float64) { return b.lastScore, b.lastRep }

// Iter is the number of steps taken.
func (b *BBVI) Iter() int { return b.k }

// Config returns the configuration.
func (b *BBVI) Config() BBVIConfig { return b.cfg }
