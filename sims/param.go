package sims

import "github.com/thelab/lab/sims/param"

// A sim's parameters are declared in package param; these names let the
// runtime, the TUI and the CLI speak of them without a second import.
type (
	// Param describes one parameter (param.Param).
	Param = param.Param
	// Values is a resolved set of parameter values (param.Values).
	Values = param.Values
	// Kind is the type of a parameter's value (param.Kind).
	Kind = param.Kind
)

// Resolve validates user-set values against params and fills in the
// defaults (param.Resolve).
func Resolve(params []Param, set map[string]string) (Values, error) {
	return param.Resolve(params, set)
}

// MaxText is the longest value of a Text parameter, in bytes.
const MaxText = param.MaxText
