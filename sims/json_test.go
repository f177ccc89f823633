package sims

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// encodingJSON is what encoding/json writes for v, without HTML escaping.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// TestResultJSONIsEncodingJSON: on finite values the encoding is
// encoding/json's, byte for byte.
func TestResultJSONIsEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, 0, -12, "plain", "quote \" backslash \\ <tag> & \n\t\r\b\f \x01 \u2028 é \xff end",
		0.0, 1.0, -0.5, 1e-7, 1.5e-6, 123456789.125, 1e20, 1e21, 3.4e300, math.SmallestNonzeroFloat64, float32(0.1), float32(1e-7),
		[]float64{1, 2.5}, []float64(nil), [][]float64{{1}, {2, 3}}, [][][]float64{{{1, 2}}, {{3}}},
		[]int{1, 2}, []string{"a", "<b>"}, [][]string{{"x"}}, []any{1, "a", []float64{1}},
		[]map[string]any{{"b": 1, "a": 2.5}}, map[string]float64{"z": 1, "a": 2}, map[string]bool{"y": true},
		map[string]any{"k": map[string]any{"n": []any{nil, 1e-9}}, "a": nil},
		struct{ X int }{3}, [2]float64{1, 2}, uint8(7),
	}
	for _, v := range values {
		got, err := AppendResultJSON(nil, v)
		if err != nil {
			t.Errorf("%#v: %v", v, err)
			continue
		}
		if want := encodingJSON(t, v); string(got) != want {
			t.Errorf("%#v:\n got %s\nwant %s", v, got, want)
		}
	}
}

// TestResultJSONNonFinite: NaN and ±Inf become null wherever they are in
// the types Results use, and are an error in any other.
func TestResultJSONNonFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	v := map[string]any{"a": nan, "b": []float64{1, inf}, "c": [][]float64{{-inf}}, "d": []any{float32(nan)}, "e": map[string]float64{"x": nan}}
	got, err := AppendResultJSON(nil, v)
	if want := `{"a":null,"b":[1,null],"c":[[null]],"d":[null],"e":{"x":null}}`; err != nil || string(got) != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	if _, err := AppendResultJSON(nil, [2]float64{nan, 1}); err == nil {
		t.Error("a NaN in an array type was not an error")
	}
}
