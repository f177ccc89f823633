package mcmc

import (
	"math"
	"testing"
)

func TestHistoryExactWhileSmall(t *testing.T) {
	x := ar1(3000, 0.9, 1)
	h := NewHistory(1)
	for _, v := range x {
		h.Add([]float64{v})
	}
	if got, want := h.ESS(0, 4096), ESS(x); got != want {
		t.Errorf("ESS = %g, want Geyer on all samples %g", got, want)
	}
	if h.Stride() != 1 || h.N() != len(x) {
		t.Errorf("stride %d, n %d", h.Stride(), h.N())
	}
	// The window holds the samples in order.
	acf := h.ACF(nil, 0, 5)
	want := ACF(x, 5)
	for k := range want {
		if math.Abs(acf[k]-want[k]) > 1e-12 {
			t.Errorf("window ACF[%d] = %g, want %g", k, acf[k], want[k])
		}
	}
}

func TestHistoryWindowOrderAfterWrap(t *testing.T) {
	h := NewHistory(2)
	const n = WindowLen + 1234
	for i := range n {
		h.Add([]float64{float64(i), -float64(i)})
	}
	w := h.window(1)
	if len(w) != WindowLen || w[0] != -float64(n-WindowLen) || w[WindowLen-1] != -float64(n-1) {
		t.Errorf("window = [%g ... %g] (len %d), want [%d ... %d]", w[0], w[len(w)-1], len(w), -(n - WindowLen), -(n - 1))
	}
}

func TestHistoryThinsInBoundedMemory(t *testing.T) {
	h := NewHistory(1)
	const n = 5*HistoryCap + 17
	for i := range n {
		h.Add([]float64{float64(i)})
	}
	run := h.hist[0]
	if len(run) > HistoryCap || cap(run) != HistoryCap {
		t.Fatalf("kept %d samples (cap %d), limit %d", len(run), cap(run), HistoryCap)
	}
	k := h.Stride()
	if k != 8 {
		t.Errorf("stride %d after %d samples, want 8", k, n)
	}
	for j, v := range run {
		if v != float64(j*k) {
			t.Fatalf("kept[%d] = %g, want sample %d", j, v, j*k)
		}
	}
	if last := run[len(run)-1]; n-1-int(last) >= k {
		t.Errorf("last kept sample %g is more than a stride behind %d", last, n-1)
	}
	if m := h.Moments().MeanAt(0); math.Abs(m-float64(n-1)/2) > 1e-6 {
		t.Errorf("mean %g, want %g", m, float64(n-1)/2)
	}
}

// TestHistoryESSLongRuns checks the estimate after thinning: accurate from
// the window for a fast-mixing chain, from the kept run for a slow one, and
// conservative under a tight budget.
func TestHistoryESSLongRuns(t *testing.T) {
	const n = 1 << 20
	// Between 65536 and 131072 samples the stride is 2 and the kept run
	// gives the estimate when τ ≥ 4.
	x := ar1(100000, 0.9, 3)
	h := NewHistory(1)
	for _, v := range x {
		h.Add([]float64{v})
	}
	if got, want := h.ESS(0, 0), 100000*0.1/1.9; math.Abs(got/want-1) > 0.1 {
		t.Errorf("φ = 0.9, 100000 samples: ESS %.0f, want %.0f within 10%%", got, want)
	}
	for _, c := range []struct {
		phi    float64
		budget int
		lo, hi float64 // allowed ESS/(S(1−φ)/(1+φ))
	}{
		{0.5, 4096, 0.85, 1.15}, // window: τ = 3 ≪ 4096/50
		{0.9, 4096, 0.75, 1.25}, // window: τ = 19
		{0.9, 0, 0.75, 1.25},    // stride 16 > τ/2: window
		{0.99, 0, 0.85, 1.15},   // kept run, stride 16 ≪ τ = 199
		{0.99, 4096, 0.5, 1.1},  // sub-sampled by 16 more: conservative
	} {
		x := ar1(n, c.phi, 2)
		h := NewHistory(1)
		for _, v := range x {
			h.Add([]float64{v})
		}
		want := n * (1 - c.phi) / (1 + c.phi)
		got := h.ESS(0, c.budget)
		t.Logf("φ = %g, budget %d: ESS %.0f, S(1−φ)/(1+φ) = %.0f", c.phi, c.budget, got, want)
		if r := got / want; r < c.lo || r > c.hi {
			t.Errorf("φ = %g, budget %d: ESS %.0f = %.2f × %.0f, want within [%g, %g]", c.phi, c.budget, got, r, want, c.lo, c.hi)
		}
	}
}

func TestHistoryAddDoesNotAllocate(t *testing.T) {
	h := NewHistory(2)
	x := []float64{1, 2}
	if a := testing.AllocsPerRun(3*HistoryCap, func() { h.Add(x) }); a != 0 {
		t.Errorf("Add allocates %v times", a)
	}
	h.ESS(0, 4096)
	if a := testing.AllocsPerRun(5, func() { h.ESS(0, 4096); h.ESS(1, 4096) }); a != 0 {
		t.Errorf("ESS allocates %v times when reused", a)
	}
	if math.Abs(h.ESS(0, 0)-1) > 1e-3 {
		t.Errorf("ESS of a constant run = %g, want 1", h.ESS(0, 0))
	}
	if NewHistory(1).ESS(0, 0) != 0 {
		t.Error("ESS of no samples ≠ 0")
	}
}
