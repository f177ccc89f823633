package mcmc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/target"
)

// hmcEnsemble is `chains` HMC chains with L leapfrog steps on the 2-D
// mixture from dispersed starts, on `workers` goroutines.
func hmcEnsemble(t testing.TB, chains, leapfrog, workers int) *Ensemble {
	t.Helper()
	tg := target.Fig37()
	starts := DispersedStarts(tg, []float64{0, 0}, chains, rand.New(rand.NewPCG(3, 1)))
	var cs []Sampler
	for c, x := range starts {
		h, err := NewHMC(tg, x, 0.2, leapfrog, rand.New(rand.NewPCG(3, uint64(10+c))))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, h)
	}
	e, err := NewEnsemble(cs, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	e.SetWorkers(workers)
	return e
}

// TestEnsembleSameOnAnyWorkers: chains run on one goroutine, two, or more
// goroutines than chains give the same runs bit for bit, and the parallel
// step starts its goroutines only when the chains' work pays for them.
func TestEnsembleSameOnAnyWorkers(t *testing.T) {
	const n = 300
	var want [][]float64
	for _, w := range []int{1, 2, 0, 7} {
		e := hmcEnsemble(t, 4, 20, w)
		if w != 1 && e.blocks < 2 {
			t.Errorf("4 chains × 20 leapfrog steps on %d workers: the step stays serial", w)
		}
		for range n {
			if err := e.Step(); err != nil {
				t.Fatal(err)
			}
		}
		var got [][]float64
		for c := range e.Chains() {
			got = append(got, slices.Clone(e.History(c).Run(0)), slices.Clone(e.History(c).Run(1)))
		}
		if want == nil {
			want = got
			continue
		}
		for k := range want {
			if !slices.Equal(got[k], want[k]) {
				t.Fatalf("workers %d: chain %d's run differs from one worker's", w, k/2+1)
			}
		}
	}
	if e := hmcEnsemble(t, 2, 5, 2); e.blocks != 1 {
		t.Errorf("2 chains × 5 leapfrog steps run on %d workers: not worth a goroutine", e.blocks)
	}
}

// failAt is a Sampler that fails at its step `at` (and from then on).
type failAt struct {
	x     []float64
	n, at int
}

func (f *failAt) Step() error {
	f.n++
	if f.n >= f.at {
		return algo.Diverged("chain failed at %d", f.n)
	}
	return nil
}
func (f *failAt) X() []float64                { return f.x }
func (f *failAt) Steps() int                  { return f.n }
func (f *failAt) Accepted() int               { return f.n }
func (f *failAt) Proposal() ([]float64, bool) { return f.x, true }
func (f *failAt) Evals() int                  { return parEvals }

// TestEnsembleReportsTheFirstFailingChain: whatever the workers, the error
// names the first chain that failed at that step, and every chain made the
// step.
func TestEnsembleReportsTheFirstFailingChain(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		cs := []*failAt{{at: 9}, {at: 5}, {at: 5}, {at: 7}}
		var ss []Sampler
		for _, c := range cs {
			c.x = []float64{0}
			ss = append(ss, c)
		}
		e, err := NewEnsemble(ss, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		e.SetWorkers(w)
		for range 4 {
			if err := e.Step(); err != nil {
				t.Fatal(err)
			}
		}
		err = e.Step()
		if !errors.Is(err, algo.ErrDiverged) || err.Error()[:8] != "chain 2:" {
			t.Errorf("workers %d: %v, want chain 2's divergence", w, err)
		}
		for c, s := range cs {
			if s.n != 5 {
				t.Errorf("workers %d: chain %d made %d steps, want 5", w, c+1, s.n)
			}
		}
		if e.Transitions() != 4 {
			t.Errorf("workers %d: %d transitions counted, want 4", w, e.Transitions())
		}
	}
}

// TestMCErrorSameOnAnyWorkers: the replicates stepped in blocks on several
// goroutines give the same estimates, RMSEs and pooled σ_f bit for bit.
func TestMCErrorSameOnAnyWorkers(t *testing.T) {
	var want []float64
	for _, w := range []int{1, 2, 0, 5} {
		e, err := NewMCError(target.Fig37(), StatSquare, 300, 2, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		e.SetWorkers(w)
		for range 200 {
			if err := e.Step(); err != nil {
				t.Fatal(err)
			}
		}
		_, iid, chain := e.Checkpoints()
		got := append(append(e.Estimates(nil), iid...), chain...)
		got = append(got, e.SigmaF(), e.Acceptance(), e.Tau())
		if want == nil {
			want = got
			continue
		}
		if !slices.Equal(got, want) {
			t.Fatalf("workers %d: the results differ from one worker's", w)
		}
	}
}

// BenchmarkEnsembleWorkers is one Step of HMC chains on the mixture on one
// worker and on two: the speed-up of independent chains on this machine's
// cores (ns/op is wall time; cpu-ns/op the whole process's CPU).
func BenchmarkEnsembleWorkers(b *testing.B) {
	for _, c := range []struct{ chains, leapfrog int }{{4, 20}, {8, 20}, {8, 100}} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("chains=%d/L=%d/workers=%d", c.chains, c.leapfrog, w), func(b *testing.B) {
				defer algotest.ProcessCPUTime(b)()
				e := hmcEnsemble(b, c.chains, c.leapfrog, w)
				for b.Loop() {
					_ = e.Step()
				}
			})
		}
	}
}

// BenchmarkMCErrorWorkers is one Step of the mcerror engine (a draw and a
// Metropolis step in each of R replicates) on one worker and on two.
func BenchmarkMCErrorWorkers(b *testing.B) {
	for _, r := range []int{200, 2000} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("R=%d/workers=%d", r, w), func(b *testing.B) {
				defer algotest.ProcessCPUTime(b)()
				e, err := NewMCError(target.Fig37(), StatMean, r, 2, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					b.Fatal(err)
				}
				e.SetWorkers(w)
				for b.Loop() {
					_ = e.Step()
				}
			})
		}
	}
}
