package sims

import (
	"errors"
	"fmt"

	"github.com/thelab/lab/algo"
)

// Blamed maps an engine's argument to the sim parameter that feeds it (As).
type Blamed struct {
	arg   string
	param interface{ Name() string }
}

// As says that the engine's argument arg comes from the parameter p (a
// declaration of package param).
func As(arg string, p interface{ Name() string }) Blamed { return Blamed{arg, p} }

// Blame rewrites an engine's *algo.ParamError about one of the mapped
// arguments so that it names the sim's parameter, with the value the user
// gave it, and keeps the engine's reason: "parameter n = 10: must be both
// classes present (labels = 0 positive, 10 negative)". An engine names its
// own arguments; Blame is where a sim turns them into what the user typed.
// Other errors pass unchanged.
func Blame(err error, v Values, as ...Blamed) error {
	var pe *algo.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	for _, b := range as {
		if b.arg == pe.Name {
			name := b.param.Name()
			return &algo.ParamError{Name: name, Value: v.Text(name),
				Allowed: fmt.Sprintf("%s (%s = %v)", pe.Allowed, pe.Name, pe.Value)}
		}
	}
	return err
}

// Ranked is a parameter whose allowed values depend on another's (t_min
// below t_max): a declaration of package param, which knows whether the
// user set it.
type Ranked interface {
	Name() string
	IsSet(Values) bool
}

// Misordered is the error of two parameters out of order: lo must be
// below hi (strict) or at most hi. An engine that checks the pair names
// the upper one with the other's value as its bound ("t_max = 100: must
// be in (t_min = 1e+06, …]"), which blames a default the user never set
// when the user set only the other. Misordered blames the one the user
// set (hi when both were, or neither) and says where the other's value
// comes from: "parameter t_min = 1e+06: must be below t_max = 100 (its
// default)".
func Misordered(v Values, lo, hi Ranked, strict bool) error {
	below, above := "at most", "at least"
	if strict {
		below, above = "below", "above"
	}
	blame, other, rel := hi, lo, above
	if lo.IsSet(v) && !hi.IsSet(v) {
		blame, other, rel = lo, hi, below
	}
	from := "as set"
	if !other.IsSet(v) {
		from = "its default"
	}
	return &algo.ParamError{Name: blame.Name(), Value: v.Text(blame.Name()),
		Allowed: fmt.Sprintf("%s %s = %s (%s)", rel, other.Name(), v.Text(other.Name()), from)}
}
