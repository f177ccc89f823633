package param

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Decl is what List takes: a typed declaration (Float, Int, Choice, Bool,
// Vector, Text), or a group of them that several sims share (a kernel and
// its parameters, say), declared once with each sim's defaults.
type Decl interface {
	// Params are the parameters as `lab list`, `--set` and the editor see
	// them, in order.
	Params() []Param
}

// List returns the descriptions of decls, in order, for a Spec's Params. It
// panics on a repeated name or on a number declared without a range: both
// are programming errors, caught when the catalogue is built.
//
// Every sim calls List when the program starts (issue 14.7, start-up), so
// it allocates the one slice it returns: a typed declaration is copied in
// place rather than through the one-element slice its Params builds, and a
// group's Params are taken once, before the slice is sized.
func List(decls ...Decl) []Param {
	n := 0
	groups := make([][]Param, 0, 4) // on the stack: does not escape
	for _, d := range decls {
		if inPlace(d) != nil {
			n++
			continue
		}
		ps := d.Params()
		groups = append(groups, ps)
		n += len(ps)
	}
	out := make([]Param, 0, n)
	for _, d := range decls {
		if p := inPlace(d); p != nil {
			out = appendChecked(out, p)
			continue
		}
		for i := range groups[0] {
			out = appendChecked(out, &groups[0][i])
		}
		groups = groups[1:]
	}
	return out
}

// inPlace is the description of a typed declaration, or nil for a group.
// The non-generic kinds are told apart by a type switch, which, unlike
// the assertion to single that a choice needs, builds no itab.
func inPlace(d Decl) *Param {
	switch d := d.(type) {
	case *FloatDecl:
		return &d.p
	case *IntDecl:
		return &d.p
	case *BoolDecl:
		return &d.p
	case *VectorDecl:
		return &d.p
	case *TextDecl:
		return &d.p
	case single:
		return d.param()
	}
	return nil
}

// single is a typed declaration: one parameter, described in place.
type single interface{ param() *Param }

// appendChecked appends p to out after the checks List documents.
func appendChecked(out []Param, p *Param) []Param {
	for i := range out {
		if out[i].Name == p.Name {
			panic(fmt.Sprintf("param: %s is declared twice", p.Name))
		}
	}
	if (p.Kind == KindFloat || p.Kind == KindInt || p.Kind == KindVector) && !(p.Min <= p.Max) {
		panic(fmt.Sprintf("param: %s has no range", p.Name))
	}
	return append(out, *p)
}

// decl is what every typed declaration shares: its description, its
// default (fixed, or a function of the parameters listed before it) and how
// its values are parsed, checked and written.
type decl[T any] struct {
	p      Param
	def    T
	defFn  func(Values) T
	parse  func(p *Param, text string) (T, error)
	check  func(p *Param, x T) error
	format func(T) string
}

func newDecl[T any](name string, kind Kind, def T, help string,
	parse func(*Param, string) (T, error), check func(*Param, T) error, format func(T) string) decl[T] {
	return decl[T]{
		p:   Param{Name: name, Kind: kind, Help: help, Min: math.NaN(), Max: math.NaN()},
		def: def, parse: parse, check: check, format: format,
	}
}

// bind points the description at the declaration; called once the
// declaration has its final address.
func (d *decl[T]) bind() { d.p.decl = d }

// Name is the parameter's name, as the user types it.
func (d *decl[T]) Name() string { return d.p.Name }

// Param is the parameter's description.
func (d *decl[T]) Param() Param { return d.p }

// Params is the one-parameter list of the declaration.
func (d *decl[T]) Params() []Param { return []Param{d.p} }

// param is the description in place, for List.
func (d *decl[T]) param() *Param { return &d.p }

// Get returns the parameter's value in v. It panics when v's sim does not
// declare this parameter, or (inside a DefaultFunc) when it comes later in
// the list: both are programming errors in the sim, not bad input.
func (d *decl[T]) Get(v Values) T { return v.lookup(d, d.p.Name).(T) }

// IsSet reports whether the user set the parameter rather than its default.
func (d *decl[T]) IsSet(v Values) bool {
	v.lookup(d, d.p.Name)
	return v.explicit[d.p.Name]
}

// defaultFunc makes the default a function of the parameters listed before
// this one; note describes it for `lab list` and the editor.
func (d *decl[T]) defaultFunc(f func(Values) T, note string) {
	d.defFn, d.p.DefaultNote = f, note
}

// builtIn marks the parameter as shaping only the built-in data
// (Param.BuiltIn).
func (d *decl[T]) builtIn() { d.p.BuiltIn = true }

func (d *decl[T]) live() { d.p.Live = true }

// defaultWhen makes the default value when cond holds of the parameters
// listed before this one, and the declared default otherwise.
func (d *decl[T]) defaultWhen(cond func(Values) bool, value T, note string) {
	def := d.def
	d.defaultFunc(func(v Values) T {
		if cond(v) {
			return value
		}
		return def
	}, note)
}

func (d *decl[T]) parseAny(text string) (any, string, error) {
	x, err := d.parse(&d.p, text)
	if err != nil {
		return nil, "", err
	}
	return x, d.format(x), nil
}

func (d *decl[T]) defaultAny(v Values) (any, string, error) {
	x := d.def
	if d.defFn != nil {
		x = d.defFn(v)
	}
	if err := d.check(&d.p, x); err != nil {
		return nil, "", fmt.Errorf("parameter %s = %s: %v", d.p.Name, d.format(x), err)
	}
	return x, d.format(x), nil
}

// FloatDecl declares a real parameter.
type FloatDecl struct{ decl[float64] }

// Float declares a real parameter; give it a Range.
func Float(name string, def float64, help string) *FloatDecl {
	d := &FloatDecl{newDecl(name, KindFloat, def, help, (*Param).real, (*Param).checkReal, fmtNum)}
	d.bind()
	return d
}

// Range sets the allowed interval [lo, hi]; use the engine's exported
// bounds where the engine has them.
func (d *FloatDecl) Range(lo, hi float64) *FloatDecl {
	d.p.Min, d.p.Max = lo, hi
	return d
}

// OpenMin excludes the lower bound: (lo, hi].
func (d *FloatDecl) OpenMin() *FloatDecl {
	d.p.OpenMin = true
	return d
}

// DefaultFunc makes the default a function of the parameters listed before
// this one; note says what it is for `lab list`.
func (d *FloatDecl) DefaultFunc(f func(Values) float64, note string) *FloatDecl {
	d.defaultFunc(f, note)
	return d
}

// DefaultWhen makes the default value when cond holds of the parameters
// listed before this one (a preset, say), and the declared default
// otherwise; note says so for `lab list`.
func (d *FloatDecl) DefaultWhen(cond func(Values) bool, value float64, note string) *FloatDecl {
	d.defaultWhen(cond, value, note)
	return d
}

// BuiltInData marks the parameter as shaping only the built-in data: a
// --data file takes its place (Param.BuiltIn).
func (d *FloatDecl) BuiltInData() *FloatDecl {
	d.builtIn()
	return d
}

// Live marks the parameter as retuning the running sim in place
// (Param.Live); its sims implement sims.Tuner.
func (d *FloatDecl) Live() *FloatDecl {
	d.live()
	return d
}

// IntDecl declares an integer parameter.
type IntDecl struct{ decl[int] }

// Int declares an integer parameter; give it a Range.
func Int(name string, def int, help string) *IntDecl {
	d := &IntDecl{newDecl(name, KindInt, def, help, (*Param).integer, (*Param).checkInt, strconv.Itoa)}
	d.bind()
	return d
}

// Range sets the allowed values lo..hi.
func (d *IntDecl) Range(lo, hi int) *IntDecl {
	d.p.Min, d.p.Max = float64(lo), float64(hi)
	return d
}

// DefaultFunc makes the default a function of the parameters listed before
// this one; note says what it is for `lab list`.
func (d *IntDecl) DefaultFunc(f func(Values) int, note string) *IntDecl {
	d.defaultFunc(f, note)
	return d
}

// DefaultWhen makes the default value when cond holds of the parameters
// listed before this one (a preset, say), and the declared default
// otherwise; note says so for `lab list`.
func (d *IntDecl) DefaultWhen(cond func(Values) bool, value int, note string) *IntDecl {
	d.defaultWhen(cond, value, note)
	return d
}

// BuiltInData marks the parameter as shaping only the built-in data: a
// --data file takes its place (Param.BuiltIn).
func (d *IntDecl) BuiltInData() *IntDecl {
	d.builtIn()
	return d
}

// Live marks the parameter as retuning the running sim in place
// (Param.Live); its sims implement sims.Tuner.
func (d *IntDecl) Live() *IntDecl {
	d.live()
	return d
}

// Enum is what a choice is made of: a comparable value, usually an
// engine's own enum, whose String is the text the user types.
type Enum interface {
	comparable
	String() string
}

// Option is a menu entry that is either one of an engine's own values or an
// option the sim builds itself (a finite sum, another engine, a kernel made
// of kernels): exactly one of Engine and Own is set. Its String is Own, or
// Engine's.
type Option[T Enum] struct {
	Engine T
	Own    string
}

func (o Option[T]) String() string {
	if o.Own != "" {
		return o.Own
	}
	return o.Engine.String()
}

// ChoiceDecl declares a parameter that takes one of a list of values.
type ChoiceDecl[T Enum] struct{ decl[T] }

// Choice declares a parameter that takes one of options, in menu order;
// each is typed as its String. It panics when def is not an option or two
// options read the same.
func Choice[T Enum](name string, options []T, def T, help string) *ChoiceDecl[T] {
	options = slices.Clone(options)
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.String()
		if slices.Contains(names[:i], names[i]) {
			panic(fmt.Sprintf("param: %s offers %q twice", name, names[i]))
		}
	}
	parse := func(p *Param, text string) (T, error) {
		i, err := p.choice(text)
		if err != nil {
			var zero T
			return zero, err
		}
		return options[i], nil
	}
	check := func(p *Param, x T) error {
		if !slices.Contains(options, x) {
			return fmt.Errorf("must be one of %s", p.Range())
		}
		return nil
	}
	d := &ChoiceDecl[T]{newDecl(name, KindChoice, def, help, parse, check, T.String)}
	d.p.Choices = names
	d.bind()
	if err := check(&d.p, def); err != nil {
		panic(fmt.Sprintf("param: default of %s: %v", name, err))
	}
	return d
}

