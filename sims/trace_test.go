package sims

import "testing"

func TestTraceDecimates(t *testing.T) {
	tr := NewTrace(0, 2)
	const n = 3*TraceCap + 17
	for k := 0; k < n; k++ {
		tr.Add(float64(k), -float64(k))
	}
	xs, ys := tr.Column(0), tr.Column(1)
	if len(xs) > TraceCap || len(xs) < TraceCap/2 {
		t.Fatalf("kept %d rows, want between %d and %d", len(xs), TraceCap/2, TraceCap)
	}
	// Kept rows are evenly spaced steps starting at 0, and Map agrees.
	stride := xs[1] - xs[0]
	steps := tr.Map(func(k int) float64 { return float64(k) })
	for j := range xs {
		if xs[j] != float64(j)*stride || ys[j] != -xs[j] || steps[j] != xs[j] {
			t.Fatalf("row %d: x=%v y=%v step=%v, stride %v", j, xs[j], ys[j], steps[j], stride)
		}
	}
	x0, x1 := tr.Span()
	if x0 != 0 || x1 != xs[len(xs)-1] || x1 < n-2*stride {
		t.Errorf("span %v..%v, last kept %v, n %d", x0, x1, xs[len(xs)-1], n)
	}
	if tr.Len() != n {
		t.Errorf("Len %d, want %d", tr.Len(), n)
	}
}

func TestTraceAddDoesNotAllocate(t *testing.T) {
	tr := NewTrace(1, 1)
	allocs := testing.AllocsPerRun(10*TraceCap, func() { tr.Add(1.5) })
	if allocs != 0 {
		t.Errorf("Add allocates %v times per call", allocs)
	}
}
