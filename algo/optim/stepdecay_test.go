package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/floats"
)

// TestStepDecayValues: the notes' schedule (L980) η₀, η₀/10 after t₀,
// η₀/100 after t₁ = 2t₀, then constant; and a power-of-two factor, exact.
func TestStepDecayValues(t *testing.T) {
	notes, err := NewStepDecay(0.3, 0.1, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []float64{0.3, 0.3, 0.3, 0.3, 0.03, 0.03, 0.03, 0.03, 0.003, 0.003} {
		algotest.Near(t, "η_k", notes.StepSize(k), want, 1e-16)
	}
	if notes.StepSize(1000) != notes.StepSize(8) {
		t.Errorf("η_1000 = %g, want η₀/100 = %g", notes.StepSize(1000), notes.StepSize(8))
	}
	half, _ := NewStepDecay(2, 0.5, 3, 5)
	for k := 0; k < 40; k++ {
		want := 2 * math.Pow(0.5, float64(min(k/3, 5)))
		if got := half.StepSize(k); got != want {
			t.Errorf("k=%d: η = %v, want %v exactly", k, got, want)
		}
	}
}

// TestStepDecaySGDSteps: the run's step sizes are the schedule's, its
// first T updates are constant-step SGD's bit for bit (same batches), and
// its cost is B·k gradient evaluations.
func TestStepDecaySGDSteps(t *testing.T) {
	q := newLSQ(3, 100, 5, 1)
	d, _ := NewStepDecay(0.05, 0.1, 7, 2)
	cfg := SGDConfig{Batch: 4, LR: 0.05}
	s, err := NewStepDecaySGD(q, []float64{1, -1}, cfg, d, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := NewSGD(q, []float64{1, -1}, cfg, rand.New(rand.NewPCG(1, 2)))
	if s.LR() != 0.05 {
		t.Errorf("LR before the first step %g", s.LR())
	}
	for k := 0; k < 30; k++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if s.LR() != d.StepSize(k) {
			t.Errorf("update %d took step %g, want η_%d = %g", k, s.LR(), k, d.StepSize(k))
		}
		if k < 7 {
			c.Step()
			if !floats.Equal(s.X(), c.X()) {
				t.Fatalf("update %d: %v, constant-step SGD %v", k, s.X(), c.X())
			}
		}
		if s.Evaluations() != 4*(k+1) {
			t.Errorf("after %d updates: %d evaluations, want %d", k+1, s.Evaluations(), 4*(k+1))
		}
	}
}

// TestMiniBatchUnbiased: the mini-batch gradient, read off one SGD update
// with t = 1 (g_B = x₀ − x₁), averages over many draws to the full
// gradient within 4 standard errors per coordinate (L901: same expected
// value), for B = 1 and B = 8 of n = 200; its variance shrinks with B by
// about the finite-population factor (n − B)/(B(n − 1)).
func TestMiniBatchUnbiased(t *testing.T) {
	q := newLSQ(4, 200, 10, 1)
	x0 := []float64{0.7, -0.4}
	full := make([]float64, 2)
	q.Grad(full, x0)
	rng := rand.New(rand.NewPCG(8, 8))
	const draws = 4000
	vars := map[int]float64{}
	for _, b := range []int{1, 8} {
		var sum, sq [2]float64
		for range draws {
			s, err := NewSGD(q, x0, SGDConfig{LR: 1, Batch: b}, rng)
			if err != nil {
				t.Fatal(err)
			}
			s.Step()
			for j := range 2 {
				g := x0[j] - s.X()[j]
				sum[j] += g
				sq[j] += g * g
			}
		}
		for j := range 2 {
			mean := sum[j] / draws
			v := sq[j]/draws - mean*mean
			se := math.Sqrt(v / draws)
			if math.Abs(mean-full[j]) > 4*se {
				t.Errorf("B=%d coordinate %d: mean %g, full gradient %g, s.e. %g", b, j, mean, full[j], se)
			}
			vars[b] += v
		}
	}
	ratio, want := vars[8]/vars[1], float64(200-8)/(8*199)
	if math.Abs(ratio/want-1) > 0.15 {
		t.Errorf("variance ratio B=8 : B=1 = %.4f, want %.4f", ratio, want)
	}
}

// TestBatchRace: at equal budgets every run has taken ⌊E/B⌋ updates; at a
// budget of n/2 evaluations the smaller batches are lower (more updates
// for the same cost), while after 60 passes full-batch GD, noiseless, is
// below the constant-step SGD runs' noise floors.
func TestBatchRace(t *testing.T) {
	q := newLSQ(5, 256, 10, 1)
	_, fstar := q.solve()
	batches := []int{1, 8, 64, 256}
	gapAt := func(budgets ...int) [][]float64 {
		var runs []Stepper
		for i, b := range batches {
			s, err := NewSGD(q, []float64{-2.5, 1.5}, SGDConfig{LR: 0.05, Batch: b}, rand.New(rand.NewPCG(9, uint64(i))))
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, s)
		}
		r, err := NewBatchRace(runs...)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, e := range budgets {
			if err := r.Advance(e - r.Budget()); err != nil {
				t.Fatal(err)
			}
			var gaps []float64
			for _, run := range r.Runs() {
				if run.Iter() != r.Budget()/run.Batch() || run.Evaluations() != run.Batch()*run.Iter() {
					t.Fatalf("budget %d, B=%d: %d updates, %d evaluations", r.Budget(), run.Batch(), run.Iter(), run.Evaluations())
				}
				gaps = append(gaps, run.F()-fstar)
			}
			out = append(out, gaps)
		}
		return out
	}
	g := gapAt(128, 60*256)
	early, late := g[0], g[1]
	t.Logf("gaps at 128 evaluations %v; at 60 passes %v", early, late)
	for i := 1; i < len(early); i++ {
		if !(early[i-1] < early[i]) {
			t.Errorf("at 128 evaluations B=%d gap %g not below B=%d gap %g", batches[i-1], early[i-1], batches[i], early[i])
		}
	}
	for i := 0; i < 3; i++ {
		if !(late[3] < late[i]) {
			t.Errorf("after 60 passes full batch %g not below B=%d %g", late[3], batches[i], late[i])
		}
	}
	if _, err := NewBatchRace(); err == nil {
		t.Error("a race of no runs accepted")
	}
}

func TestStepDecayValidation(t *testing.T) {
	for _, c := range []struct {
		t0, f   float64
		every   int
		drops   int
		wantArg string
	}{
		{0, 0.1, 1, 2, "lr"}, {1, 0, 1, 2, "drop"}, {1, 1.5, 1, 2, "drop"}, {1, 0.1, 0, 2, "every"}, {1, 0.1, 1, -1, "drops"},
	} {
		_, err := NewStepDecay(c.t0, c.f, c.every, c.drops)
		algotest.WantParam(t, err, c.wantArg)
	}
}
