package opt

import (
	"fmt"
	"math"
	"slices"

	"github.com/thelab/lab/algo"
)

// Kind names a learning-rate schedule.
type Kind string

// The schedules, for the update t = 0, 1, 2, … and base rate η₀:
//
//	constant  η_t = η₀
//	step      η_t = η₀ γ^⌊t/k⌋                         (k = Every, γ = Gamma)
//	cosine    η_t = η₀ (f + (1 − f) ½(1 + cos(π min(t′, T′)/T′)))
//	          with t′ = t − W and T′ = Total − W: from η₀ down to f·η₀ (f = MinFrac)
//
// and, for any kind, a linear warmup over the first W = Warmup updates:
// η_t ← η_t (t + 1)/W for t < W.
const (
	Constant  Kind = "constant"
	StepDecay Kind = "step"
	Cosine    Kind = "cosine"
)

// kinds are the schedules Check accepts.
var kinds = []Kind{Constant, StepDecay, Cosine}

// Schedule is a learning-rate schedule; the zero value is constant.
type Schedule struct {
	Kind    Kind
	Every   int     // step: updates between decays (≥ 1)
	Gamma   float64 // step: decay factor in (0, 1]
	Total   int     // cosine: updates until the floor (> Warmup)
	MinFrac float64 // cosine: the floor as a fraction of η₀, in [0, 1]
	Warmup  int     // updates of linear warmup (≥ 0)
}

func (s Schedule) validate() error {
	kind := s.Kind
	if kind == "" {
		kind = Constant
	}
	if !slices.Contains(kinds, kind) {
		return algo.BadParam("schedule", s.Kind, fmt.Sprintf("one of %v", kinds))
	}
	if s.Warmup < 0 {
		return algo.BadParam("warmup", s.Warmup, "≥ 0")
	}
	switch kind {
	case StepDecay:
		if s.Every < 1 {
			return algo.BadParam("every", s.Every, "≥ 1")
		}
		if !(s.Gamma > 0 && s.Gamma <= 1) {
			return algo.BadParam("gamma", s.Gamma, "in (0, 1]")
		}
	case Cosine:
		if s.Total <= s.Warmup {
			return algo.BadParam("total", s.Total, fmt.Sprintf("> warmup (%d)", s.Warmup))
		}
		if !(s.MinFrac >= 0 && s.MinFrac <= 1) {
			return algo.BadParam("min_frac", s.MinFrac, "in [0, 1]")
		}
	}
	return nil
}

// Rate is η_t for base rate eta0.
func (s Schedule) Rate(eta0 float64, t int) float64 {
	r := eta0
	switch s.Kind {
	case StepDecay:
		if s.Every >= 1 {
			r *= math.Pow(s.Gamma, float64(t/s.Every))
		}
	case Cosine:
		if T := s.Total - s.Warmup; T > 0 {
			p := min(float64(max(t-s.Warmup, 0))/float64(T), 1)
			r *= s.MinFrac + (1-s.MinFrac)*0.5*(1+math.Cos(math.Pi*p))
		}
	}
	if t < s.Warmup {
		r *= float64(t+1) / float64(s.Warmup)
	}
	return r
}
