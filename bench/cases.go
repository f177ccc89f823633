package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/algo/kernel"
	"github.com/thelab/lab/algo/linear"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/algo/optim"
	"github.com/thelab/lab/algo/svm"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// sizes are the problem sizes of a run.
type sizes struct {
	gp, gpFit        int // GP observations: the gp sim's run; one gp-fit evaluation
	svmN, svmD       int // the breast-cancer-shaped problem (569×30)
	moons, moonsBig  int // two-moons SVMs
	logN, logD       int // the large logistic regression (100,000×20)
	kmeans, em       int // points
	cholesky         []int
	mixIters, kmIter int // iterations of the per-iteration cases
}

var fullSizes = sizes{gp: 1000, gpFit: 500, svmN: 569, svmD: 30, moons: 5000, moonsBig: 20000, logN: 100000, logD: 20,
	kmeans: 100000, em: 100000, cholesky: []int{1000, 2000}, mixIters: 30, kmIter: 100}

var smokeSizes = sizes{gp: 60, gpFit: 40, svmN: 80, svmD: 5, moons: 200, logN: 300, logD: 4,
	kmeans: 3000, em: 2000, cholesky: []int{60}, mixIters: 3, kmIter: 5}

// makeCases generates every data set (written to dir as CSV for the
// reference, last column the target) and returns the cases on it.
func makeCases(smoke bool, dir string) ([]*benchCase, error) {
	sz := fullSizes
	if smoke {
		sz = smokeSizes
	}
	rng := func(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(14, stream)) }
	var cases []*benchCase

	// Gaussian-process regression: the gp sim's whole run (every
	// observation in, then its Frame and Result) against one scikit-learn
	// fit of the same points at the same hyperparameters.
	sin, err := dataset.Sinusoid(rng(1), sz.gp, 0.3, 0.45, 0.7)
	if err != nil {
		return nil, err
	}
	gpTab, err := writeTable(dir, "gp.csv", []string{"x", "y"}, sin.X, sin.Y)
	if err != nil {
		return nil, err
	}
	lo, hi := span(sin.X)
	cases = append(cases, &benchCase{
		name: fmt.Sprintf("gp: whole run, %d observations", sz.gp), target: "≤ 2",
		lab: func() (string, int, error) {
			return runSim("gp", map[string]string{"grid_points": "120"}, gpTab, sz.gp+1)
		},
		ref: job{"case": "gp", "lengthscale": 0.1, "variance": 1.0, "noise": 0.09, "lo": lo, "hi": hi, "grid": 120},
	})

	// gp-fit: one evaluation of the log marginal likelihood and its
	// gradient, what each of its iterations costs at least once.
	fitData, err := dataset.Sinusoid(rng(2), sz.gpFit, 0.3, 0, 0)
	if err != nil {
		return nil, err
	}
	if _, err := writeTable(dir, "gpfit.csv", []string{"x", "y"}, fitData.X, fitData.Y); err != nil {
		return nil, err
	}
	h := gp.Hyper{Lengthscale: 0.3, Variance: 1.5, Noise: 0.09}
	cases = append(cases, &benchCase{
		name: fmt.Sprintf("gp-fit: log p(y|θ) and ∇, %d observations", sz.gpFit), target: "≤ 2",
		lab: func() (string, int, error) {
			_, err := gp.LogMarginalSE(fitData.X, fitData.Y, h)
			return "gp.LogMarginalSE", 0, err
		},
		ref: job{"case": "gp_eval", "lengthscale": h.Lengthscale, "variance": h.Variance, "noise": h.Noise},
	})

	// SVMs: the engine alone (SMO to the tolerance) and the svm sim's whole
	// run, against scikit-learn's SVC (LIBSVM) at the same C, γ, tolerance
	// and cache.
	bc, err := dataset.GaussianClasses(rng(3), sz.svmN, sz.svmD, 2.5)
	if err != nil {
		return nil, err
	}
	moons, err := dataset.Moons(rng(4), sz.moons, 0.15)
	if err != nil {
		return nil, err
	}
	svms := []struct {
		name  string
		data  *dataset.Labelled
		gamma float64
	}{
		{fmt.Sprintf("%d×%d (breast-cancer-shaped)", sz.svmN, sz.svmD), bc, 1 / float64(sz.svmD)},
		{fmt.Sprintf("%d two-moons points", sz.moons), moons, 2},
	}
	if !smoke {
		big, err := dataset.Moons(rng(5), sz.moonsBig, 0.15)
		if err != nil {
			return nil, err
		}
		svms = append(svms, struct {
			name  string
			data  *dataset.Labelled
			gamma float64
		}{fmt.Sprintf("%d two-moons points", sz.moonsBig), big, 2})
	}
	for i, s := range svms {
		x := dataset.Standardize(s.data.X) // as the sim does with --data
		y, err := s.data.PlusMinus()
		if err != nil {
			return nil, err
		}
		file := fmt.Sprintf("svm%d.csv", i)
		tab, err := writeTable(dir, file, columnNames(len(x[0])), x, y)
		if err != nil {
			return nil, err
		}
		ref := job{"case": "svm", "file": file, "C": 1.0, "gamma": s.gamma, "tol": 1e-3, "cache_mb": 100}
		if i < 2 {
			cases = append(cases, &benchCase{
				name: "svm engine: " + s.name, target: "≤ 1", ref: ref,
				lab: func() (string, int, error) {
					m, err := svm.NewKernel(x, kernel.RBF{Gamma: s.gamma}, y, svm.Config{C: 1, Tol: 1e-3, Cache: 100 << 20, Shrink: true})
					if err != nil {
						return "", 0, err
					}
					if err := toEnd(m.Step, 10_000_000); err != nil {
						return "", 0, err
					}
					free, bound, _ := m.Counts()
					return fmt.Sprintf("%d pair updates, %d support vectors, %d kernel rows computed", m.Iter(), free+bound, m.RowsComputed()), 0, nil
				},
			})
		}
		set := map[string]string{"C": "1", "tol": "1e-3", "cache_mb": "100", "kernel": "rbf", "gamma": strconv.FormatFloat(s.gamma, 'g', -1, 64)}
		cases = append(cases, &benchCase{
			name: "svm sim, whole run: " + s.name, target: "≤ 1.2, memory ≤ LIBSVM's", ref: ref, memory: true,
			lab: func() (string, int, error) { return runSim("svm", set, tab, 10_000_000) },
		})
	}

	// Logistic regression by Newton: the engine from the design matrix and
	// the logreg sim's whole run, against newton-cg, λ = 1/(nC).
	lr, err := linearData(rng(6), sz.logN, sz.logD)
	if err != nil {
		return nil, err
	}
	bcY, _ := bc.PlusMinus()
	logs := []struct {
		name string
		x    [][]float64
		y    []float64
	}{
		{fmt.Sprintf("%d×%d (breast-cancer-shaped)", sz.svmN, sz.svmD), bc.X, bcY},
		{fmt.Sprintf("%d×%d", sz.logN, sz.logD), lr.X, lr.Y},
	}
	const lambda, tol = 1e-3, 1e-8
	for i, l := range logs {
		file := fmt.Sprintf("logreg%d.csv", i)
		tab, err := writeTable(dir, file, columnNames(len(l.x[0])), l.x, l.y)
		if err != nil {
			return nil, err
		}
		ref := job{"case": "logreg", "file": file, "lambda": lambda, "tol": tol}
		cases = append(cases,
			&benchCase{
				name: "logreg engine (Newton): " + l.name, target: "≤ 1", ref: ref,
				lab: func() (string, int, error) {
					d, err := linear.NewDesign(l.x, true)
					if err != nil {
						return "", 0, err
					}
					f, err := linear.NewLogistic(d, l.y, lambda)
					if err != nil {
						return "", 0, err
					}
					nw, err := optim.NewNewton(f, make([]float64, d.P()), optim.NewtonConfig{Tol: tol})
					if err != nil {
						return "", 0, err
					}
					err = toEnd(nw.Step, 1000)
					return fmt.Sprintf("%d Newton steps", nw.Iter()), 0, err
				},
			},
			&benchCase{
				name: "logreg sim, whole run (newton): " + l.name, target: "≤ 1", ref: ref,
				lab: func() (string, int, error) {
					return runSim("logreg", map[string]string{"method": "newton", "lambda": fmt.Sprint(lambda), "tol": fmt.Sprint(tol)}, tab, 1000)
				},
			})
	}

	// k-means and EM, per iteration, from the same starting centres, on one
	// worker (the reference on one thread); the speed-up on the machine's
	// cores is the next rows.
	// Overlapping clusters, so that both take tens of iterations.
	km, err := mixture.Blobs(rng(7), sz.kmeans, 8, 1.5)
	if err != nil {
		return nil, err
	}
	if _, err := writeTable(dir, "kmeans.csv", []string{"x", "y", "label"}, km.Points, make([]float64, len(km.Points))); err != nil {
		return nil, err
	}
	start, err := mixture.NewKMeans(km.Points, 8, rng(8))
	if err != nil {
		return nil, err
	}
	centres := start.Centers()
	kmRun := func(workers int) func() (string, int, error) {
		return iterations(workers, sz.kmIter, func() (fitter, error) { return mixture.NewKMeans(km.Points, 8, rng(8)) })
	}
	cases = append(cases, &benchCase{
		name: fmt.Sprintf("k-means iteration, %d points, k = 8", sz.kmeans), target: "≤ 1", perIter: true,
		lab: kmRun(1), ref: job{"case": "kmeans", "centres": centres, "iters": sz.kmIter},
	})

	// The same in 8 dimensions, the general pass.
	km8 := gaussianClusters(rng(13), sz.kmeans/5, 8, 8, 1)
	if _, err := writeTable(dir, "kmeans8.csv", columnNames(8), km8, make([]float64, len(km8))); err != nil {
		return nil, err
	}
	start8, err := mixture.NewKMeans(km8, 8, rng(14))
	if err != nil {
		return nil, err
	}
	cases = append(cases, &benchCase{
		name: fmt.Sprintf("k-means iteration, %d points in 8-D, k = 8", len(km8)), target: "≤ 1", perIter: true,
		lab: iterations(1, sz.kmIter, func() (fitter, error) { return mixture.NewKMeans(km8, 8, rng(14)) }),
		ref: job{"case": "kmeans", "file": "kmeans8.csv", "centres": start8.Centers(), "iters": sz.kmIter},
	})

	em, err := mixture.Blobs(rng(9), sz.em, 5, 2)
	if err != nil {
		return nil, err
	}
	if _, err := writeTable(dir, "em.csv", []string{"x", "y", "label"}, em.Points, make([]float64, len(em.Points))); err != nil {
		return nil, err
	}
	emCfg := mixture.Config{K: 5, Reg: mixture.DefaultReg}
	e0, err := mixture.New(em.Points, emCfg, rng(10))
	if err != nil {
		return nil, err
	}
	var means [][]float64
	var variances []float64
	for _, c := range e0.Components() {
		means, variances = append(means, c.Mean), append(variances, c.Cov[0][0])
	}
	emRun := func(workers int) func() (string, int, error) {
		return iterations(workers, sz.mixIters, func() (fitter, error) { return mixture.New(em.Points, emCfg, rng(10)) })
	}
	cases = append(cases, &benchCase{
		name: fmt.Sprintf("EM iteration (E + M), %d points, k = 5", sz.em), target: "≤ 1", perIter: true,
		lab: emRun(1), ref: job{"case": "em", "means": means, "variances": variances, "iters": sz.mixIters},
	})
	// The same in 8 dimensions: the general passes (Cholesky solves, the
	// upper triangle of each scatter matrix) against the same reference.
	pts8 := gaussianClusters(rng(11), sz.em/5, 8, 5, 1)
	if _, err := writeTable(dir, "em8.csv", columnNames(8), pts8, make([]float64, len(pts8))); err != nil {
		return nil, err
	}
	e8, err := mixture.New(pts8, emCfg, rng(12))
	if err != nil {
		return nil, err
	}
	var means8 [][]float64
	var variances8 []float64
	for _, c := range e8.Components() {
		means8, variances8 = append(means8, c.Mean), append(variances8, c.Cov[0][0])
	}
	cases = append(cases, &benchCase{
		name: fmt.Sprintf("EM iteration (E + M), %d points in 8-D, k = 5", len(pts8)), target: "≤ 1", perIter: true,
		lab: iterations(1, sz.mixIters, func() (fitter, error) { return mixture.New(pts8, emCfg, rng(12)) }),
		ref: job{"case": "em", "file": "em8.csv", "means": means8, "variances": variances8, "iters": sz.mixIters},
	})
	// Speed-up: the same iterations on every core against one, in wall
	// time (what the user waits for; the CPU columns show the overhead).
	cases = append(cases,
		&benchCase{name: fmt.Sprintf("k-means iteration, all cores against one, %d points", sz.kmeans), target: "speed-up",
			perIter: true, lab: kmRun(0), vs: kmRun(1)},
		&benchCase{name: fmt.Sprintf("EM iteration, all cores against one, %d points", sz.em), target: "speed-up",
			perIter: true, lab: emRun(0), vs: emRun(1)},
	)

	// Dense Cholesky: gonum's (pure Go, blocked dpotrf over its BLAS)
	// against NumPy's (LAPACK over OpenBLAS, one thread).
	for _, n := range sz.cholesky {
		a := spd(n)
		work := make([]float64, n*n)
		cases = append(cases, &benchCase{
			name: fmt.Sprintf("Cholesky %d×%d", n, n), target: "measured (issue 14.6)", ref: job{"case": "cholesky", "n": n},
			lab: func() (string, int, error) {
				copy(work, a)
				if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: work}); !ok {
					return "", 0, fmt.Errorf("not positive definite")
				}
				return "gonum lapack64.Potrf", 0, nil
			},
		})
	}
	return cases, nil
}

