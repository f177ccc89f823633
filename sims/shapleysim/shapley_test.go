package shapleysim_test

import (
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/shapleysim"
	"github.com/thelab/lab/sims/simtest"
)

// TestShapleyPane: the glove game shows Example 20.4's values once the
// enumeration is done, and the estimators land within 4 s.e. of them; the
// digit game's exact values are efficient; too many players for exact
// enumeration is refused with the limit and the alternative named, and
// those estimators run with exact=off.
func TestShapleyPane(t *testing.T) {
	s := simtest.Build(t, shapleysim.Shapley, nil, 1, nil)
	simtest.Run(t, s, 400)
	r := s.Result()
	want := []float64{2.0 / 3, 1.0 / 6, 1.0 / 6}
	for i, w := range want {
		algotest.Near(t, "Shapley", r["shapley"].([]float64)[i], w, 1e-15)
		algotest.Near(t, "Banzhaf", r["banzhaf"].([]float64)[i], []float64{0.75, 0.25, 0.25}[i], 1e-15)
		// 400 permutations: s.e. ≤ 0.5/√400 = 0.025
		algotest.Near(t, "permutation", r["permutation"].([]float64)[i], w, 0.1)
		algotest.Near(t, "KernelSHAP", r["kernelshap"].([]float64)[i], w, 0.05)
	}

	d := simtest.Build(t, shapleysim.Shapley, map[string]string{"game": "digit"}, 1, nil)
	simtest.Run(t, d, 64)
	r = d.Result()
	sum := 0.0
	for _, v := range r["shapley"].([]float64) {
		sum += v
	}
	algotest.Near(t, "digit efficiency", sum, r["grand"].(float64), 1e-12)
	if r["grand"].(float64) < 0.3 {
		t.Errorf("the digits model gives its own digit only %v above blank", r["grand"])
	}

	_, err := simtest.BuildErr(shapleysim.Shapley, map[string]string{"game": "voting", "n": "30"}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "at most 20") || !strings.Contains(err.Error(), "exact=off") {
		t.Fatalf("30 players: %v", err)
	}
	v := simtest.Build(t, shapleysim.Shapley, map[string]string{"game": "voting", "n": "30", "exact": "off"}, 1, nil)
	simtest.Run(t, v, 20)
	simtest.FiniteMetrics(t, v.Frame())
}

// BenchmarkShapleyStep: a step of the 16-superpixel digit game (a 1/64 of
// the enumeration, a permutation, a round of Algorithm 3, 16 KernelSHAP
// samples and a solve).
func BenchmarkShapleyStep(b *testing.B) {
	s := simtest.Build(b, shapleysim.Shapley, map[string]string{"game": "digit"}, 1, nil)
	b.ResetTimer()
	for range b.N {
		_ = s.Step()
	}
}
