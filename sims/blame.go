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
