package param

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// letter is a test enum: a choice reads as the sim's own type.
type letter int

const (
	letterA letter = iota
	letterB
)

func (l letter) String() string { return [...]string{"a", "b"}[l] }

var (
	tFn = Choice("fn", []letter{letterA, letterB}, letterA, "function")
	tK  = Int("k", 3, "count").Range(1, 10)
	tLR = Float("lr", 0.5, "step").Range(0, 1).OpenMin().
		DefaultFunc(func(v Values) float64 {
			if tFn.Get(v) == letterB {
				return 0.01
			}
			return 0.5
		}, "0.01 for b")
	tX0   = Vector("x0", []float64{1, -1}, "start").Range(-5, 5)
	tBias = Bool("bias", true, "intercept").
		DefaultWhen(func(v Values) bool { return tFn.Get(v) == letterB }, false, "off for b")
	testParams = List(tFn, tK, tLR, tX0, tBias)
)

func TestResolveDefaults(t *testing.T) {
	v, err := Resolve(testParams, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tFn.Get(v) != letterA || tK.Get(v) != 3 || tLR.Get(v) != 0.5 || !tBias.Get(v) {
		t.Errorf("defaults: got %s", v.Summary(false))
	}
	if x := tX0.Get(v); len(x) != 2 || x[0] != 1 || x[1] != -1 {
		t.Errorf("x0 = %v", x)
	}
	if tFn.IsSet(v) || v.IsSet("fn") {
		t.Error("a default reported as set by the user")
	}
	if got := v.Summary(false); got != "fn=a k=3 lr=0.5 x0=1,-1 bias=on" {
		t.Errorf("summary %q", got)
	}
}

// TestSummaryOnFile: a run on a --data file is summarised without the
// parameters that only shape the built-in data, whatever their kind.
func TestSummaryOnFile(t *testing.T) {
	preset := Choice("preset", []letter{letterA, letterB}, letterA, "built-in data").BuiltInData()
	n := Int("n", 100, "points").Range(1, 1000).BuiltInData()
	noise := Float("noise", 0.1, "noise").Range(0, 1).BuiltInData()
	lr := Float("lr", 0.5, "step").Range(0, 1)
	v, err := Resolve(List(preset, n, lr, noise), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		onFile bool
		want   string
	}{{false, "preset=a n=100 lr=0.5 noise=0.1"}, {true, "lr=0.5"}} {
		if got := v.Summary(c.onFile); got != c.want {
			t.Errorf("Summary(%v) = %q, want %q", c.onFile, got, c.want)
		}
	}
	if !n.Param().BuiltIn || lr.Param().BuiltIn {
		t.Error("BuiltIn marks the wrong parameters")
	}
}

func TestResolveDependentDefault(t *testing.T) {
	v, err := Resolve(testParams, map[string]string{"fn": "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tLR.Get(v); got != 0.01 {
		t.Errorf("lr follows fn=b: got %v, want 0.01", got)
	}
	if tBias.Get(v) || v.Text("bias") != "off" {
		t.Errorf("bias follows fn=b: got %v (%q)", tBias.Get(v), v.Text("bias"))
	}
	// An explicit lr wins over the dependent default, and survives With.
	v, _ = Resolve(testParams, map[string]string{"lr": "0.2"})
	v, err = v.With("fn", "b")
	if err != nil {
		t.Fatal(err)
	}
	if got := tLR.Get(v); got != 0.2 || !tLR.IsSet(v) {
		t.Errorf("explicit lr after With(fn): got %v, want 0.2", got)
	}
}

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		set  map[string]string
		want []string // fragments the message must contain
	}{
		{map[string]string{"nope": "1"}, []string{`unknown parameter "nope"`, "fn, k, lr, x0"}},
		{map[string]string{"fn": "c"}, []string{"fn", "a|b"}},
		{map[string]string{"k": "0"}, []string{"parameter k", "1..10"}},
		{map[string]string{"k": "2.5"}, []string{"parameter k", "whole number"}},
		{map[string]string{"k": "1e1000"}, []string{"parameter k", "must be in 1..10"}},
		{map[string]string{"k": "1e+02"}, []string{"parameter k", "must be in 1..10"}},
		{map[string]string{"k": "NaN"}, []string{"parameter k", "whole number"}},
		{map[string]string{"lr": "0"}, []string{"parameter lr", "(0, 1]"}},
		{map[string]string{"lr": "NaN"}, []string{"parameter lr", "number"}},
		{map[string]string{"lr": "abc"}, []string{"parameter lr"}},
		{map[string]string{"x0": "1"}, []string{"parameter x0", "2 comma-separated"}},
		{map[string]string{"x0": "1,9"}, []string{"parameter x0", "value 2", "[-5, 5]"}},
		{map[string]string{"bias": "yes"}, []string{"parameter bias", "on|off"}},
	}
	for _, tt := range tests {
		_, err := Resolve(testParams, tt.set)
		if err == nil {
			t.Errorf("%v: no error", tt.set)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", tt.set, err, w)
			}
		}
	}
}

