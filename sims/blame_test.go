package sims

import (
	"errors"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/sims/param"
)

// TestBlame: an engine's error about a mapped argument names the parameter
// that fed it, with its value, and keeps the engine's reason; other errors
// pass unchanged.
func TestBlame(t *testing.T) {
	n := param.Int("n", 10, "").Range(1, 100)
	v, _ := Resolve(param.List(n), nil)
	engine := algo.BadParam("labels", "0 positive, 10 negative", "both classes present")
	err := Blame(engine, v, As("labels", n))
	want := "parameter n = 10: must be both classes present (labels = 0 positive, 10 negative)"
	if !algo.IsParamError(err, "n") || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	other := algo.BadParam("tol", -1, "≥ 0")
	if got := Blame(other, v, As("labels", n)); got != other {
		t.Errorf("an unmapped argument changed: %v", got)
	}
	plain := errors.New("no data")
	if Blame(plain, v, As("labels", n)) != plain || Blame(nil, v, As("labels", n)) != nil {
		t.Error("a non-parameter error changed")
	}
}

// TestMisordered: the parameter the user set is blamed, and the other's
// value says whether it is a default.
func TestMisordered(t *testing.T) {
	lo := param.Float("t_min", 0.01, "low").Range(0, 1e6).OpenMin()
	hi := param.Float("t_max", 100, "high").Range(0, 1e6).OpenMin()
	params := param.List(hi, lo)
	for _, tt := range []struct {
		set    map[string]string
		strict bool
		want   string
	}{
		{map[string]string{"t_min": "1e6"}, true, "parameter t_min = 1e+06: must be below t_max = 100 (its default)"},
		{map[string]string{"t_max": "0.001"}, true, "parameter t_max = 0.001: must be above t_min = 0.01 (its default)"},
		{map[string]string{"t_max": "5", "t_min": "7"}, true, "parameter t_max = 5: must be above t_min = 7 (as set)"},
		{map[string]string{"t_max": "5", "t_min": "7"}, false, "parameter t_max = 5: must be at least t_min = 7 (as set)"},
	} {
		v, err := param.Resolve(params, tt.set)
		if err != nil {
			t.Fatal(err)
		}
		if got := Misordered(v, lo, hi, tt.strict).Error(); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.set, got, tt.want)
		}
	}
}
