package simtest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/thelab/lab/sims"
)

// Strings lists every string a Frame holds, each with where it is: its
// text lines, metric names, and in each chart every string field at any
// depth (titles, axis labels, legends, series and point-set names, bar
// labels, table cells, image captions and labels, graph nodes) and each
// marker's glyph. It walks the Frame by reflection, so a field added to a
// chart is walked too.
func Strings(f sims.Frame) map[string]string {
	out := map[string]string{}
	walkStrings(reflect.ValueOf(f), "frame", out)
	return out
}

var glyphType = reflect.TypeFor[sims.Marker]()

func walkStrings(v reflect.Value, at string, out map[string]string) {
	switch v.Kind() {
	case reflect.String:
		out[at] = v.String()
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			walkStrings(v.Elem(), at, out)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Float64 {
			return // data, not text
		}
		for i := range v.Len() {
			walkStrings(v.Index(i), fmt.Sprintf("%s[%d]", at, i), out)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := fmt.Sprint(iter.Key())
			walkStrings(iter.Key(), at+" key "+k, out)
			walkStrings(iter.Value(), at+"."+k, out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			name := at + "." + v.Type().Field(i).Name
			if v.Type() == glyphType && v.Type().Field(i).Name == "Glyph" {
				out[name] = string(rune(v.Field(i).Int()))
				continue
			}
			walkStrings(v.Field(i), name, out)
		}
	}
}

// Unprintable is the first character of s that must not reach a terminal
// from data (a C0 or C1 control, DEL, a format character such as a bidi
// control or a zero-width joiner, a line or paragraph separator, a
// private-use code point, invalid UTF-8 as utf8.RuneError), and false when
// there is none. It judges by the Unicode categories alone, independently
// of sims.Visible, which it checks.
func Unprintable(s string) (rune, bool) {
	if !utf8.ValidString(s) {
		return utf8.RuneError, true
	}
	for _, r := range s {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co) {
			return r, true
		}
	}
	return 0, false
}

// CheckText fails t for every string of f (Strings) and of the result
// (keys and values at any depth) that is not valid UTF-8, holds a
// character that Unprintable finds, or is not as wide by grapheme clusters
// as by code points (a table of it would not align on every terminal),
// and unless the result's JSON, as `lab run --json` writes it
// (sims.AppendResultJSON), is valid UTF-8 and JSON. It returns all the
// strings, for a test to look for what it expects.
func CheckText(t testing.TB, f sims.Frame, result map[string]any) []string {
	t.Helper()
	var all []string
	check := func(at, s string) {
		t.Helper()
		all = append(all, s)
		if r, bad := Unprintable(s); bad {
			t.Errorf("%s: %s = %q holds %U", f.Sim, at, s, r)
		}
		if g, wc := ansi.StringWidth(s), ansi.StringWidthWc(s); g != wc {
			t.Errorf("%s: %s = %q: %d cells by grapheme clusters, %d by code points", f.Sim, at, s, g, wc)
		}
	}
	for at, s := range Strings(f) {
		check(at, s)
	}
	res := map[string]string{}
	walkStrings(reflect.ValueOf(result), "result", res)
	for at, s := range res {
		check(at, s)
	}
	js, err := sims.AppendResultJSON(nil, result)
	if err != nil {
		t.Fatalf("%s: result: %v", f.Sim, err)
	}
	if !utf8.Valid(js) {
		t.Errorf("%s: the result's JSON is not UTF-8", f.Sim)
	}
	if !json.Valid(js) {
		t.Errorf("%s: the result is not valid JSON: %s", f.Sim, js)
	}
	return all
}
