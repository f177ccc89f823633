package estimate

import "testing"

func BenchmarkStreamStep(b *testing.B) {
	s, _ := NewStream(Model{Kind: Regression, Theta: [2]float64{1.5, 1}}, rng(1))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Step()
	}
}

// BenchmarkReplicateStep is one replicated experiment of n = 100 Gaussian
// draws.
func BenchmarkReplicateStep(b *testing.B) {
	r, _ := NewReplicates(Model{Kind: Gaussian, Theta: [2]float64{1, 4}}, 100, 50, rng(1))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Step()
	}
}
