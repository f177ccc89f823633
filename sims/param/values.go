package param

import (
	"fmt"
	"slices"
	"strings"
)

// Values holds a validated, complete set of parameter values for one sim:
// what the user set and the defaults of the rest. A sim reads it through
// its declarations (lr.Get(v)). The zero Values has no parameters.
type Values struct {
	params   []Param
	text     map[string]string // canonical text of every parameter
	value    map[string]any    // typed value of every parameter
	explicit map[string]bool   // set by the user rather than by a default
}

// Resolve validates user-set values (name -> text) against params and fills
// every other parameter with its default, in order, so that a default may
// depend on the parameters before it. An unknown name or a value out of
// range is an error that names the parameter and its allowed range.
func Resolve(params []Param, set map[string]string) (Values, error) {
	v := Values{params: params, text: map[string]string{}, value: map[string]any{}, explicit: map[string]bool{}}
	for name := range set {
		if !slices.ContainsFunc(params, func(p Param) bool { return p.Name == name }) {
			return Values{}, fmt.Errorf("unknown parameter %q (this sim has: %s)", name, paramNames(params))
		}
	}
	for _, p := range params {
		text, user := set[p.Name]
		var (
			x     any
			canon string
			err   error
		)
		if user {
			if x, canon, err = p.parse(text); err != nil {
				return Values{}, err
			}
		} else if x, canon, err = p.declared().defaultAny(v); err != nil {
			panic(fmt.Sprintf("param: default of %s does not validate: %v", p.Name, err))
		}
		v.text[p.Name] = canon
		v.value[p.Name] = x
		v.explicit[p.Name] = user
	}
	return v, nil
}

func paramNames(params []Param) string {
	if len(params) == 0 {
		return "no parameters"
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// lookup returns the typed value of the parameter that d declares.
func (v Values) lookup(d declared, name string) any {
	i := slices.IndexFunc(v.params, func(p Param) bool { return p.Name == name })
	if i < 0 || v.params[i].decl != d {
		panic(fmt.Sprintf("param: %s is not a parameter of this sim (it has: %s)", name, paramNames(v.params)))
	}
	x, ok := v.value[name]
	if !ok {
		panic(fmt.Sprintf("param: %s is read before it is resolved: a default may read only the parameters listed before it", name))
	}
	return x
}

// IsZero reports whether v holds no parameters (the zero Values).
func (v Values) IsZero() bool { return v.params == nil }

// With returns the values with name set to text, re-deriving the defaults of
// the parameters that the user has not set. The receiver is unchanged.
func (v Values) With(name, text string) (Values, error) {
	set := v.Explicit()
	set[name] = text
	return Resolve(v.params, set)
}

// Explicit returns the values the user set (a fresh map).
func (v Values) Explicit() map[string]string {
	m := map[string]string{}
	for name, ok := range v.explicit {
		if ok {
			m[name] = v.text[name]
		}
	}
	return m
}

// Text returns a parameter's canonical text ("" if there is none), for
// display: a sim reads its values through its declarations.
func (v Values) Text(name string) string { return v.text[name] }

// IsSet reports whether the user set the named parameter explicitly (for
// the editor: a sim asks its declaration).
func (v Values) IsSet(name string) bool { return v.explicit[name] }

// Params lists the parameter descriptions.
func (v Values) Params() []Param { return v.params }

// Summary is "name=value ..." in declaration order, for status lines;
// of a run on a --data file (onFile), without the parameters that only
// shape the built-in data (Param.BuiltIn), which the file replaces.
func (v Values) Summary(onFile bool) string {
	var b strings.Builder
	for _, p := range v.params {
		if onFile && p.BuiltIn {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s", p.Name, v.text[p.Name])
	}
	return b.String()
}
