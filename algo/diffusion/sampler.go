package diffusion

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Denoiser predicts the noise of Y = X + σε: Eps writes ε(y, σ) for every
// particle of y (n rows of D values) into dst. The exact ε* of a Mixture,
// a trained network (DSM), and the guided and multi-view combinations of
// other denoisers are Denoisers; every sampler takes one.
type Denoiser interface {
	Eps(dst, y []float64, sigma float64)
}

// Guided is classifier-free guidance (seed 000 eq 3.29, L1391):
// ε̄ = λ ε(x, σ, τ) + (1 − λ) ε(x, σ), with Cond the denoiser of the
// condition τ and Uncond the unconditional one; λ > 1 pushes samples away
// from the other conditions.
type Guided struct {
	Cond, Uncond Denoiser
	Lambda       float64
	buf          []float64
}

// Eps is the guided prediction.
func (g *Guided) Eps(dst, y []float64, sigma float64) {
	if cap(g.buf) < len(y) {
		g.buf = make([]float64, len(y))
	}
	u := g.buf[:len(y)]
	g.Cond.Eps(dst, y, sigma)
	g.Uncond.Eps(u, y, sigma)
	for i := range dst {
		dst[i] = g.Lambda*dst[i] + (1-g.Lambda)*u[i]
	}
}

// View is an orthogonal map of the plane, v(x) = Q x, written row-major:
// a reflection or a rotation. Its inverse is Qᵀ.
type View [4]float64

// The views of the "optical illusions".
var (
	Identity  = View{1, 0, 0, 1}
	ReflectX  = View{-1, 0, 0, 1} // (x, y) ↦ (−x, y)
	Rotate90  = View{0, -1, 1, 0} // (x, y) ↦ (−y, x)
	Rotate180 = View{-1, 0, 0, -1}
)

// Views is the "optical illusions" denoiser (seed 000 eq 3.30, L1399):
// ε̄(x) = (1/N) Σ_i v_i⁻¹ ε(v_i x, σ, τ_i), the predictions made in each
// view and brought back to the original space before averaging (L1395),
// so that a sample must look like data in every view.
type Views struct {
	Base  []Denoiser // the denoiser of each view's condition
	Maps  []View
	x, e  []float64
	total []float64
}

