package sims

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendResultJSON appends v, a Sim's Result or a value in it, as JSON:
// byte for byte what an encoding/json Encoder with SetEscapeHTML(false)
// writes, except that a float that is not finite, which JSON cannot hold,
// is written null. It is the one JSON encoding of results (`lab run`'s
// --json and text output). The types Results are made of are written
// here; any other type is handed to encoding/json, so a non-finite float
// inside one is an error.
func AppendResultJSON(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case string:
		return appendString(dst, v), nil
	case float64:
		return appendFloat(dst, v, 64), nil
	case float32:
		return appendFloat(dst, float64(v), 32), nil
	case []float64:
		return appendList(dst, v)
	case [][]float64:
		return appendList(dst, v)
	case [][][]float64:
		return appendList(dst, v)
	case []int:
		return appendList(dst, v)
	case []string:
		return appendList(dst, v)
	case [][]string:
		return appendList(dst, v)
	case []any:
		return appendList(dst, v)
	case []map[string]any:
		return appendList(dst, v)
	case map[string]any:
		return appendObject(dst, v)
	case map[string]float64:
		return appendObject(dst, v)
	case map[string]bool:
		return appendObject(dst, v)
	case map[string]string:
		return appendObject(dst, v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...), nil
}

// AppendMetricsJSON appends a Frame's metrics as JSON object members:
// "metrics", an object of each metric's key (Spec.Metrics) to its value in
// display order, a metric without a value written null; and, when there
// is such a metric, "undefined", an object of its key to the reason
// (Metric.Why). A script reads a number or null, never a stand-in such as
// -1:
//
//	"metrics":{"epoch":1.5,"epsilon":null},"undefined":{"epsilon":"σ = 0 adds no noise: not private"}
func (s *Spec) AppendMetricsJSON(dst []byte, ms []Metric) []byte {
	dst = append(dst, `"metrics":{`...)
	undefined := false
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s.MetricKey(m.Name))
		dst = append(dst, ':')
		dst = append(dst, FormatMetric(m)...)
		undefined = undefined || m.Why() != ""
	}
	dst = append(dst, '}')
	if !undefined {
		return dst
	}
	dst = append(dst, `,"undefined":{`...)
	first := true
	for _, m := range ms {
		if why := m.Why(); why != "" {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendString(dst, s.MetricKey(m.Name))
			dst = append(dst, ':')
			dst = appendString(dst, why)
		}
	}
	return append(dst, '}')
}

func appendList[T any](dst []byte, xs []T) ([]byte, error) {
	if xs == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = AppendResultJSON(dst, x); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

func appendObject[T any](dst []byte, m map[string]T) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = AppendResultJSON(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendFloat writes x as encoding/json does (shortest form, exponent only
// below 1e-6 or from 1e21), or null when x is not finite.
func appendFloat(dst []byte, x float64, bits int) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(dst, "null"...)
	}
	format, abs := byte('f'), math.Abs(x)
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, x, format, -1, bits)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1] // e-07 → e-7
		dst = dst[:n-1]
	}
	return dst
}

// appendString writes s as a JSON string without HTML escaping, as an
// encoding/json Encoder with SetEscapeHTML(false) does.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
