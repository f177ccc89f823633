// Package gradcheck compares a gradient computed by automatic
// differentiation with central finite differences (gonum diff/fd), entry
// by entry, and flags the entries whose difference stencil straddles a
// kink (relu, abs, a max), where a finite difference does not measure the
// derivative at all.
package gradcheck

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
	"gonum.org/v1/gonum/diff/fd"
)

// Settings of a check. Zero values take the defaults.
type Settings struct {
	// Step is the finite-difference step h (default 1e-5): the central
	// difference (f(x + h e_i) − f(x − h e_i))/2h has truncation error
	// h² f‴/6 and rounding error about ε|f|/h, both near 1e-10 here.
	Step float64
	// Floor is the smallest denominator of the relative error (default
	// 1e-3), so that entries near 0 are judged by their absolute error.
	Floor float64
}

func (s *Settings) defaults() (h, floor float64, err error) {
	h, floor = 1e-5, 1e-3
	if s != nil {
		if s.Step != 0 {
			h = s.Step
		}
		if s.Floor != 0 {
			floor = s.Floor
		}
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return 0, 0, algo.BadParam("step", h, "a finite number > 0")
	}
	if !(floor > 0) || math.IsInf(floor, 0) {
		return 0, 0, algo.BadParam("floor", floor, "a finite number > 0")
	}
	return h, floor, nil
}

// Result of a check.
type Result struct {
	AD, FD []float64 // the two gradients
	// Rel is each entry's relative error |AD − FD| / max(|AD|, |FD|, Floor).
	Rel []float64
	// Kink marks entries whose two evaluations x ± h e_i took a different
	// branch at some kink than x itself: their FD is not a derivative.
	Kink []bool
	// MaxRel and MaxAbs are the largest relative and absolute errors over
	// the entries not marked Kink; Worst is the entry of MaxRel (−1 if
	// none).
	MaxRel, MaxAbs float64
	Worst          int
	// Kinks counts the marked entries.
	Kinks int
}

// Func checks grad, the AD gradient of f at x, against central
// differences of f (x is restored afterwards). f must not keep x.
func Func(f func(x []float64) float64, grad, x []float64, s *Settings) (*Result, error) {
	return WithKinks(func(x []float64) (float64, uint64) { return f(x), 0 }, grad, x, s)
}

// WithKinks is Func for an f that also returns a hash of the branches it
// took at kinks (tensor.Tape.Kinks): an entry is marked Kink when either
// evaluation of its stencil hashes differently from x.
func WithKinks(f func(x []float64) (float64, uint64), grad, x []float64, s *Settings) (*Result, error) {
	c, err := NewChecker(f, grad, x, s)
	if err != nil {
		return nil, err
	}
	return c.Run()
}

// Checker compares a gradient with central differences one entry per
// Step, for a pane to fill a histogram of relative errors as it goes.
// Result is the comparison so far: MaxRel, MaxAbs, Worst and Kinks cover
// the Checked entries, and the others' AD values with zero FD and Rel.
type Checker struct {
	f        func(x []float64) (float64, uint64)
	x        []float64
	settings *fd.Settings
	floor    float64
	h0       uint64
	after    func(x []float64) // called with x restored after each entry
	err      func() error      // an evaluation error to report, if any
	r        *Result
	i        int
}

// NewChecker prepares the check of grad, the AD gradient of f at x
// (WithKinks' arguments). f is evaluated once here; x is perturbed one
// entry at a time and restored after each.
func NewChecker(f func(x []float64) (float64, uint64), grad, x []float64, s *Settings) (*Checker, error) {
	h, floor, err := s.defaults()
	if err != nil {
		return nil, err
	}
	n := len(x)
	if len(grad) != n || n == 0 {
		return nil, algo.BadParam("grad", len(grad), fmt.Sprintf("%d entries (one per x), at least one", n))
	}
	if !algo.AllFinite(x) || !algo.AllFinite(grad) {
		return nil, algo.BadParam("x, grad", "non-finite", "finite numbers")
	}
	c := &Checker{f: f, x: x, settings: &fd.Settings{Formula: fd.Central, Step: h}, floor: floor,
		r: &Result{AD: append([]float64(nil), grad...), FD: make([]float64, n), Rel: make([]float64, n),
			Kink: make([]bool, n), Worst: -1}}
	_, c.h0 = f(x)
	return c, nil
}

