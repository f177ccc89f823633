package mcmc

import (
	"math"
	"testing"
)

func TestHistoryWindowInOrder(t *testing.T) {
	x := ar1(3000, 0.9, 1)
	h := NewHistory(1)
	for _, v := range x {
		h.Add([]float64{v})
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

func TestHistoryAddDoesNotAllocate(t *testing.T) {
	h := NewHistory(2)
	x := []float64{1, 2}
	if a := testing.AllocsPerRun(3*HistoryCap, func() { h.Add(x) }); a != 0 {
		t.Errorf("Add allocates %v times", a)
	}
	dst := make([]float64, 0, 51)
	h.ACF(dst, 0, 50)
	if a := testing.AllocsPerRun(5, func() { h.ACF(dst, 0, 50); h.ACF(dst, 1, 50) }); a != 0 {
		t.Errorf("ACF allocates %v times when reused", a)
	}
}
