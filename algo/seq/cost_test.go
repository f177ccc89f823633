package seq

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCostWalk (catalogue §2.10): the closed form CostOf equals, term by
// term and exactly, the multiply–adds of the matrix products walked
// through the model (Products); the attention and dense terms are equal
// at Crossover = 2d + d_ff, the attention below it for shorter contexts
// and above it for longer ones; and the walk's dense and decoder
// products are the weight matrices of the built GPT.
func TestCostWalk(t *testing.T) {
	for _, cfg := range []GPTConfig{
		{Vocab: 7, Context: 5, Dim: 12, Heads: 3, Layers: 2, FFN: 20, Positions: Learned, Norm: Pre},
		{Vocab: 50, Context: 64, Dim: 64, Heads: 1, Layers: 1, FFN: 64, Positions: Fixed, Norm: Post},
		{Vocab: 32000, Context: 256, Dim: 512, Heads: 8, Layers: 6, FFN: 2048, Positions: Learned, Norm: Pre},
	} {
		for _, n := range []int{1, 3, 64, 1000, 1 << 20} {
			var walk [3]float64
			for _, p := range cfg.Products(n) {
				walk[p.Part] += p.MulAdds()
			}
			c := CostOf(cfg, n)
			if walk != [3]float64{c.Attention, c.Dense, c.Decoder} {
				t.Errorf("d = %d, n = %d: walked %v, closed form %+v", cfg.Dim, n, walk, c)
			}
		}
		x := int(cfg.Crossover())
		if x != 2*cfg.Dim+cfg.FFN {
			t.Errorf("crossover %v, want 2d + d_ff = %d", cfg.Crossover(), 2*cfg.Dim+cfg.FFN)
		}
		if c := CostOf(cfg, x); c.Attention != c.Dense {
			t.Errorf("d = %d at n = %d: attention %g, dense %g", cfg.Dim, x, c.Attention, c.Dense)
		}
		if a, b := CostOf(cfg, x-1), CostOf(cfg, x+1); a.Attention >= a.Dense || b.Attention <= b.Dense {
			t.Errorf("d = %d: attention does not cross dense at %d: %+v, %+v", cfg.Dim, x, a, b)
		}
	}
	cfg := GPTConfig{Vocab: 7, Context: 5, Dim: 12, Heads: 3, Layers: 2, FFN: 20, Positions: Learned, Norm: Pre}
	g, err := NewGPT(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	var built, walked []string
	for _, p := range g.Params() {
		if s := p.Shape(); len(s) == 2 && !(s[0] == cfg.Context && s[1] == cfg.Dim) { // all but the positions' table
			if s[0] == cfg.Vocab { // the tied decoder multiplies by the embedding transposed
				s = []int{s[1], s[0]}
			}
			built = append(built, fmt.Sprint(s))
		}
	}
	for _, p := range cfg.Products(4) {
		if p.Part == PartAttention {
			continue
		}
		for range p.Count {
			walked = append(walked, fmt.Sprint([]int{p.K, p.N}))
		}
	}
	slices.Sort(built)
	slices.Sort(walked)
	if !slices.Equal(built, walked) {
		t.Errorf("weight matrices of the GPT %v, of the walk %v", built, walked)
	}
}
