package sims

import (
	"math"
	"testing"
	"time"
)

func TestWaterLevel(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		want  []float64
		total float64
		level float64
	}{
		{nil, 1, inf},
		{[]float64{0.2, 0.3}, 1, inf},                     // under the total: no level
		{[]float64{0.2, 0.3, 0.5}, 1, inf},                // exactly the total
		{[]float64{0.1, 0.1, inf}, 1, 0.8},                // the hungry one gets what is left
		{[]float64{0.5, 0.5, 0.5, 0.5}, 1, 0.25},          // all want more: equal shares
		{[]float64{0.13, 0.13, 0.13, 0.5}, 0.6, 0.21},     // a light visitor keeps all it uses
		{[]float64{inf, inf, 0.05, 0.05, 0.05}, 1, 0.425}, // two hungry ones split the rest
	} {
		got := waterLevel(append([]float64(nil), c.want...), c.total)
		if math.Abs(got-c.level) > 1e-12 && !(math.IsInf(got, 1) && math.IsInf(c.level, 1)) {
			t.Errorf("waterLevel(%v, %g) = %g, want %g", c.want, c.total, got, c.level)
		}
		// Its defining property: Σ min(wᵢ, L) = total when finite.
		if !math.IsInf(got, 1) {
			sum := 0.0
			for _, w := range c.want {
				sum += math.Min(w, got)
			}
			if math.Abs(sum-c.total) > 1e-12 {
				t.Errorf("waterLevel(%v, %g) = %g: Σ min(w, L) = %g", c.want, c.total, got, sum)
			}
		}
	}
}

// TestShareHoldsTheHungry: of two visitors sharing one core, one spending
// 0.3 core and the other all it may (its cap 1), the hungry one is held
// to the 0.7 left, and the light one keeps its whole cap; alone, the
// hungry one gets its cap again.
func TestShareHoldsTheHungry(t *testing.T) {
	share := NewShare(1)
	t0 := time.Now() // the accounts start their buckets on the real clock
	now := t0
	clock := func() time.Time { return now }
	light, heavy := NewAccount(1, share), NewAccount(1, share)
	lb := newBudget(Limits{Visitor: light}, clock)
	hb := newBudget(Limits{Visitor: heavy}, clock)
	defer lb.Close()
	// 20 s in 10 ms slices: the light visitor spends 3 ms of each, the
	// heavy one whatever its bucket allows.
	const slice = 10 * time.Millisecond
	heavySpent, lightWaits := time.Duration(0), 0
	for now.Sub(t0) < 20*time.Second {
		now = now.Add(slice)
		if lb.Rest() > 0 {
			lightWaits++
		}
		lb.Charge(3 * time.Millisecond)
		if hb.Rest() == 0 {
			hb.Charge(slice)
			if now.Sub(t0) > 10*time.Second {
				heavySpent += slice
			}
		}
	}
	if l := share.Level(now); math.Abs(l-0.625) > 0.03 {
		t.Errorf("the level is %g cores, want 0.625 (1 − 1.25 × the light visitor's 0.3)", l)
	}
	if r := heavySpent.Seconds() / 10; math.Abs(r-0.625) > 0.03 {
		t.Errorf("the heavy visitor spent %.2f cores over the last 10 s, want 0.625", r)
	}
	if lightWaits > 0 {
		t.Errorf("the light visitor had to wait %d times", lightWaits)
	}
	lb.Close() // the light one leaves
	for end := now.Add(5 * time.Second); now.Before(end); now = now.Add(slice) {
		if hb.Rest() == 0 {
			hb.Charge(slice / 2)
		}
	}
	hb.Rest()
	if r := heavy.cpu.rate; r != 1 {
		t.Errorf("alone, the heavy visitor's rate is %g, want its cap 1", r)
	}
	hb.Close()
}
