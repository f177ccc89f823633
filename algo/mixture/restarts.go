package mixture

import (
	"errors"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/par"
)

// BestKMeans runs k-means from restarts independent k-means++ starts,
// run r seeded by rng(r), each to convergence or maxIter iterations, in
// parallel on up to workers goroutines (0: GOMAXPROCS), and returns the
// run of least J, ties to the lowest r, with its index: what
// scikit-learn's KMeans(n_init=restarts) does. The result does not depend
// on workers.
func BestKMeans(points [][]float64, k, restarts, maxIter, workers int, rng func(r int) *rand.Rand) (*KMeans, int, error) {
	return bestOf(restarts, maxIter, workers, rng,
		func(g *rand.Rand) (*KMeans, error) { return NewKMeans(points, k, g) },
		func(a, b *KMeans) bool { return a.J() < b.J() })
}

// BestEM runs EM from restarts independent starts, run r seeded by rng(r),
// each until it converges (Config.Tol) or maxIter iterations, in parallel
// on up to workers goroutines (0: GOMAXPROCS), and returns the run of
// highest log-likelihood, ties to the lowest r, with its index: what
// scikit-learn's GaussianMixture(n_init=restarts) does. A run that fails
// (a collapsed covariance with Reg = 0) is passed over; when every run
// fails, the first run's error is returned. The result does not depend on
// workers.
func BestEM(points [][]float64, cfg Config, restarts, maxIter, workers int, rng func(r int) *rand.Rand) (*EM, int, error) {
	return bestOf(restarts, maxIter, workers, rng,
		func(g *rand.Rand) (*EM, error) { return New(points, cfg, g) },
		func(a, b *EM) bool { return a.LogLik() > b.LogLik() })
}

// fit is what bestOf needs of an engine.
type fit interface {
	Step() error
	Iter() int
	SetWorkers(int)
}

// bestOf builds restarts runs, run r from rng(r) (every generator drawn up
// front, in run order, so that a run's start does not depend on which
// goroutine builds it), steps each to its end or maxIter iterations and
// returns the best by better, ties to the lowest r. The workers are split:
// up to one goroutine per run, what is left over to each run's own passes
// over the points. Neither changes a result (package par).
func bestOf[T fit](restarts, maxIter, workers int, rng func(r int) *rand.Rand,
	build func(*rand.Rand) (T, error), better func(a, b T) bool) (T, int, error) {
	var zero T
	if restarts < 1 {
		return zero, 0, algo.BadParam("restarts", restarts, "≥ 1")
	}
	gens := make([]*rand.Rand, restarts)
	for r := range gens {
		gens[r] = rng(r)
	}
	w := par.Workers(workers)
	outer := max(1, min(w, restarts))
	inner := max(1, w/outer)
	runs := make([]T, restarts)
	errs := make([]error, restarts)
	par.Each(outer, restarts, func(r int) {
		m, err := build(gens[r])
		if err != nil {
			errs[r] = err
			return
		}
		m.SetWorkers(inner)
		for m.Iter() < maxIter {
			if err := m.Step(); err != nil {
				if !errors.Is(err, algo.ErrConverged) {
					errs[r] = err
				}
				break
			}
		}
		runs[r] = m
	})
	best := -1
	for r, m := range runs {
		if errs[r] == nil && (best < 0 || better(m, runs[best])) {
			best = r
		}
	}
	if best < 0 {
		return zero, 0, errs[0]
	}
	return runs[best], best, nil
}