// TestIntTakesWholeNumbersInAnyForm: an integer typed as a float's text
// (the form of 1e+07, as a range printed it before) is that integer, and
// ranges print integers in digits.
func TestIntTakesWholeNumbersInAnyForm(t *testing.T) {
	big := Int("cap", 10000, "iterations").Range(100, 10_000_000)
	params := List(big)
	if got := params[0].Range(); got != "100..10000000" {
		t.Errorf("Range() = %q, want 100..10000000", got)
	}
	for text, want := range map[string]string{"1e+07": "10000000", "1e7": "10000000", "2.5e3": "2500", "300.0": "300", " 400 ": "400"} {
		v, err := Resolve(params, map[string]string{"cap": text})
		if err != nil || v.Text("cap") != want || strconv.Itoa(big.Get(v)) != want {
			t.Errorf("cap=%s: %q, %v; want %s", text, v.Text("cap"), err, want)
		}
	}
}

func TestParamRange(t *testing.T) {
	for _, tt := range []struct {
		p    Param
		want string
	}{
		{testParams[0], "a|b"},
		{testParams[1], "1..10"},
		{testParams[2], "(0, 1]"},
		{testParams[3], "2 values in [-5, 5]"},
		{testParams[4], "on|off"},
	} {
		if got := tt.p.Range(); got != tt.want {
			t.Errorf("%s: Range() = %q, want %q", tt.p.Name, got, tt.want)
		}
	}
	if testParams[2].DefaultNote != "0.01 for b" {
		t.Errorf("note %q", testParams[2].DefaultNote)
	}
}

// TestTextParam: a Text parameter takes one line of text, trimmed; an empty,
// multi-line or over-long value is refused with the parameter's name.
func TestTextParam(t *testing.T) {
	corpus := Text("corpus", "planted", "documents")
	p := corpus.Param()
	if p.Range() != "text" {
		t.Errorf("range %q", p.Range())
	}
	if got, err := p.Parse("  my docs/file one.txt "); err != nil || got != "my docs/file one.txt" {
		t.Errorf("Parse: %q, %v", got, err)
	}
	for _, bad := range []string{"", "   ", "two\nlines", "tab\there", strings.Repeat("x", MaxText+1)} {
		if _, err := p.Parse(bad); err == nil || !strings.Contains(err.Error(), "corpus") {
			t.Errorf("Parse(%.20q): got %v, want an error naming corpus", bad, err)
		}
	}
	v, err := Resolve(List(corpus), map[string]string{"corpus": "a.txt"})
	if err != nil || corpus.Get(v) != "a.txt" || !corpus.IsSet(v) {
		t.Errorf("Resolve: %v, %v", v.Summary(false), err)
	}
	// A text's default can follow an earlier parameter (a preset's
	// expression), unless the text was typed.
	preset := Choice("preset", []letter{letterA, letterB}, letterA, "which")
	expr := Text("expr", "", "expression").DefaultFunc(func(v Values) string { return "f_" + preset.Get(v).String() }, "the preset's")
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{{nil, "f_a"}, {map[string]string{"preset": "b"}, "f_b"}, {map[string]string{"preset": "b", "expr": "x"}, "x"}} {
		if v, err := Resolve(List(preset, expr), tc.set); err != nil || expr.Get(v) != tc.want {
			t.Errorf("%v: expr %q (%v), want %q", tc.set, expr.Get(v), err, tc.want)
		}
	}
}

