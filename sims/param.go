package sims

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Kind is the type of a parameter's value.
type Kind int

const (
	Float  Kind = iota // a real number in [Min, Max] (or (Min, Max] with OpenMin)
	Int                // an integer in [Min, Max]
	Choice             // one of Choices
	Vector             // Len comma-separated reals, each in [Min, Max]
	Text               // one line of free text, such as a file path (at most MaxText bytes)
)

// MaxText is the longest value of a Text parameter, in bytes.
const MaxText = 4096

// Param describes one parameter of a sim: its name, type, default, range and
// a line of help. The same description drives `lab list`, the TUI's
// parameter editor and the validation of `--set`.
type Param struct {
	Name string
	Kind Kind
	Help string
	// Default is the value's text when nothing else sets it.
	Default string
	// DefaultFor, when set, gives a default that depends on the other
	// parameters (the step size that suits the chosen function, say). It
	// may read only parameters listed before this one. Returning "" means
	// Default.
	DefaultFor func(v Values) string
	// DefaultNote describes DefaultFor for `lab list`, e.g.
	// "1/L for quadratic, 0.001 for rosenbrock".
	DefaultNote string
	Min, Max    float64
	OpenMin     bool // Min itself is excluded
	Choices     []string
	Len         int // for Vector
}

// Range describes the allowed values, e.g. "(0, 10]" or "gd|momentum".
func (p Param) Range() string {
	switch p.Kind {
	case Choice:
		return strings.Join(p.Choices, "|")
	case Int:
		return fmt.Sprintf("%s..%s", fmtNum(p.Min), fmtNum(p.Max))
	case Vector:
		return fmt.Sprintf("%d values in %s", p.Len, p.interval())
	case Text:
		return "text"
	default:
		return p.interval()
	}
}

func (p Param) interval() string {
	lo := "["
	if p.OpenMin {
		lo = "("
	}
	return fmt.Sprintf("%s%s, %s]", lo, fmtNum(p.Min), fmtNum(p.Max))
}

// fmtNum prints a bound compactly: 10, 0.001, 1e+06.
func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Parse checks text against the parameter's type and range and returns the
// canonical text of the value, or an error that names the parameter and
// says what is allowed.
func (p Param) Parse(text string) (string, error) {
	text = strings.TrimSpace(text)
	bad := func(why string) error {
		return fmt.Errorf("parameter %s = %q: %s", p.Name, text, why)
	}
	switch p.Kind {
	case Choice:
		if slices.Contains(p.Choices, text) {
			return text, nil
		}
		return "", bad("must be one of " + p.Range())
	case Int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return "", bad("must be a whole number in " + p.Range())
		}
		if float64(n) < p.Min || float64(n) > p.Max {
			return "", bad("must be in " + p.Range())
		}
		return strconv.Itoa(n), nil
	case Text:
		switch {
		case text == "":
			return "", bad("must not be empty")
		case len(text) > MaxText:
			return "", bad(fmt.Sprintf("must be at most %d bytes", MaxText))
		case strings.ContainsFunc(text, unicode.IsControl):
			return "", bad("must be one line of text")
		}
		return text, nil
	case Vector:
		parts := strings.Split(text, ",")
		if len(parts) != p.Len {
			return "", bad(fmt.Sprintf("must be %d comma-separated numbers, each in %s", p.Len, p.interval()))
		}
		out := make([]string, len(parts))
		for i, s := range parts {
			x, err := p.parseReal(s)
			if err != nil {
				return "", bad(fmt.Sprintf("value %d: %v", i+1, err))
			}
			out[i] = fmtNum(x)
		}
		return strings.Join(out, ","), nil
	default:
		x, err := p.parseReal(text)
		if err != nil {
			return "", bad(err.Error())
		}
		return fmtNum(x), nil
	}
}

func (p Param) parseReal(s string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("must be a number in %s", p.interval())
	}
	if x < p.Min || x > p.Max || (p.OpenMin && x == p.Min) {
		return 0, fmt.Errorf("must be in %s", p.interval())
	}
	return x, nil
}

// Values holds a validated, complete set of parameter values for one spec.
// The zero Values has no parameters.
type Values struct {
	params   []Param
	text     map[string]string // canonical text of every parameter
	explicit map[string]bool   // set by the user rather than by a default
}

// Resolve validates user-set values (name -> text) against params and fills
// every other parameter with its default. An unknown name or a value out of
// range is an error that names the parameter and its allowed range.
func Resolve(params []Param, set map[string]string) (Values, error) {
	v := Values{params: params, text: map[string]string{}, explicit: map[string]bool{}}
	for name := range set {
		if !slices.ContainsFunc(params, func(p Param) bool { return p.Name == name }) {
			return Values{}, fmt.Errorf("unknown parameter %q (this sim has: %s)", name, paramNames(params))
		}
	}
	for _, p := range params {
		text, user := set[p.Name]
		if !user {
			text = p.Default
			if p.DefaultFor != nil {
				if d := p.DefaultFor(v); d != "" {
					text = d
				}
			}
		}
		canon, err := p.Parse(text)
		if err != nil {
			if !user {
				panic(fmt.Sprintf("sims: default of %s does not validate: %v", p.Name, err))
			}
			return Values{}, err
		}
		v.text[p.Name] = canon
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

// Text returns a parameter's canonical text ("" if there is none).
func (v Values) Text(name string) string { return v.text[name] }

// IsSet reports whether the user set the parameter explicitly.
func (v Values) IsSet(name string) bool { return v.explicit[name] }

// Params lists the parameter descriptions.
func (v Values) Params() []Param { return v.params }

// Float returns a Float parameter. It panics on a name the spec does not
// declare: that is a programming error in the sim, not bad input.
func (v Values) Float(name string) float64 {
	x, err := strconv.ParseFloat(v.must(name), 64)
	if err != nil {
		panic(err)
	}
	return x
}

// Int returns an Int parameter.
func (v Values) Int(name string) int {
	n, err := strconv.Atoi(v.must(name))
	if err != nil {
		panic(err)
	}
	return n
}

// String returns a Choice or Text parameter.
func (v Values) String(name string) string { return v.must(name) }

// Vector returns a Vector parameter as a fresh slice.
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
