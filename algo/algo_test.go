package algo

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestFinite(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want bool
	}{
		{nil, true}, {[]float64{0, -1e308, 5e-324}, true},
		{[]float64{1, math.NaN()}, false}, {[]float64{math.Inf(-1)}, false}, {[]float64{math.Inf(1), 0}, false},
	} {
		if got := AllFinite(c.x); got != c.want {
			t.Errorf("AllFinite(%v) = %v", c.x, got)
		}
		for _, v := range c.x {
			if Finite(v) != !(math.IsNaN(v) || math.IsInf(v, 0)) {
				t.Errorf("Finite(%v) = %v", v, Finite(v))
			}
		}
	}
}

func TestErrors(t *testing.T) {
	bad := fmt.Errorf("building: %w", BadParam("step", -1, "> 0"))
	if !IsParamError(bad, "step") || IsParamError(bad, "tol") || IsParamError(errors.New("step"), "step") || IsParamError(nil, "step") {
		t.Errorf("IsParamError on %v", bad)
	}
	if got := bad.Error(); got != "building: parameter step = -1: must be > 0" {
		t.Errorf("message %q", got)
	}
	d := Diverged("f(x) = %v at step %d", math.Inf(1), 3)
	if !errors.Is(d, ErrDiverged) || errors.Is(d, ErrConverged) || d.Error() != "f(x) = +Inf at step 3" {
		t.Errorf("Diverged: %v", d)
	}
}

// TestHeapBytes checks HeapBytes against what the runtime allocates: a
// slice of b bytes gets HeapBytes(b) of capacity.
func TestHeapBytes(t *testing.T) {
	for _, b := range []int64{1, 8, 9, 17, 100, 1000, 1600, 4000, 32768, 32769, 100000, 1 << 20} {
		got := int64(cap(append([]byte(nil), make([]byte, b)...)))
		if want := HeapBytes(b); got != want {
			t.Errorf("HeapBytes(%d) = %d, the heap gives %d", b, want, got)
		}
	}
}
