package ancestral

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// Dynamics names the transition and observation functions of a state-space
// model.
type Dynamics int

const (
	// Nonlinear is the classic benchmark of the particle-filter literature
	// that the seed-002 catalogue (item C2) suggests, since the notes give
	// no f or h: f(z) = z/2 + 25z/(1 + z²), h(z) = z²/20. The state hops
	// between two wells near ±7 and h cannot tell them apart.
	Nonlinear Dynamics = iota
	// Linear is f(z) = a·z, h(z) = z: the linear-Gaussian case whose posterior
	// is tractable (Example 3.3, L1009), with stationary variance
	// Var z = q²/(1 − a²).
	Linear
)

// SSMConfig is a one-dimensional state-space model (Example 3.3, seed 002
// L993–1009):
//
//	z_1 ~ N(0, q²),  z_t = f(z_{t−1}) + ε_t,  x_t = h(z_t) + η_t,
//	ε_t ~ N(0, q²),  η_t ~ N(0, r²).
type SSMConfig struct {
	Dynamics Dynamics
	A        float64 // the coefficient of the Linear f, |A| < 1
	Q        float64 // process noise standard deviation q > 0
	R        float64 // observation noise standard deviation r > 0
}

// SSM draws a state-space model forward in time, one (z_t, x_t) per Step.
type SSM struct {
	cfg  SSMConfig
	rng  *rand.Rand
	t    int
	z, x float64
}

// NewSSM validates the model.
func NewSSM(cfg SSMConfig, rng *rand.Rand) (*SSM, error) {
	if cfg.Dynamics != Nonlinear && cfg.Dynamics != Linear {
		return nil, algo.BadParam("dynamics", cfg.Dynamics, "nonlinear or linear")
	}
	if cfg.Dynamics == Linear && !(math.Abs(cfg.A) < 1) {
		return nil, algo.BadParam("a", cfg.A, "in (−1, 1) (a stable linear model)")
	}
	if !(cfg.Q > 0) || math.IsInf(cfg.Q, 0) {
		return nil, algo.BadParam("q", cfg.Q, "finite and > 0")
	}
	if !(cfg.R > 0) || math.IsInf(cfg.R, 0) {
		return nil, algo.BadParam("r", cfg.R, "finite and > 0")
	}
	if rng == nil {
		return nil, algo.BadParam("rng", "nil", "a non-nil *rand.Rand")
	}
	return &SSM{cfg: cfg, rng: rng}, nil
}

// F is the transition function f.
func (s *SSM) F(z float64) float64 {
	if s.cfg.Dynamics == Linear {
		return s.cfg.A * z
	}
	return z/2 + 25*z/(1+z*z)
}

// H is the observation function h.
func (s *SSM) H(z float64) float64 {
	if s.cfg.Dynamics == Linear {
		return z
	}
	return z * z / 20
}

// Step draws z_t from p(z_t | z_{t−1}) (from p(z_1) at t = 1), then x_t from
// p(x_t | z_t).
func (s *SSM) Step() error {
	if s.t == 0 {
		s.z = s.cfg.Q * s.rng.NormFloat64()
	} else {
		s.z = s.F(s.z) + s.cfg.Q*s.rng.NormFloat64()
	}
	s.x = s.H(s.z) + s.cfg.R*s.rng.NormFloat64()
	s.t++
	if !algo.Finite(s.z) || !algo.Finite(s.x) {
		return algo.Diverged("state %v, observation %v at t = %d", s.z, s.x, s.t)
	}
	return nil
}

// T is the number of time steps drawn.
func (s *SSM) T() int { return s.t }

// Last returns (z_t, x_t).
func (s *SSM) Last() (z, x float64) { return s.z, s.x }

// Config is the model.
func (s *SSM) Config() SSMConfig { return s.cfg }

// String names the dynamics.
func (d Dynamics) String() string {
	switch d {
	case Nonlinear:
		return "nonlinear"
	case Linear:
		return "linear"
	}
	return fmt.Sprintf("Dynamics(%d)", int(d))
}
