package sims

import (
	"strings"
	"testing"
)

var testParams = []Param{
	{Name: "fn", Kind: Choice, Choices: []string{"a", "b"}, Default: "a"},
	{Name: "k", Kind: Int, Min: 1, Max: 10, Default: "3"},
	{Name: "lr", Kind: Float, Min: 0, OpenMin: true, Max: 1, Default: "0.5",
		DefaultFor: func(v Values) string {
			if v.String("fn") == "b" {
				return "0.01"
			}
			return ""
		}},
	{Name: "x0", Kind: Vector, Len: 2, Min: -5, Max: 5, Default: "1,-1"},
}

func TestResolveDefaults(t *testing.T) {
	v, err := Resolve(testParams, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.String("fn") != "a" || v.Int("k") != 3 || v.Float("lr") != 0.5 {
		t.Errorf("defaults: got %s", v.Summary())
	}
	if x := v.Vector("x0"); len(x) != 2 || x[0] != 1 || x[1] != -1 {
		t.Errorf("x0 = %v", x)
	}
	if v.IsSet("fn") {
		t.Error("a default reported as set by the user")
	}
}

func TestResolveDependentDefault(t *testing.T) {
	v, err := Resolve(testParams, map[string]string{"fn": "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Float("lr"); got != 0.01 {
		t.Errorf("lr follows fn=b: got %v, want 0.01", got)
	}
	// An explicit lr wins over the dependent default, and survives With.
	v, _ = Resolve(testParams, map[string]string{"lr": "0.2"})
	v, err = v.With("fn", "b")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Float("lr"); got != 0.2 {
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
		{map[string]string{"lr": "0"}, []string{"parameter lr", "(0, 1]"}},
		{map[string]string{"lr": "NaN"}, []string{"parameter lr", "number"}},
		{map[string]string{"lr": "abc"}, []string{"parameter lr"}},
		{map[string]string{"x0": "1"}, []string{"parameter x0", "2 comma-separated"}},
		{map[string]string{"x0": "1,9"}, []string{"parameter x0", "value 2", "[-5, 5]"}},
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

func TestParamRange(t *testing.T) {
	for _, tt := range []struct {
		p    Param
		want string
	}{
		{testParams[0], "a|b"},
		{testParams[1], "1..10"},
		{testParams[2], "(0, 1]"},
		{testParams[3], "2 values in [-5, 5]"},
	} {
		if got := tt.p.Range(); got != tt.want {
			t.Errorf("%s: Range() = %q, want %q", tt.p.Name, got, tt.want)
		}
	}
}

// TestTextParam: a Text parameter takes one line of text, trimmed; an empty,
// multi-line or over-long value is refused with the parameter's name.
func TestTextParam(t *testing.T) {
	p := Param{Name: "corpus", Kind: Text, Default: "planted"}
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
	v, err := Resolve([]Param{p}, map[string]string{"corpus": "a.txt"})
	if err != nil || v.String("corpus") != "a.txt" || !v.IsSet("corpus") {
		t.Errorf("Resolve: %v, %v", v.Summary(), err)
	}
}
