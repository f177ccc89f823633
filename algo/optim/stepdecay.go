package optim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
)

// MaxDrops bounds the number of drops of a StepDecay.
const MaxDrops = 50

// StepDecay is the step-decay schedule of seed 001 §9 (L978–L980):
//
//	η_k = t₀ γ^{min(⌊k/T⌋, D)},   k = 0, 1, 2, ... the index of the update,
//
// the step multiplied by γ every T updates, D times. The notes' schedule is
// γ = 1/10, D = 2 with t₀ = T and t₁ = 2T: η₀ up to t₀, η₀/10 up to t₁ and
// η₀/100 after. The notes index it by epochs (L982); here k counts updates,
// as the other schedules do (catalogue [A14]: "indexed by epoch or by step
// consistently"): T = ⌊n/B⌋ is one epoch. After the last drop the step
// stays at t₀γ^D: with no end to the drops Σ η_k would be finite and the
// iterates could stop short of x*.
type StepDecay struct {
	T0     float64 // initial step t₀ > 0
	Factor float64 // γ in (0, 1]
	Every  int     // T ≥ 1 updates between drops
	Drops  int     // D in 0..MaxDrops
}

// NewStepDecay validates the schedule.
func NewStepDecay(t0, factor float64, every, drops int) (StepDecay, error) {
	switch {
	case !(t0 > 0) || math.IsInf(t0, 0):
		return StepDecay{}, algo.BadParam("lr", t0, "a finite number > 0")
	case !(factor > 0 && factor <= 1):
		return StepDecay{}, algo.BadParam("drop", factor, "in (0, 1]")
	case every < 1:
		return StepDecay{}, algo.BadParam("every", every, "≥ 1")
	case drops < 0 || drops > MaxDrops:
		return StepDecay{}, algo.BadParam("drops", drops, fmt.Sprintf("in 0..%d", MaxDrops))
	}
	return StepDecay{T0: t0, Factor: factor, Every: every, Drops: drops}, nil
}

// StepSize returns η_k, t₀ multiplied min(⌊k/T⌋, D) times by γ.
func (d StepDecay) StepSize(k int) float64 {
	t := d.T0
	for range min(k/d.Every, d.Drops) {
		t *= d.Factor
	}
	return t
}

// StepDecaySGD is mini-batch SGD whose step follows a StepDecay: before
// each update it sets the SGD's constant step to η_k, so the update is
// SGD's x ← x − η_k (1/|B|) Σ_{i∈B} ∇f_i(x) with its batches.
type StepDecaySGD struct {
	*SGD
	sched StepDecay
}

// NewStepDecaySGD is NewSGD with the schedule d (cfg's LR, Schedule and
// Decay are replaced by d's).
func NewStepDecaySGD(f FiniteSum, x0 []float64, cfg SGDConfig, d StepDecay, rng *rand.Rand) (*StepDecaySGD, error) {
	if _, err := NewStepDecay(d.T0, d.Factor, d.Every, d.Drops); err != nil {
		return nil, err
	}
	cfg.LR, cfg.Schedule, cfg.Decay = d.T0, Constant, 0
	s, err := NewSGD(f, x0, cfg, rng)
	if err != nil {
		return nil, err
	}
	return &StepDecaySGD{SGD: s, sched: d}, nil
}

// Step takes one update with step η_k.
func (s *StepDecaySGD) Step() error {
	s.SGD.cfg.LR = s.sched.StepSize(s.SGD.k)
	return s.SGD.Step()
}

// Batch is the mini-batch size B.
func (s *SGD) Batch() int { return s.cfg.Batch }

// Evaluations is the number of per-term gradients computed, B·k: the cost
// of the run in gradient evaluations (seed 001 L901–L903: a full step costs
// n, a stochastic one 1).
func (s *SGD) Evaluations() int { return s.cfg.Batch * s.k }

// Stepper is an SGD run, with a StepDecay or not.
type Stepper interface {
	Step() error
	X() []float64
	F() float64
	Iter() int
	LR() float64
	Batch() int
	Evaluations() int
}

// BatchRace runs mini-batch SGD at several batch sizes from one start on
// one finite sum and advances them by gradient evaluations rather than by
// updates: after Advance(e) calls totalling E evaluations, each run has
// taken ⌊E/B⌋ updates (B·⌊E/B⌋ ≤ E evaluations), so that their losses can
// be compared at equal cost (seed 001 §9, L974–L976: the mini-batch "trades
// off variance and computation cost"; catalogue [A14]).
type BatchRace struct {
	runs   []Stepper
	budget int
	stop   []error // the error that ended each run, nil while it runs
}

// NewBatchRace races the given runs (at least one, none nil).
func NewBatchRace(runs ...Stepper) (*BatchRace, error) {
	if len(runs) == 0 {
		return nil, algo.BadParam("runs", 0, "≥ 1")
	}
	for i, r := range runs {
		if r == nil {
			return nil, algo.BadParam("runs", fmt.Sprintf("run %d nil", i+1), "every run set")
		}
	}
	return &BatchRace{runs: runs, stop: make([]error, len(runs))}, nil
}

// Advance raises the budget by e ≥ 1 evaluations and steps every run that
// has not stopped until one more batch would pass it. A run whose Step
// fails (diverges) stops there; Advance returns an error only when every
// run has stopped.
func (r *BatchRace) Advance(e int) error {
	if e < 1 {
		return algo.BadParam("evaluations", e, "≥ 1")
	}
	r.budget += e
	live := 0
	for i, run := range r.runs {
		for r.stop[i] == nil && run.Evaluations()+run.Batch() <= r.budget {
			r.stop[i] = run.Step()
		}
		if r.stop[i] == nil {
			live++
		}
	}
	if live == 0 {
		return r.stop[0]
	}
	return nil
}

// Budget is the evaluations granted so far.
func (r *BatchRace) Budget() int { return r.budget }

// Runs returns the runs (a view).
func (r *BatchRace) Runs() []Stepper { return r.runs }

// Stopped returns the error that ended run i, nil while it runs.
func (r *BatchRace) Stopped(i int) error { return r.stop[i] }