// Len is the number of entries; Checked the number compared so far.
func (c *Checker) Len() int     { return len(c.x) }
func (c *Checker) Checked() int { return c.i }

// Result is the comparison so far (shared: it changes with every Step).
func (c *Checker) Result() *Result { return c.r }

// Step compares the next entry: two evaluations of f. It returns
// algo.ErrConverged when every entry has been compared, or an evaluation
// error.
func (c *Checker) Step() error {
	if c.i >= len(c.x) {
		return algo.ErrConverged
	}
	i, r, x := c.i, c.r, c.x
	xi := x[i]
	kink := false
	r.FD[i] = fd.Derivative(func(t float64) float64 {
		x[i] = xi + t
		v, hash := c.f(x)
		kink = kink || hash != c.h0
		return v
	}, 0, c.settings)
	x[i] = xi
	if c.after != nil {
		c.after(x)
	}
	c.i++
	if c.err != nil {
		if err := c.err(); err != nil {
			return err
		}
	}
	abs := math.Abs(r.AD[i] - r.FD[i])
	r.Rel[i] = abs / max(math.Abs(r.AD[i]), math.Abs(r.FD[i]), c.floor)
	if kink {
		r.Kink[i] = true
		r.Kinks++
		return nil
	}
	if r.Worst < 0 || !(r.Rel[i] <= r.MaxRel) { // a NaN counts as worst
		r.MaxRel, r.Worst = r.Rel[i], i
	}
	r.MaxAbs = max(r.MaxAbs, abs)
	return nil
}

// Run compares every remaining entry and returns the result.
func (c *Checker) Run() (*Result, error) {
	for {
		if err := c.Step(); err == algo.ErrConverged {
			return c.r, nil
		} else if err != nil {
			return nil, err
		}
	}
}

// Model checks the gradient of a scalar model built on a tensor.Tape with
// respect to params. build records the model on the tape it is given and
// returns the loss; it is called once for AD (Backward) and twice per
// parameter entry for the differences, with the tape rewound each time and
// kink tracking on. Parameters are restored afterwards.
func Model(build func(tp *tensor.Tape) *tensor.Tensor, params []*tensor.Tensor, s *Settings) (*Result, error) {
	c, err := NewModelChecker(build, params, s)
	if err != nil {
		return nil, err
	}
	return c.Run()
}

// NewModelChecker is Model one parameter entry per Step: params hold their
// own values again after every Step.
func NewModelChecker(build func(tp *tensor.Tape) *tensor.Tensor, params []*tensor.Tensor, s *Settings) (*Checker, error) {
	tp := tensor.NewTape()
	tp.TrackKinks(true)
	loss := build(tp)
	if err := tp.Backward(loss); err != nil {
		return nil, err
	}
	var x, grad []float64
	for _, p := range params {
		if p.Grad == nil {
			return nil, algo.BadParam("params", "a tensor without Grad", "tensors with gradients")
		}
		x = append(x, p.Data...)
		grad = append(grad, p.Grad...)
	}
	set := func(x []float64) {
		k := 0
		for _, p := range params {
			k += copy(p.Data, x[k:])
		}
	}
	var evalErr error
	f := func(x []float64) (float64, uint64) {
		set(x)
		tp.Rewind()
		v := build(tp).Item()
		if err := tp.Err(); err != nil && evalErr == nil {
			evalErr = err
		}
		hash, _ := tp.Kinks()
		return v, hash
	}
	c, err := NewChecker(f, grad, x, s)
	if err != nil {
		return nil, err
	}
	c.after = set
	c.err = func() error { return evalErr }
	return c, nil
}
