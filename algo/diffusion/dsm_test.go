package diffusion

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/nn"
)

// TestDSMFloor checks the irreducible loss against its closed form for
// Gaussian data N(m, s²I): Var(ε | Y) = s²/(s² + σ²) per coordinate, and
// with σ log-uniform on [a, b] its mean is [u − ½ log(s² + e^{2u})] from
// log a to log b over log(b/a); the floor is twice that. 20 000 triples:
// within 4 standard errors (each term is in [0, ∞) with variance about 2).
func TestDSMFloor(t *testing.T) {
	g, err := NewMixture(2, []Component{{Weight: 1, Mean: [2]float64{1, -1}, Cov: [3]float64{1, 0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	const a, b, n = 0.01, 20, 20000
	d, err := NewDSM(g, DSMConfig{Hidden: []int{8}, Batch: 16, LR: 1e-3, SigmaMin: a, SigmaMax: b, Eval: n}, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	F := func(u float64) float64 { return u - 0.5*math.Log(1+math.Exp(2*u)) }
	want := 2 * (F(math.Log(b)) - F(math.Log(a))) / math.Log(b/a)
	algotest.Near(t, "floor", d.Floor(), want, 4*math.Sqrt(2.0/n))
}

// TestDSMLearns trains a small ε_θ on the ring of 8: the held-out gap
// E‖ε_θ − ε*‖² to the exact denoiser falls below half its start, the
// held-out loss stays above the floor (within the evaluation set's
// chance, 0.05), and loss − floor equals the gap up to the cross term
// 2E[(ε_θ − ε*)·(ε* − ε)], which has mean 0 (within 0.05). 300 steps take
// the gap from 9.0 to 0.30 (800 steps: 0.24).
func TestDSMLearns(t *testing.T) {
	m := ring8(t)
	d, err := NewDSM(m, DSMConfig{Hidden: []int{32, 32}, Act: nn.ReLU, Batch: 128, LR: 3e-3, SigmaMin: 0.01, SigmaMax: 20, Eval: 2048},
		rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	_, gap0 := d.Evaluate()
	for range 300 {
		if err := d.Step(); err != nil {
			t.Fatal(err)
		}
	}
	loss, gap := d.Evaluate()
	t.Logf("gap %.4f → %.4f; held-out %.4f, floor %.4f", gap0, gap, loss, d.Floor())
	if gap > gap0/2 {
		t.Errorf("gap %.4f → %.4f: not halved", gap0, gap)
	}
	if loss < d.Floor()-0.05 {
		t.Errorf("held-out loss %.4f below the floor %.4f", loss, d.Floor())
	}
	algotest.Near(t, "loss − floor", loss-d.Floor(), gap, 0.05)
	// Eps in chunks agrees with one point at a time.
	y := make([]float64, 2*1100)
	m.Sample(rand.New(rand.NewPCG(3, 3)), y, nil)
	all, one := make([]float64, len(y)), make([]float64, 2)
	d.Eps(all, y, 0.7)
	for _, i := range []int{0, 511, 512, 1099} {
		d.Eps(one, y[2*i:2*i+2], 0.7)
		algotest.Near(t, "chunked ε_θ", all[2*i], one[0], 1e-12)
		algotest.Near(t, "chunked ε_θ", all[2*i+1], one[1], 1e-12)
	}
}

// BenchmarkDSMStep is one score-match training step at the sim's
// defaults: a 3×64×64×2 MLP, batch 256, on the ring of 8.
func BenchmarkDSMStep(b *testing.B) {
	defer algotest.CPUTime(b)()
	d, err := NewDSM(ring8(b), DSMConfig{Hidden: []int{64, 64}, Act: nn.ReLU, Batch: 256, LR: 3e-3, SigmaMin: 0.01, SigmaMax: 20, Eval: 16},
		rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
