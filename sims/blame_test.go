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
