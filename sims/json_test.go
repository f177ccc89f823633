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

// TestMetricsJSON: metrics are written under their declared keys in
// display order; one without a value (Undefined, or not finite) is null
// and its reason is under "undefined"; a metric not declared keeps its
// name.
func TestMetricsJSON(t *testing.T) {
	spec := &Spec{Name: "s", Metrics: []MetricDecl{
		DeclareAs("ε one", "eps_one", "ε of one release"),
		Declare("grad_norm", "‖∇f‖"),
		DeclareAs("batch loss", "batch_loss", "the last batch's loss"),
	}}
	for _, c := range []struct {
		ms   []Metric
		want string
	}{
		{[]Metric{{Name: "ε one", Value: 2.5}, {Name: "grad_norm", Value: 1e-7}},
			`"metrics":{"eps_one":2.5,"grad_norm":1e-07}`},
		{[]Metric{{Name: "ε one", Undefined: "σ = 0: \"not\" private"}, {Name: "grad_norm", Value: 3}, {Name: "batch loss", Value: math.NaN()}},
			`"metrics":{"eps_one":null,"grad_norm":3,"batch_loss":null},"undefined":{"eps_one":"σ = 0: \"not\" private","batch_loss":"not a number (NaN)"}`},
		{[]Metric{{Name: "grad_norm", Value: math.Inf(-1)}, {Name: "other", Value: 1}},
			`"metrics":{"grad_norm":null,"other":1},"undefined":{"grad_norm":"infinite (-Inf)"}`},
		{nil, `"metrics":{}`},
	} {
		got := string(spec.AppendMetricsJSON(nil, c.ms))
		if got != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.ms, got, c.want)
		}
		if !json.Valid([]byte("{" + got + "}")) {
			t.Errorf("%s is not JSON", got)
		}
	}
}

// TestMetricDeclarations: NewCatalog refuses a key that is not an ASCII
// identifier, a name or key declared twice and a declaration without a
// meaning.
func TestMetricDeclarations(t *testing.T) {
	spec := func(ds ...MetricDecl) *Spec {
		return &Spec{Name: "s", Size: func(Config) int64 { return 0 }, Metrics: ds}
	}
	for _, c := range []struct {
		spec *Spec
		ok   bool
	}{
		{spec(Declare("loss", "the loss"), DeclareAs("ε one", "eps_one", "ε"), DeclareAs("W₂", "W2", "W2")), true},
		{spec(), true},
		{spec(Declare("batch loss", "a space")), false},
		{spec(DeclareAs("ε", "ε", "not ASCII")), false},
		{spec(DeclareAs("e", "1e", "a digit first")), false},
		{spec(DeclareAs("e", "_e", "an underscore first")), false},
		{spec(DeclareAs("e", "", "no key")), false},
		{spec(Declare("loss", "")), false},
		{spec(Declare("loss", "a"), DeclareAs("loss", "loss2", "b")), false},
		{spec(DeclareAs("a", "k", "a"), DeclareAs("b", "k", "b")), false},
	} {
		_, err := NewCatalog(c.spec)
		if (err == nil) != c.ok {
			t.Errorf("%v: error %v, want ok = %v", c.spec.Metrics, err, c.ok)
		}
	}
}

// TestMetricOr: a finite value is the metric; NaN and ±Inf are the metric
// undefined for the reason given, shown — and not scaled.
func TestMetricOr(t *testing.T) {
	for _, c := range []struct {
		x   float64
		why string
	}{{1.5, ""}, {0, ""}, {math.NaN(), "no draw yet"}, {math.Inf(1), "no draw yet"}} {
		m := MetricOr("MC", c.x, "no draw yet")
		if m.Undefined != c.why || m.Why() != c.why || (c.why == "" && m.Value != c.x) || (c.why != "" && m.Value != 0) {
			t.Errorf("MetricOr(%v) = %+v", c.x, m)
		}
	}
}
