package seq

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
)

// TestRewardModel ([A21]): the loss is log 2 when the rewards are equal;
// after 30 000 comparisons of 5 responses every learned difference r_i −
// r_j is within 0.15 of the true one (about 3 standard errors: each pair
// is compared some 3 000 times, and the MLE's standard error of a
// difference is then about 1/√(3000·σ(1−σ)) ≤ 0.05 here); the expected
// loss is smallest at the truth (up to a constant).
func TestRewardModel(t *testing.T) {
	algotest.Near(t, "loss at equal rewards", PairLoss(0.7, 0.7), math.Ln2, 1e-15)
	algotest.Near(t, "loss, large margin", PairLoss(40, 0), math.Exp(-40), 1e-30)
	truth := []float64{1, -0.5, 0.2, 0.8, -1.5}
	m, err := NewRewardModel(truth, 2, 100, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	algotest.Near(t, "loss at r = 0", m.Loss(m.Rewards()), math.Ln2, 1e-15)
	for range 300 {
		if err := m.Step(); err != nil {
			t.Fatal(err)
		}
	}
	r := m.Rewards()
	for i := range truth {
		for j := range i {
			if d := (r[i] - r[j]) - (truth[i] - truth[j]); math.Abs(d) > 0.15 {
				t.Errorf("r_%d − r_%d off by %.3f", i, j, d)
			}
		}
	}
	shifted := make([]float64, len(truth))
	for i, x := range truth {
		shifted[i] = x + 3
	}
	algotest.Near(t, "expected loss at r = 0", m.ExpectedLoss(make([]float64, len(truth))), math.Ln2, 1e-15)
	best := m.ExpectedLoss(truth)
	algotest.Near(t, "a constant changes nothing", m.ExpectedLoss(shifted), best, 1e-15)
	if m.ExpectedLoss(r) < best {
		t.Errorf("expected loss %.6f below the truth's %.6f", m.ExpectedLoss(r), best)
	}
	for name, f := range map[string]func() error{
		"items": func() error { _, err := NewRewardModel([]float64{1}, 1, 1, rand.New(rand.NewPCG(1, 1))); return err },
		"lr":    func() error { _, err := NewRewardModel(truth, 0, 1, rand.New(rand.NewPCG(1, 1))); return err },
	} {
		algotest.WantParam(t, f(), name)
	}
}

// TestPolicy ([A21] (b), derived): mirror ascent against fixed rewards
// approaches π* ∝ π_SFT·exp(r/β) with log-ratio error shrinking by exactly
// |1 − ηβ| a step; β → ∞ gives π_SFT and β → 0 the argmax.
func TestPolicy(t *testing.T) {
	r := []float64{0.3, -1, 1.2, 0}
	sft := []float64{0.4, 0.3, 0.2, 0.1}
	const beta, eta = 0.5, 0.6
	p, err := NewPolicy(sft, beta, eta)
	if err != nil {
		t.Fatal(err)
	}
	target := make([]float64, 4)
	KLTarget(r, sft, beta, target)
	// gap is the spread of log(π/π*) over the items: 0 exactly at π*.
	gap := func() float64 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, x := range p.Probs() {
			d := math.Log(x / target[i])
			lo, hi = min(lo, d), max(hi, d)
		}
		return hi - lo
	}
	g0 := gap()
	for n := 1; n <= 20; n++ {
		p.Step(r)
		algotest.Near(t, "contraction", gap(), g0*math.Pow(math.Abs(1-eta*beta), float64(n)), 1e-12)
	}
	if KL(p.Probs(), target) > 1e-6 { // the gap is 0.7²⁰ ≈ 8e-4 of the first, KL about its square
		t.Errorf("KL to π* %g after 20 steps", KL(p.Probs(), target))
	}
	KLTarget(r, sft, 1e9, target)
	for i := range sft {
		algotest.Near(t, "β → ∞", target[i], sft[i], 1e-8)
	}
	KLTarget(r, sft, 1e-3, target)
	algotest.Near(t, "β → 0", target[2], 1, 1e-12)
	for name, f := range map[string]func() error{
		"eta":  func() error { _, err := NewPolicy(sft, 1, 2); return err },
		"sft":  func() error { _, err := NewPolicy([]float64{0.5, 0.6}, 1, 1); return err },
		"beta": func() error { _, err := NewPolicy(sft, 0, 1); return err },
	} {
		algotest.WantParam(t, f(), name)
	}
}
