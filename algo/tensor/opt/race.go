package opt

import (
	"errors"
	"fmt"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// Objective is a function of a few variables with its gradient; the test
// functions of algo/optim are Objectives.
type Objective interface {
	Func(x []float64) float64
	Grad(grad, x []float64)
}

// MaxRacers bounds a race.
const MaxRacers = 8

// Race runs optimisers side by side from one start on one objective (seed
// 002 Remark 6.3): each Step updates every optimiser once, with the same
// update code that trains the networks. An optimiser that diverges stops
// where it is, with its reason, and the others run on.
type Race struct {
	f     Objective
	racer []*racer
	steps int
}

type racer struct {
	p    *tensor.Tensor
	o    *Optimizer
	fx   float64
	prev []float64 // the iterate before the step, restored if it diverges
	err  error     // why it stopped
}

// NewRace starts one optimiser per configuration at x0.
func NewRace(f Objective, x0 []float64, cfgs []Config) (*Race, error) {
	if len(cfgs) < 1 || len(cfgs) > MaxRacers {
		return nil, algo.BadParam("optimizers", len(cfgs), fmt.Sprintf("in 1..%d", MaxRacers))
	}
	if len(x0) == 0 || !algo.AllFinite(x0) {
		return nil, algo.BadParam("x0", fmt.Sprint(x0), "finite numbers")
	}
	r := &Race{f: f}
	for _, c := range cfgs {
		p, err := tensor.New(len(x0))
		if err != nil {
			return nil, err
		}
		copy(p.Data, x0)
		o, err := New([]*tensor.Tensor{p}, c)
		if err != nil {
			return nil, err
		}
		r.racer = append(r.racer, &racer{p: p, o: o, fx: f.Func(x0), prev: make([]float64, len(x0))})
	}
	return r, nil
}

// Step updates every optimiser still running. It returns an ErrDiverged
// error once all of them have stopped.
func (r *Race) Step() error {
	r.steps++
	running := 0
	for _, q := range r.racer {
		if q.err != nil {
			continue
		}
		r.f.Grad(q.p.Grad, q.p.Data)
		copy(q.prev, q.p.Data)
		if err := q.o.Step(); err != nil {
			q.err = err
			copy(q.p.Data, q.prev)
			continue
		}
		q.fx = r.f.Func(q.p.Data)
		if !algo.Finite(q.fx) {
			q.err = algo.Diverged("f = %g at step %d", q.fx, r.steps)
			copy(q.p.Data, q.prev)
			q.fx = r.f.Func(q.prev)
			continue
		}
		running++
	}
	if running == 0 {
		return algo.Diverged("every optimiser has diverged")
	}
	return nil
}

// Steps is the number of Steps taken.
func (r *Race) Steps() int { return r.steps }

// Len is the number of optimisers.
func (r *Race) Len() int { return len(r.racer) }

// X is optimiser i's iterate (shared: copy it to keep it).
func (r *Race) X(i int) []float64 { return r.racer[i].p.Data }

// F is f at optimiser i's iterate.
func (r *Race) F(i int) float64 { return r.racer[i].fx }

// Stopped is why optimiser i stopped (nil while it runs).
func (r *Race) Stopped(i int) error { return r.racer[i].err }

// Diverged reports whether optimiser i stopped because it diverged.
func (r *Race) Diverged(i int) bool { return errors.Is(r.racer[i].err, algo.ErrDiverged) }
