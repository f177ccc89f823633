// Package param declares a sim's parameters once, as typed values, and
// resolves what a user types (`--set`, the TUI's editor) against them.
//
// A sim declares each parameter as a package variable, with its default,
// its range (taken from the engine's exported bounds) and a line of help:
//
//	var (
//		kappa  = param.Float("kappa", 10, "condition number L/m").Range(optim.MinKappa, optim.MaxKappa)
//		method = param.Choice("method", methods, optim.GD, "update rule")
//		lr     = param.Float("lr", 0.1, "step size").Range(0, 10).OpenMin().
//			DefaultFunc(func(v param.Values) float64 { return 1 / kappa.Get(v) }, "1/L")
//	)
//
// lists them in its catalogue entry (Params: param.List(kappa, method, lr))
// and reads them as kappa.Get(cfg.Values). A misspelt parameter is a
// compile error; a choice is read as the engine's own enum, never compared
// as a string; a default that depends on other parameters is a typed
// function of them. `lab list`, `--set` and the editor read the Params that
// List derives from the same declarations, so help, ranges and defaults
// cannot drift apart.
package param

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Kind is the type of a parameter's value, as the user types it.
type Kind int

const (
	KindFloat  Kind = iota // a real number in [Min, Max] (or (Min, Max] with OpenMin)
	KindInt                // an integer in [Min, Max]
	KindChoice             // one of Choices (a Bool is the choice on|off)
	KindVector             // Len comma-separated reals, each in [Min, Max]
	KindText               // one line of free text, such as a file path (at most MaxText bytes)
)

// MaxText is the longest value of a Text parameter, in bytes.
const MaxText = 4096

// Param describes one parameter as `lab list`, `--set` and the TUI's editor
// see it: its name, type, range and help. A typed declaration (Float, Int,
// Choice, Bool, Vector, Text) makes it; List collects them for a Spec.
type Param struct {
	Name string
	Kind Kind
	Help string
	// DefaultNote describes a default that depends on other parameters,
	// for `lab list`, e.g. "1/L for quadratic, 0.001 for rosenbrock".
	DefaultNote string
	Min, Max    float64
	OpenMin     bool // Min itself is excluded
	Choices     []string
	Len         int // for KindVector
	// BuiltIn marks a parameter that only shapes the sim's built-in data
	// (its preset, size or noise): a --data file takes its place, so it
	// is left out of a summary of a run on a file and its help says so.
	BuiltIn bool
	// Live marks a parameter that changes how the running sim goes on
	// (a sampler's temperature), not what it was built from: a change of
	// live parameters alone retunes it in place (sims.Tuner), its state
	// kept, instead of building it again.
	Live bool

	decl declared // the typed declaration that made it
}

// declared is what Values needs of a typed declaration, whatever its type.
type declared interface {
	// parseAny checks a (trimmed) text and returns the typed value and its
	// canonical text; the error says why, without the parameter's name.
	parseAny(text string) (any, string, error)
	// defaultAny returns the default given the parameters before it.
	defaultAny(v Values) (any, string, error)
}

// Explained is the parameter's help as the user reads it (lab help, the
// editor): Help, and for a parameter of the built-in data that a --data
// file replaces, or a live one, a note saying so.
func (p Param) Explained() string {
	h := strings.TrimSpace(p.Help)
	if p.BuiltIn {
		h += " (--data replaces it)"
	}
	if p.Live {
		h += " (takes effect at once: the run goes on)"
	}
	return h
}

