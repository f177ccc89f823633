package stable

import (
	"math"
	"testing"
)

func TestXLogY(t *testing.T) {
	for _, c := range []struct{ x, y, want float64 }{
		{0, 0, 0}, {0, 5, 0}, {2, math.E, 2}, {0.5, 0.25, 0.5 * math.Log(0.25)},
	} {
		if got := XLogY(c.x, c.y); got != c.want {
			t.Errorf("XLogY(%g, %g) = %g, want %g", c.x, c.y, got, c.want)
		}
	}
	if !math.IsInf(XLogY(1, 0), -1) {
		t.Error("XLogY(1, 0) should be −Inf")
	}
}