// fitter is what iterations needs of k-means and EM.
type fitter interface {
	Step() error
	Iter() int
	SetWorkers(int)
}

// iterations is a lab side that builds a fit and runs it on workers
// goroutines for maxIter iterations or to convergence, returning the
// number of iterations.
func iterations(workers, maxIter int, build func() (fitter, error)) func() (string, int, error) {
	return func() (string, int, error) {
		f, err := build()
		if err != nil {
			return "", 0, err
		}
		f.SetWorkers(workers)
		for f.Iter() < maxIter {
			if err := f.Step(); err != nil {
				if errors.Is(err, algo.ErrConverged) {
					break
				}
				return "", 0, err
			}
		}
		return cores(workers), max(f.Iter(), 1), nil
	}
}

// cores names a worker count.
func cores(workers int) string {
	if workers == 1 {
		return "one core"
	}
	return "all cores"
}

// runSim builds a sim on the table as `lab run NAME --data` would, steps it
// until it converges (at most steps), and builds its Frame and Result.
func runSim(name string, set map[string]string, data *sims.Table, steps int) (string, int, error) {
	spec := catalog.All().Lookup(name)
	vals, err := sims.Resolve(spec.Params, set)
	if err != nil {
		return "", 0, err
	}
	sim, err := spec.Build(sims.Config{Values: vals, Seed: 1, Data: data, Workers: 1})
	if err != nil {
		return "", 0, err
	}
	n := 0
	for ; n < steps; n++ {
		if err := sim.Step(); err != nil {
			if errors.Is(err, algo.ErrConverged) {
				break
			}
			return "", 0, err
		}
	}
	sim.Frame()
	sim.Result()
	return fmt.Sprintf("%d steps", n), 0, nil
}

