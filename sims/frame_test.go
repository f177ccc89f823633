package sims

import (
	"math"
	"testing"
)

func TestFiniteOr(t *testing.T) {
	for _, c := range []struct{ x, alt, want float64 }{
		{2, 0, 2}, {-1e308, 7, -1e308}, {math.NaN(), 0, 0}, {math.Inf(1), -1, -1}, {math.Inf(-1), 3, 3},
	} {
		if got := FiniteOr(c.x, c.alt); got != c.want {
			t.Errorf("FiniteOr(%v, %v) = %v, want %v", c.x, c.alt, got, c.want)
		}
	}
}
