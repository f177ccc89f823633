package param

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Values holds a validated, complete set of parameter values for one sim:
// what the user set and the defaults of the rest. A sim reads it through
// its declarations (lr.Get(v)). The zero Values has no parameters.
type Values struct {
	params   []Param
	text     map[string]string // canonical text of every parameter
	value    map[string]any    // typed value of every declared parameter
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
		switch {
		case user:
			if x, canon, err = p.parse(text); err != nil {
				return Values{}, err
			}
		case p.decl != nil:
			x, canon, err = p.decl.defaultAny(v)
		default:
			canon, err = p.literalDefault(v)
		}
		if err != nil {
			panic(fmt.Sprintf("param: default of %s does not validate: %v", p.Name, err))
		}
		v.text[p.Name] = canon
		if p.decl != nil {
			v.value[p.Name] = x
		}
		v.explicit[p.Name] = user
	}
	return v, nil
}

// literalDefault is the default of a Param written as a literal.
func (p Param) literalDefault(v Values) (string, error) {
	text := p.Default
	if p.DefaultFor != nil {
		if d := p.DefaultFor(v); d != "" {
			text = d
		}
	}
	return p.Parse(text)
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

// IsSet reports whether the user set the named parameter explicitly.
func (v Values) IsSet(name string) bool { return v.explicit[name] }

// Params lists the parameter descriptions.
func (v Values) Params() []Param { return v.params }

// Summary is "name=value ..." in declaration order, for status lines.
func (v Values) Summary() string {
	var b strings.Builder
	for i, p := range v.params {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s", p.Name, v.text[p.Name])
	}
	return b.String()
}

// Float returns a Float parameter written as a literal, by name.
//
// Deprecated: read a declaration's Get. Kept until the last literal
// parameters (mcmcsim, ldasim) are declared.
func (v Values) Float(name string) float64 {
	x, err := strconv.ParseFloat(v.must(name), 64)
	if err != nil {
		panic(err)
	}
	return x
}

// Int returns an Int parameter written as a literal, by name.
//
// Deprecated: read a declaration's Get.
func (v Values) Int(name string) int {
	n, err := strconv.Atoi(v.must(name))
	if err != nil {
		panic(err)
	}
	return n
}

// String returns a Choice or Text parameter written as a literal, by name.
//
// Deprecated: read a declaration's Get.
func (v Values) String(name string) string { return v.must(name) }

// Vector returns a Vector parameter written as a literal, by name.
//
// Deprecated: read a declaration's Get.
func (v Values) Vector(name string) []float64 {
	parts := strings.Split(v.must(name), ",")
	out := make([]float64, len(parts))
	for i, s := range parts {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			panic(err)
		}
		out[i] = x
	}
	return out
}

func (v Values) must(name string) string {
	t, ok := v.text[name]
	if !ok {
		panic(fmt.Sprintf("sims: no parameter %q", name))
	}
	return t
}