// toEnd steps until convergence (an error if another error or none within
// max steps).
func toEnd(step func() error, max int) error {
	for range max {
		if err := step(); err != nil {
			if errors.Is(err, algo.ErrConverged) {
				return nil
			}
			return err
		}
	}
	return fmt.Errorf("no convergence in %d steps", max)
}

// writeTable writes x and y as a CSV (y last) and returns them as the
// table --data would give, the numbers written exactly.
func writeTable(dir, name string, cols []string, x [][]float64, y []float64) (*sims.Table, error) {
	var b strings.Builder
	b.WriteString(strings.Join(cols, ",") + "\n")
	t := &sims.Table{Name: name, Columns: cols}
	for i, r := range x {
		row := append(append([]float64(nil), r...), y[i])
		t.Rows = append(t.Rows, row)
		for j, v := range row {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	return t, os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
}

// columnNames is x1 … xd, label.
// gaussianClusters draws n points in d dimensions from k unit-variance
// Gaussians, point i from cluster i mod k, whose means are drawn from
// N(0, spread²I).
func gaussianClusters(r *rand.Rand, n, d, k int, spread float64) [][]float64 {
	means := make([][]float64, k)
	for j := range means {
		means[j] = make([]float64, d)
		for a := range means[j] {
			means[j][a] = spread * r.NormFloat64()
		}
	}
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, d)
		for a, m := range means[i%k] {
			pts[i][a] = m + r.NormFloat64()
		}
	}
	return pts
}