// TestVectorFresh: Get returns a copy, so a sim may scale its start in place.
func TestVectorFresh(t *testing.T) {
	v, _ := Resolve(testParams, nil)
	tX0.Get(v)[0] = 99
	if tX0.Get(v)[0] != 1 {
		t.Error("Get shares the stored vector")
	}
}

// TestMisuse: reading a parameter the sim does not list, or a later one
// from a default, or listing one twice, is a programming error that panics
// with the parameter's name.
func TestMisuse(t *testing.T) {
	other := Float("lr", 1, "another lr").Range(0, 2)
	late := Int("late", 1, "").Range(0, 9)
	early := Int("early", 1, "").Range(0, 9).DefaultFunc(func(v Values) int { return late.Get(v) }, "")
	unranged := Float("free", 1, "")
	v, _ := Resolve(testParams, nil)
	for name, f := range map[string]func(){
		"not listed":     func() { tK.Get(Values{}) },
		"same name":      func() { other.Get(v) },
		"later default":  func() { _, _ = Resolve(List(early, late), nil) },
		"listed twice":   func() { List(tK, tK) },
		"no range":       func() { List(unranged) },
		"bad default":    func() { Choice("fn", []letter{letterA}, letterB, "") },
		"repeated names": func() { Choice("fn", []letter{letterA, letterA}, letterA, "") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestSig(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		n    int
		want float64
	}{
		{1 / 2.6, 6, 0.384615}, {0.1, 6, 0.1}, {1.0 / 3, 2, 0.33}, {12345678, 3, 12300000},
	} {
		if got := Sig(tt.x, tt.n); got != tt.want {
			t.Errorf("Sig(%v, %d) = %v, want %v", tt.x, tt.n, got, tt.want)
		}
	}
	if !math.IsInf(Sig(math.Inf(1), 6), 1) {
		t.Error("Sig(+Inf)")
	}
}

// TestUndeclared: a Param not made by a declaration is a programming
// error that panics with its name, when resolved or parsed.
func TestUndeclared(t *testing.T) {
	literal := Param{Name: "s", Kind: KindFloat, Min: 0, Max: 1}
	for name, f := range map[string]func(){
		"resolve": func() { _, _ = Resolve([]Param{literal}, nil) },
		"parse":   func() { _, _ = literal.Parse("0.5") },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "s is not declared") {
					t.Errorf("%s: recovered %v, want a panic naming s", name, r)
				}
			}()
			f()
		}()
	}
}

// pair is a test group: two declarations listed as one.
type pair struct{ a, b *FloatDecl }

func (p pair) Params() []Param { return List(p.a, p.b) }

// TestGroupAndOption: a group of declarations is listed like one; an
// Option menu mixes an engine's enum with the sim's own entries, typed as
// their Strings.
func TestGroupAndOption(t *testing.T) {
	g := pair{Float("a", 1, "").Range(0, 2), Float("b", 2, "").Range(0, 2)}
	type menu = Option[letter]
	own := menu{Own: "mine"}
	m := Choice("m", []menu{{Engine: letterA}, {Engine: letterB}, own}, menu{Engine: letterB}, "")
	params := List(tK, g, m)
	if len(params) != 4 || params[1].Name != "a" || params[2].Name != "b" || params[3].Range() != "a|b|mine" {
		t.Fatalf("params %v", params)
	}
	v, err := Resolve(params, map[string]string{"b": "0.5", "m": "mine"})
	if err != nil || g.a.Get(v) != 1 || g.b.Get(v) != 0.5 || m.Get(v) != own {
		t.Errorf("group and option: %s, %v", v.Summary(false), err)
	}
	if v, _ := Resolve(params, nil); m.Get(v).Engine != letterB || v.Text("m") != "b" {
		t.Errorf("option default: %s", v.Summary(false))
	}
	defer func() {
		if recover() == nil {
			t.Error("a group listed twice did not panic")
		}
	}()
	List(g, g)
}
