// Package algo holds what every engine of the lab shares: the errors that
// end a run and the error that names a bad parameter.
//
// An engine lives in a sub-package named for its family (algo/optim,
// algo/mixture, algo/mcmc, ...). It is a plain struct built by a constructor
// that validates its inputs and returns a *ParamError for any value out of
// range, never panicking. Its Step method advances exactly one iteration (what
// one iteration is for each algorithm is listed in the catalogues under
// ../shared/notes). Randomness comes only from a *rand.Rand (math/rand/v2)
// handed in by the caller, so a run is a pure function of its inputs and seed.
// Engines never start goroutines, do no I/O and know nothing of the screen.
package algo

import (
	"errors"
	"fmt"
	"math"
)

// ErrConverged is returned by Step when the engine has met its stopping rule.
// The engine's state stays valid and readable.
var ErrConverged = errors.New("converged")

// ErrDiverged is returned (wrapped, with the reason) by Step when the iterate
// has become non-finite or has blown up. The engine's state is no longer
// meaningful.
var ErrDiverged = errors.New("diverged")

// Diverged returns an error that is ErrDiverged (for errors.Is) and reads
// as its reason, such as "f(x) = +Inf at step 12".
func Diverged(format string, args ...any) error {
	return divergedError(fmt.Sprintf(format, args...))
}

type divergedError string

func (e divergedError) Error() string        { return string(e) }
func (e divergedError) Is(target error) bool { return target == ErrDiverged }

// Finite reports whether x is a number: neither NaN nor ±Inf.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// SqDist is the squared Euclidean distance ‖a − b‖² of two points of one
// dimension (b at least as long as a).
func SqDist(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}

// AllFinite reports whether every value of x is Finite: the test behind
// most Diverged errors and most starting-point checks.
func AllFinite(x []float64) bool {
	for _, v := range x {
		if !Finite(v) {
			return false
		}
	}
	return true
}

// ParamError reports an argument of an engine whose value is outside its
// allowed range. A sim whose parameter feeds the argument under another name
// renames it (sims.Blame).
type ParamError struct {
	Name    string // the argument's name (a configuration field's, in lower snake case)
	Value   any    // the value that was refused
	Allowed string // the allowed range or set, e.g. "in (0, 10]"
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("parameter %s = %v: must be %s", e.Name, e.Value, e.Allowed)
}

// BadParam builds a *ParamError.
func BadParam(name string, value any, allowed string) error {
	return &ParamError{Name: name, Value: value, Allowed: allowed}
}

// IsParamError reports whether err is (or wraps) a *ParamError naming the
// parameter name.
func IsParamError(err error, name string) bool {
	var pe *ParamError
	return errors.As(err, &pe) && pe.Name == name
}
