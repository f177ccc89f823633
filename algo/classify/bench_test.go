package classify

import "testing"

// BenchmarkStreamStep is one labelled point drawn and added to the fit.
func BenchmarkStreamStep(b *testing.B) {
	f, _ := NewFit(Separate)
	st, _ := NewStream(f, &different, nil, nil, rng(1))
	b.ReportAllocs()
	for b.Loop() {
		if st.N() == MaxPoints {
			b.StopTimer()
			st, _ = NewStream(f, &different, nil, nil, rng(1))
			b.StartTimer()
		}
		_ = st.Step()
	}
}

// BenchmarkPosterior is p(Y = 1 | x) by (1.4): what a frame's 72×36 grid
// evaluates 2592 times.
func BenchmarkPosterior(b *testing.B) {
	x := [2]float64{0.3, -0.2}
	var sink float64
	for b.Loop() {
		sink += different.Posterior(x)
	}
	_ = sink
}
