package mixture

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
)

// withProcs runs f with GOMAXPROCS set to procs.
func withProcs(procs int, f func()) {
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	f()
}

// kmState is everything a k-means run shows after eight iterations (a
// block summed in another order shows from the fifth).
func kmState(t *testing.T, points [][]float64, workers int) []any {
	m, err := NewKMeans(points, 6, newRNG(3))
	if err != nil {
		t.Fatal(err)
	}
	m.SetWorkers(workers)
	var js []float64
	for range 8 {
		if m.Step() != nil {
			break
		}
		js = append(js, m.J())
	}
	return []any{js, m.Centers(), m.Assign(nil), m.Counts(nil), m.Changed(), m.Moved()}
}

// emState is everything an EM run shows after three half-steps (E, M, E): a
// block summed in another order changes the first M-step already.
func emState(t *testing.T, points [][]float64, workers int) []any {
	e, err := New(points, Config{K: 5, Reg: DefaultReg, Tol: DefaultTol}, newRNG(3))
	if err != nil {
		t.Fatal(err)
	}
	e.SetWorkers(workers)
	for range 3 {
		if e.Step() != nil {
			break
		}
	}
	q, _ := e.Resp()
	elbo, _ := e.ELBO()
	return []any{e.Trace(), e.Components(), e.Counts(nil), elbo, q}
}

// TestWorkersChangeNothing: the assignment of k-means and the E- and
// M-step passes of EM, run over blocks on several goroutines, give the
// same numbers bit for bit on one worker or several, under GOMAXPROCS 1
// or 2 (issue 14.5), in the plane and in 4 dimensions: 9,000 points make 3
// k-means blocks and 5 EM ones, the 4,500 of the 4-D case 2 and 3.
func TestWorkersChangeNothing(t *testing.T) {
	for dims, points := range map[string][][]float64{"2-D": blobs(t, 5, 9000, 5).Points, "4-D": ndBlobs(5, 4500, 4, 5, 3).points} {
		for name, state := range map[string]func(*testing.T, [][]float64, int) []any{"kmeans": kmState, "em": emState} {
			want := state(t, points, 1)
			for _, procs := range []int{1, 2} {
				for _, workers := range []int{0, 2, 3} {
					withProcs(procs, func() {
						if got := state(t, points, workers); !reflect.DeepEqual(got, want) {
							t.Errorf("%s %s: GOMAXPROCS %d, %d workers: the run differs from one worker's", dims, name, procs, workers)
						}
					})
				}
			}
		}
	}
}

// TestBestOfRestarts: the best of parallel restarts is the best of the
// same runs made one by one (least J, highest log-likelihood, ties to the
// first), and does not depend on the workers or GOMAXPROCS.
func TestBestOfRestarts(t *testing.T) {
	points := blobs(t, 8, 1200, 6).Points
	rng := func(r int) *rand.Rand { return rand.New(rand.NewPCG(11, uint64(r))) }
	const restarts, maxIter = 4, 60
	bestJ, bestR := 0.0, -1
	for r := range restarts {
		m, _ := NewKMeans(points, 6, rng(r))
		for m.Step() == nil && m.Iter() < maxIter {
		}
		if bestR < 0 || m.J() < bestJ {
			bestJ, bestR = m.J(), r
		}
	}
	bestLL, bestE := 0.0, -1
	cfg := Config{K: 6, Reg: DefaultReg, Tol: 1e-6}
	for r := range restarts {
		e, _ := New(points, cfg, rng(r))
		for e.Step() == nil && e.Iter() < maxIter {
		}
		if bestE < 0 || e.LogLik() > bestLL {
			bestLL, bestE = e.LogLik(), r
		}
	}
	var kmFirst, emFirst any
	for _, procs := range []int{1, 2} {
		for _, workers := range []int{0, 1, 3} {
			withProcs(procs, func() {
				m, r, err := BestKMeans(points, 6, restarts, maxIter, workers, rng)
				if err != nil || r != bestR || m.J() != bestJ {
					t.Errorf("k-means, GOMAXPROCS %d, %d workers: run %d, J = %v (%v); one by one: run %d, J = %v", procs, workers, r, m.J(), err, bestR, bestJ)
				}
				e, re, err := BestEM(points, cfg, restarts, maxIter, workers, rng)
				if err != nil || re != bestE || e.LogLik() != bestLL {
					t.Errorf("EM, GOMAXPROCS %d, %d workers: run %d, log p = %v (%v); one by one: run %d, %v", procs, workers, re, e.LogLik(), err, bestE, bestLL)
				}
				km, em := []any{m.Centers(), m.Assign(nil)}, []any{e.Components(), e.Trace()}
				if kmFirst == nil {
					kmFirst, emFirst = km, em
				} else if !reflect.DeepEqual(km, kmFirst) || !reflect.DeepEqual(em, emFirst) {
					t.Errorf("GOMAXPROCS %d, %d workers: the best run differs", procs, workers)
				}
			})
		}
	}
	if _, _, err := BestKMeans(points, 6, 0, 10, 1, rng); err == nil {
		t.Error("0 restarts accepted")
	}
}