// Range describes the allowed values, e.g. "(0, 10]" or "gd|momentum".
func (p Param) Range() string {
	switch p.Kind {
	case KindChoice:
		return strings.Join(p.Choices, "|")
	case KindInt:
		return fmt.Sprintf("%s..%s", fmtWhole(p.Min), fmtWhole(p.Max))
	case KindVector:
		return fmt.Sprintf("%d values in %s", p.Len, p.interval())
	case KindText:
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

// fmtNum prints a number compactly and exactly: 10, 0.001, 1e+06.
func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// fmtWhole prints a bound of an integer parameter in digits, 10000000
// rather than 1e+07: the range shows the form a user types.
func fmtWhole(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// Parse checks text against the parameter's type and range and returns the
// canonical text of the value, or an error that names the parameter and
// says what is allowed.
func (p Param) Parse(text string) (string, error) {
	_, canon, err := p.parse(text)
	return canon, err
}

// parse is Parse that also returns the typed value.
func (p Param) parse(text string) (any, string, error) {
	text = strings.TrimSpace(text)
	x, canon, err := p.declared().parseAny(text)
	if err != nil {
		return nil, "", fmt.Errorf("parameter %s = %q: %v", p.Name, text, err)
	}
	return x, canon, nil
}

// declared is the declaration that made p. A Param not made by one (a
// literal) is a programming error: it panics with the name.
func (p Param) declared() declared {
	if p.decl == nil {
		panic(fmt.Sprintf("param: %s is not declared: make it with Float, Int, Choice, Bool, Vector or Text", p.Name))
	}
	return p.decl
}

// The parsers and checks of each kind, used by the declarations. Their
// errors read after "parameter name = text: ".

func (p *Param) choice(text string) (int, error) {
	if i := slices.Index(p.Choices, text); i >= 0 {
		return i, nil
	}
	return 0, errors.New("must be one of " + p.Range())
}

// integer reads a whole number, in digits or as a number whose value is
// whole (1e6, 2.0): a user who types the form a float takes means the
// same number.
func (p *Param) integer(text string) (int, error) {
	n, err := strconv.Atoi(text)
	if err == nil {
		return n, p.checkInt(n)
	}
	x, err := strconv.ParseFloat(text, 64)
	switch {
	case (err != nil && !errors.Is(err, strconv.ErrRange)) || x != math.Trunc(x):
		return 0, errors.New("must be a whole number in " + p.Range())
	case math.Abs(x) > 1<<53: // past 2⁵³ a float no longer holds every whole number
		return 0, errors.New("must be in " + p.Range())
	}
	return int(x), p.checkInt(int(x))
}

func (p *Param) checkInt(n int) error {
	if float64(n) < p.Min || float64(n) > p.Max {
		return errors.New("must be in " + p.Range())
	}
	return nil
}

func (p *Param) real(s string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("must be a number in %s", p.interval())
	}
	return x, p.checkReal(x)
}

func (p *Param) checkReal(x float64) error {
	if math.IsNaN(x) || x < p.Min || x > p.Max || (p.OpenMin && x == p.Min) {
		return fmt.Errorf("must be in %s", p.interval())
	}
	return nil
}

func (p *Param) vector(text string) ([]float64, error) {
	parts := strings.Split(text, ",")
	if len(parts) != p.Len {
		return nil, p.vectorLenError()
	}
	out := make([]float64, len(parts))
	for i, s := range parts {
		x, err := p.real(s)
		if err != nil {
			return nil, fmt.Errorf("value %d: %v", i+1, err)
		}
		out[i] = x
	}
	return out, nil
}

func (p *Param) vectorLenError() error {
	return fmt.Errorf("must be %d comma-separated numbers, each in %s", p.Len, p.interval())
}

func (p *Param) checkVector(x []float64) error {
	if len(x) != p.Len {
		return p.vectorLenError()
	}
	for i, xi := range x {
		if err := p.checkReal(xi); err != nil {
			return fmt.Errorf("value %d: %v", i+1, err)
		}
	}
	return nil
}

func (p *Param) checkText(text string) error {
	switch {
	case text == "":
		return errors.New("must not be empty")
	case len(text) > MaxText:
		return fmt.Errorf("must be at most %d bytes", MaxText)
	case strings.ContainsFunc(text, unicode.IsControl):
		return errors.New("must be one line of text")
	}
	return nil
}

// fmtVec is the canonical text of a vector: 1,-2.5.
func fmtVec(x []float64) string {
	out := make([]string, len(x))
	for i, xi := range x {
		out[i] = fmtNum(xi)
	}
	return strings.Join(out, ",")
}