// DefaultFunc makes the default a function of the parameters listed before
// this one; note says what it is for `lab list`.
func (d *ChoiceDecl[T]) DefaultFunc(f func(Values) T, note string) *ChoiceDecl[T] {
	d.defaultFunc(f, note)
	return d
}

// DefaultWhen makes the default value when cond holds of the parameters
// listed before this one (a preset, say), and the declared default
// otherwise; note says so for `lab list`.
func (d *ChoiceDecl[T]) DefaultWhen(cond func(Values) bool, value T, note string) *ChoiceDecl[T] {
	d.defaultWhen(cond, value, note)
	return d
}

// BuiltInData marks the parameter as shaping only the built-in data: a
// --data file takes its place (Param.BuiltIn).
func (d *ChoiceDecl[T]) BuiltInData() *ChoiceDecl[T] {
	d.builtIn()
	return d
}

// BoolDecl declares a switch, typed on or off.
type BoolDecl struct{ decl[bool] }

// The texts of a Bool.
const (
	On  = "on"
	Off = "off"
)

// Bool declares a switch, typed on or off.
func Bool(name string, def bool, help string) *BoolDecl {
	parse := func(p *Param, text string) (bool, error) {
		i, err := p.choice(text)
		return i == 0, err
	}
	check := func(*Param, bool) error { return nil }
	format := func(b bool) string {
		if b {
			return On
		}
		return Off
	}
	d := &BoolDecl{newDecl(name, KindChoice, def, help, parse, check, format)}
	d.p.Choices = []string{On, Off}
	d.bind()
	return d
}