func columnNames(d int) []string {
	c := make([]string, d+1)
	for j := range d {
		c[j] = fmt.Sprintf("x%d", j+1)
	}
	c[d] = "label"
	return c
}

func span(x [][]float64) (lo, hi float64) {
	lo, hi = x[0][0], x[0][0]
	for _, r := range x {
		lo, hi = min(lo, r[0]), max(hi, r[0])
	}
	return lo - 0.15*(hi-lo), hi + 0.15*(hi-lo)
}

// linearData is n×d Gaussian features with ±1 labels from a noisy linear
// rule (the classes overlap, so a minimiser exists even at λ = 0).
func linearData(rng *rand.Rand, n, d int) (*dataset.Labelled, error) {
	l := &dataset.Labelled{Name: "linear", Classes: 2, X: make([][]float64, n), Y: make([]float64, n)}
	for i := range l.X {
		r := make([]float64, d)
		s := 0.0
		for j := range r {
			r[j] = rng.NormFloat64()
			s += r[j] * float64(j%3-1)
		}
		l.X[i] = r
		l.Y[i] = 1
		if s+rng.NormFloat64() < 0 {
			l.Y[i] = -1
		}
	}
	return l, nil
}

// spd is the n×n symmetric positive-definite matrix BBᵀ + nI, B standard
// normal (the reference builds its own of the same kind: a Cholesky's cost
// does not depend on the entries).
func spd(n int) []float64 {
	rng := rand.New(rand.NewPCG(uint64(n), 6))
	b := make([]float64, n*n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	a := make([]float64, n*n)
	bg := blas64.General{Rows: n, Cols: n, Stride: n, Data: b}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, bg, bg, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: a})
	for i := 0; i < n; i++ {
		a[i*n+i] += float64(n)
	}
	return a
}
