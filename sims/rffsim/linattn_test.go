package rffsim

import (
	"math"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestLinearAttentionPane: the default run's kernel error follows its m^−½
// theory line, the attention error ends below a quarter of its start, the
// FAVOR+ map's rows sum to 1, and the linear route costs less than the
// exact one only while 2m(d+d_v) < n(d+d_v), i.e. m < n/2.
func TestLinearAttentionPane(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		s := simtest.Build(t, LinearAttention, nil, seed, nil)
		simtest.RunToEnd(t, s, maxSteps)
		f := s.Frame()
		ker, _ := f.Series("exp(q′ᵀk′) matrix")
		th, ok := f.Series("theory ∝ m^−½")
		att, _ := f.Series("attention D̂⁻¹Û")
		if !ok || len(th.Y) != len(ker.Y) || len(ker.Y) < 20 {
			t.Fatalf("series: %d kernel, %d theory", len(ker.Y), len(th.Y))
		}
		last := len(ker.Y) - 1
		if r := ker.Y[last] / th.Y[last]; r < 0.4 || r > 2.5 {
			t.Errorf("seed %d: kernel error %g vs theory %g at m = 1024", seed, ker.Y[last], th.Y[last])
		}
		if !(att.Y[last] < att.Y[0]/4) {
			t.Errorf("seed %d: attention error %g at m = 1024, %g at m = 4", seed, att.Y[last], att.Y[0])
		}
		heat := f.Charts[0].(sims.CanvasChart).Heat
		v, _ := sims.Resolve(LinearAttention.Params, nil)
		n := laN.Get(v)
		gap := max(2, n/6)
		for j := 0; j < n; j++ {
			sum := 0.0
			for c := n + gap; c < 2*n+gap; c++ {
				sum += heat.Z[j*heat.NX+c]
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("seed %d: FAVOR+ row %d sums to %v", seed, j, sum)
			}
		}
		if cr := simtest.Metric(t, f, "cost_ratio"); math.Abs(cr-2*1024/float64(n)) > 1e-9 {
			t.Errorf("cost ratio %v, want 2m/n", cr)
		}
	}
}