// DefaultFunc makes the default a function of the parameters listed before
// this one; note says what it is for `lab list`.
func (d *BoolDecl) DefaultFunc(f func(Values) bool, note string) *BoolDecl {
	d.defaultFunc(f, note)
	return d
}

// DefaultWhen makes the default value when cond holds of the parameters
// listed before this one (a preset, say), and the declared default
// otherwise; note says so for `lab list`.
func (d *BoolDecl) DefaultWhen(cond func(Values) bool, value bool, note string) *BoolDecl {
	d.defaultWhen(cond, value, note)
	return d
}

// VectorDecl declares a vector of reals, typed comma-separated.
type VectorDecl struct{ decl[[]float64] }

// BuiltInData marks the parameter as shaping only the built-in data: a
// --data file takes its place (Param.BuiltIn).
func (d *VectorDecl) BuiltInData() *VectorDecl {
	d.builtIn()
	return d
}

// Vector declares a vector of len(def) reals; give it a Range for every
// component. Get returns a fresh slice.
func Vector(name string, def []float64, help string) *VectorDecl {
	d := &VectorDecl{newDecl(name, KindVector, slices.Clone(def), help, (*Param).vector, (*Param).checkVector, fmtVec)}
	d.p.Len = len(def)
	d.bind()
	return d
}

// Range sets the interval [lo, hi] of every component.
func (d *VectorDecl) Range(lo, hi float64) *VectorDecl {
	d.p.Min, d.p.Max = lo, hi
	return d
}

// DefaultFunc makes the default a function of the parameters listed before
// this one; note says what it is for `lab list`.
func (d *VectorDecl) DefaultFunc(f func(Values) []float64, note string) *VectorDecl {
	d.defaultFunc(f, note)
	return d
}

// DefaultWhen makes the default value when cond holds of the parameters
// listed before this one (a preset, say), and the declared default
// otherwise; note says so for `lab list`.
func (d *VectorDecl) DefaultWhen(cond func(Values) bool, value []float64, note string) *VectorDecl {
	d.defaultWhen(cond, value, note)
	return d
}

// Get returns the vector as a fresh slice.
func (d *VectorDecl) Get(v Values) []float64 { return slices.Clone(d.decl.Get(v)) }

// TextDecl declares one line of free text, such as a file name.
type TextDecl struct{ decl[string] }

// Text declares one line of free text (at most MaxText bytes). A parameter
// that names a file must follow the lab's rule for visitors of `lab serve`.
func Text(name string, def string, help string) *TextDecl {
	parse := func(p *Param, text string) (string, error) { return text, p.checkText(text) }
	d := &TextDecl{newDecl(name, KindText, def, help, parse, (*Param).checkText, func(s string) string { return s })}
	d.bind()
	return d
}

// DefaultFunc makes the default a function of the parameters listed before
// this one (a preset's expression, say); note says what it is for `lab
// list`.
func (d *TextDecl) DefaultFunc(f func(Values) string, note string) *TextDecl {
	d.defaultFunc(f, note)
	return d
}

// Sig is x rounded to n significant decimal digits: a computed default
// (1/L, say) is shown as 0.384615 and runs as the value shown.
func Sig(x float64, n int) float64 {
	y, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	if err != nil {
		return x
	}
	return y
}