// Eps is the averaged prediction over the views (points in the plane).
func (v *Views) Eps(dst, y []float64, sigma float64) {
	n := len(y)
	if cap(v.x) < n {
		v.x, v.e, v.total = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	x, e, tot := v.x[:n], v.e[:n], v.total[:n]
	clear(tot)
	for j, q := range v.Maps {
		for i := 0; i < n; i += 2 {
			x[i], x[i+1] = q[0]*y[i]+q[1]*y[i+1], q[2]*y[i]+q[3]*y[i+1]
		}
		v.Base[j].Eps(e, x, sigma)
		for i := 0; i < n; i += 2 { // Qᵀ e
			tot[i] += q[0]*e[i] + q[2]*e[i+1]
			tot[i+1] += q[1]*e[i] + q[3]*e[i+1]
		}
	}
	for i := range dst {
		dst[i] = tot[i] / float64(len(v.Maps))
	}
}

// Method names a sampler.
type Method string

// The samplers. The first three run the variance-exploding path
// Y = X + σε over a schedule σ_T > … > σ_0 = 0 (seed 000 §3.4–3.5); the
// last two run the reverse of the variance-preserving (Ornstein–Uhlenbeck)
// forward SDE dx = −½βx dt + √β dw from t = T to 0 (seed 001 [A30]).
const (
	DDIM   Method = "ddim"   // μ = 0: x ← x − (σ_t − σ_{t−1}) ε (eq 3.6)
	DDPM   Method = "ddpm"   // μ = ½ (eq 3.7)
	Family Method = "family" // any μ in [0, 1) (eq 3.7)
	SDE    Method = "sde"    // reverse SDE: x ← x − [f − g²s]h + g√h ξ
	ODE    Method = "ode"    // probability flow: x ← x − [f − ½g²s]h
)

func (m Method) String() string { return string(m) }

// Methods lists the samplers.
var Methods = []Method{DDIM, DDPM, Family, SDE, ODE}

// Schedule spaces the noise levels of the σ samplers.
type Schedule string

const (
	Linear    Schedule = "linear"    // σ_i evenly spaced from σ_max to 0
	Geometric Schedule = "geometric" // σ_i geometric from σ_max to σ_min, then 0
)

func (s Schedule) String() string { return string(s) }

// Bounds of a sampler's configuration.
const (
	MaxSteps    = 5000
	MaxSigma    = 100
	MaxMu       = 0.99
	MaxGamma    = 3
	MaxBeta     = 20
	MaxParticle = 200000
)

// SamplerConfig configures a Sampler.
type SamplerConfig struct {
	Method   Method
	Steps    int      // noise levels visited (one per Step)
	Schedule Schedule // σ samplers
	SigmaMax float64  // σ_T
	SigmaMin float64  // the last positive level of a geometric schedule
	Mu       float64  // μ of the family (DDIM 0, DDPM ½ whatever is set)
	// Gamma is the ε-extrapolation weight γ of eq 3.8 (seed 000 §3.5.1,
	// L1236): ε̄_t = γ ε(x_t, σ_t) + (1 − γ) ε(x_{t+1}, σ_{t+1}); 1 is none.
	Gamma float64
	Beta  float64 // β of the OU process (sde, ode)
	T     float64 // its horizon
}

// Sampler carries particles from the noise level at the top of its
// schedule down to the data, one level per Step, with a Denoiser's ε.
type Sampler struct {
	cfg    SamplerConfig
	eps    Denoiser
	d      int
	X      []float64 // the particles, n rows of D values
	levels []float64 // σ_0 > … or t_0 > …, len Steps+1, the last 0
	i      int
	cur    []float64 // ε at the current level
	prev   []float64 // ε at the level above (extrapolation)
	rng    *rand.Rand
}

// NewSampler validates cfg and starts the particles at the top level from
// data draws x0 (n rows of d values; copied): Y = x0 + σ_T ε for the σ
// samplers and Y = a_T x0 + b_T ε for the OU samplers, the forward
// process's own marginal there (at σ_T ≫ the data's spread it is N(0, σ_T²I)
// to within that spread, and at β T ≫ 1 it is N(0, I)). Starting from the
// exact marginal is what makes the oracles of the notes exact.
func NewSampler(cfg SamplerConfig, eps Denoiser, d int, x0 []float64, rng *rand.Rand) (*Sampler, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if d != 1 && d != 2 {
		return nil, algo.BadParam("dimension", d, "1 or 2")
	}
	if n := len(x0) / d; n < 1 || n > MaxParticle || len(x0)%d != 0 {
		return nil, algo.BadParam("particles", n, fmt.Sprintf("in 1..%d rows of %d values", MaxParticle, d))
	}
	if eps == nil || rng == nil {
		return nil, algo.BadParam("denoiser", eps, "a denoiser and a random source")
	}
	s := &Sampler{cfg: cfg, eps: eps, d: d, X: append([]float64(nil), x0...), rng: rng,
		cur: make([]float64, len(x0)), prev: make([]float64, len(x0))}
	s.levels = cfg.Levels()
	a, b := 1.0, s.levels[0]
	if cfg.vp() {
		a, b = s.ab(s.levels[0])
	}
	for i := range s.X {
		s.X[i] = a*s.X[i] + b*rng.NormFloat64()
	}
	return s, nil
}

func (c *SamplerConfig) vp() bool { return c.Method == SDE || c.Method == ODE }

func (c *SamplerConfig) validate() error {
	switch c.Method {
	case DDIM:
		c.Mu = 0
	case DDPM:
		c.Mu = 0.5
	case Family, SDE, ODE:
	default:
		return algo.BadParam("method", c.Method, fmt.Sprintf("one of %v", Methods))
	}
	if c.Steps < 1 || c.Steps > MaxSteps {
		return algo.BadParam("steps", c.Steps, fmt.Sprintf("in 1..%d", MaxSteps))
	}
	if c.vp() {
		if !(c.Beta > 0 && c.Beta <= MaxBeta) {
			return algo.BadParam("beta", c.Beta, fmt.Sprintf("in (0, %d]", MaxBeta))
		}
		if !(c.T > 0) || c.Beta*c.T > 4*MaxBeta {
			return algo.BadParam("T", c.T, fmt.Sprintf("> 0 with βT ≤ %d", 4*MaxBeta))
		}
		return nil
	}
	if c.Schedule != Linear && c.Schedule != Geometric {
		return algo.BadParam("schedule", c.Schedule, "linear or geometric")
	}
	if !(c.SigmaMax > 0 && c.SigmaMax <= MaxSigma) {
		return algo.BadParam("sigma_max", c.SigmaMax, fmt.Sprintf("in (0, %d]", MaxSigma))
	}
	if c.Schedule == Geometric && !(c.SigmaMin > 0 && c.SigmaMin < c.SigmaMax) {
		return algo.BadParam("sigma_min", c.SigmaMin, "in (0, σ_max)")
	}
	if !(c.Mu >= 0 && c.Mu <= MaxMu) {
		return algo.BadParam("mu", c.Mu, fmt.Sprintf("in [0, %g]", MaxMu))
	}
	if c.Gamma == 0 {
		c.Gamma = 1
	}
	if !(c.Gamma >= 1 && c.Gamma <= MaxGamma) {
		return algo.BadParam("gamma", c.Gamma, fmt.Sprintf("in [1, %d] (1: no extrapolation)", MaxGamma))
	}
	return nil
}

// Levels returns the schedule, Steps+1 levels from the top down to 0: the
// σ_i of the σ samplers, the times t_i of the OU samplers.
func (c SamplerConfig) Levels() []float64 {
	n := c.Steps
	l := make([]float64, n+1)
	for i := range n {
		f := float64(i) / float64(n)
		switch {
		case c.vp():
			l[i] = c.T * (1 - f)
		case c.Schedule == Geometric && n > 1:
			l[i] = c.SigmaMax * math.Pow(c.SigmaMin/c.SigmaMax, float64(i)/float64(n-1))
		case c.Schedule == Geometric:
			l[i] = c.SigmaMax
		default:
			l[i] = c.SigmaMax * (1 - f)
		}
	}
	return l
}

// ab are the OU process's a_t = e^{−βt/2} and b_t = √(1 − e^{−βt}):
// X_t = a_t X_0 + b_t ε (seed 001 [A29]).
func (s *Sampler) ab(t float64) (a, b float64) {
	return OU(s.cfg.Beta, t)
}

// OU returns a_t = e^{−βt/2} and b_t = √(1 − e^{−βt}) of the
// variance-preserving process dx = −½βx dt + √β dw: X_t = a_t X_0 + b_t ε.
func OU(beta, t float64) (a, b float64) {
	return math.Exp(-0.5 * beta * t), math.Sqrt(-math.Expm1(-beta * t))
}

// Done says whether the particles have reached the bottom level.
func (s *Sampler) Done() bool { return s.i >= len(s.levels)-1 }

// Level is the current noise level σ (or time t), and Index the steps taken.
func (s *Sampler) Level() float64 { return s.levels[s.i] }
func (s *Sampler) Index() int     { return s.i }

// Levels returns the schedule (shared; do not modify).
func (s *Sampler) Levels() []float64 { return s.levels }

// Sigma is the VE-equivalent noise level σ = b_t/a_t of the current level:
// the noise-to-signal ratio for both families.
func (s *Sampler) Sigma() float64 {
	if s.cfg.vp() {
		a, b := s.ab(s.levels[s.i])
		return b / a
	}
	return s.levels[s.i]
}

// Step moves every particle down one level. It returns algo.ErrConverged
// once the particles are at level 0.
func (s *Sampler) Step() error {
	if s.Done() {
		return algo.ErrConverged
	}
	if s.cfg.vp() {
		s.stepVP()
	} else {
		s.stepFamily()
	}
	s.cur, s.prev = s.prev, s.cur
	s.i++
	if !algo.AllFinite(s.X) {
		return algo.Diverged("a particle left the reals at level %d", s.i)
	}
	if s.Done() {
		return algo.ErrConverged
	}
	return nil
}

// stepFamily is eq 3.7 of seed 000 (L1228): with σ_t' = (σ_{t−1}/σ_t^μ)^{1/(1−μ)}
// — so that σ_{t−1} = σ_t^μ σ_t'^{1−μ}, a weighted geometric mean, a plain
// one only at μ = ½ (the notes' "geometric mean" at L1230, erratum 12) —
// x_{t−1} = x_t + (σ_t' − σ_t) ε̄ + η w with η = √(σ_{t−1}² − σ_t'²), so that
// the marginal noise level is σ_{t−1} whatever μ. At μ = 0, σ_t' = σ_{t−1}
// and η = 0: DDIM (eq 3.6). The step into σ_0 = 0 has σ_t' = 0.
func (s *Sampler) stepFamily() {
	st, sn := s.levels[s.i], s.levels[s.i+1]
	s.eps.Eps(s.cur, s.X, st)
	mu := s.cfg.Mu
	sp := sn
	if mu > 0 && sn > 0 {
		sp = math.Pow(sn/math.Pow(st, mu), 1/(1-mu))
	}
	eta := math.Sqrt(math.Max(0, sn*sn-sp*sp)) // clamped: rounding never makes it NaN
	g := s.cfg.Gamma
	if s.i == 0 {
		g = 1 // no earlier prediction to extrapolate from (catalogue §3.6)
	}
	dc, dp := (sp-st)*g, (sp-st)*(1-g)
	for j := range s.X {
		x := s.X[j] + dc*s.cur[j]
		if g != 1 {
			x += dp * s.prev[j]
		}
		if eta > 0 {
			x += eta * s.rng.NormFloat64()
		}
		s.X[j] = x
	}
}

// stepVP is one step h of the reverse OU process from t to t − h, with the
// score s(x, t) = −ε(x/a_t, b_t/a_t)/b_t of the denoiser (X_t/a_t =
// X_0 + (b_t/a_t)ε is the σ path at σ = b_t/a_t), f = −½βx, g = √β:
//
//	SDE: x ← x − [f − g² s]h + g√h ξ      ODE: x ← x − [f − ½g² s]h
//
// (seed 001 [A30], time running backwards; the sign of the drift and the
// √h on the noise are what the catalogue warns about, erratum E22).
func (s *Sampler) stepVP() {
	t, tn := s.levels[s.i], s.levels[s.i+1]
	h := t - tn
	a, b := s.ab(t)
	for j := range s.X {
		s.prev[j] = s.X[j] / a // scratch: the σ-path point
	}
	s.eps.Eps(s.cur, s.prev, b/a)
	beta := s.cfg.Beta
	k := 1.0 // the g² factor on the score: 1 for the SDE, ½ for the ODE
	if s.cfg.Method == ODE {
		k = 0.5
	}
	noise := math.Sqrt(beta * h)
	for j := range s.X {
		score := -s.cur[j] / b
		x := s.X[j] + (0.5*beta*s.X[j]+k*beta*score)*h
		if s.cfg.Method == SDE {
			x += noise * s.rng.NormFloat64()
		}
		s.X[j] = x
	}
}

// Eps returns the last prediction ε the sampler used (shared; valid until
// the next Step).
func (s *Sampler) Eps() []float64 { return s.prev }
