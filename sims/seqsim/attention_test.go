package seqsim

import (
	"fmt"
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims/simtest"
)

// TestAttentionHeads (G3, G6): every row of every head sums to 1, the
// causal mask's weights are exactly 0; without positions swapping "dog"
// and "cat" swaps the rows and columns of the weights (permutation
// equivariance, L3262), with sinusoidal positions it does not; unscaled
// scores at d_k = 128 have rows of less than half the scaled entropy.
func TestAttentionHeads(t *testing.T) {
	s := simtest.Build(t, Attention, map[string]string{"causal": "on"}, 1, nil).(*attnSim)
	const T = 5
	for h, w := range s.weights {
		for i := range T {
			sum := 0.0
			for j := range T {
				sum += w[i*T+j]
				if j > i && w[i*T+j] != 0 {
					t.Errorf("head %d: masked (%d, %d) = %g", h, i, j, w[i*T+j])
				}
			}
			algotest.Near(t, fmt.Sprintf("head %d row %d", h, i), sum, 1, 1e-14)
		}
	}
	perm := []int{0, 4, 2, 3, 1} // the cat chased the dog
	for _, tt := range []struct {
		pos  string
		same bool
	}{{"none", true}, {"sinusoidal", false}} {
		a := simtest.Build(t, Attention, map[string]string{"positions": tt.pos}, 1, nil).(*attnSim)
		b := simtest.Build(t, Attention, map[string]string{"positions": tt.pos, "sentence": "the cat chased the dog"}, 1, nil).(*attnSim)
		gap := 0.0
		for h := range a.weights {
			for i := range T {
				for j := range T {
					gap = max(gap, math.Abs(b.weights[h][i*T+j]-a.weights[h][perm[i]*T+perm[j]]))
				}
			}
		}
		if tt.same != (gap < 1e-12) {
			t.Errorf("positions %s: permuted weights differ by %g", tt.pos, gap)
		}
	}
	last := len(s.entropy[0]) - 1
	if s.entropy[1][last] > s.entropy[0][last]/2 {
		t.Errorf("entropy at d_k = 128: scaled %.3f, unscaled %.3f", s.entropy[0][last], s.entropy[1][last])
	}
}

// TestAttentionPositionsAndKernel: ⟨PE_t, PE_t+k⟩ equals ⟨PE_0, PE_k⟩ and
// the closed form Σ cos(k/10000^{2i/d}) from every t ([A19]); in the
// kernel view attention's weights sum to 1 while kernel regression's are
// somewhere negative along the sweep.
func TestAttentionPositionsAndKernel(t *testing.T) {
	s := simtest.Build(t, Attention, map[string]string{"view": "positions"}, 1, nil)
	for range 12 {
		simtest.Run(t, s, 3)
		if g := simtest.Metric(t, s.Frame(), "max |⟨PE_t,PE_t+k⟩ − ⟨PE_0,PE_k⟩|"); g > 1e-12 {
			t.Errorf("step %d: gap %g", s.Frame().Step, g)
		}
	}
	k := simtest.Build(t, Attention, map[string]string{"view": "kernel"}, 1, nil)
	lo := 0.0
	for range atSweep {
		simtest.Run(t, k, 1)
		lo = min(lo, simtest.Metric(t, k.Frame(), "kernel min w"))
	}
	if lo >= 0 {
		t.Error("kernel weights never negative")
	}
	_, err := simtest.BuildErr(Attention, map[string]string{"sentence": "one"}, 1, nil)
	if err == nil {
		t.Error("a one-word sentence was accepted")
	}
}
