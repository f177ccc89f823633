package mixture

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// slack is the relative rounding allowed in a log-likelihood (see TestMonotone).
func slack(x float64) float64 { return 1e-9 * math.Abs(x) }

// ndSample is labelled mixture data in d dimensions: cluster j has mean
// sep·e_j (so the means are sep·√2 apart) and covariance Q diag(s²) Qᵀ with
// a random rotation Q and s.d.s s uniform in [0.4, 1]; cluster j draws
// about n/k points.
type ndSample struct {
	points [][]float64
	labels []int
	means  [][]float64
	covs   [][][]float64
}

func ndBlobs(seed uint64, n, d, k int, sep float64) *ndSample {
	rng := newRNG(seed)
	s := &ndSample{}
	ls := make([][][]float64, k) // L = Q diag(s): x = μ + L z
	for j := range k {
		mu := make([]float64, d)
		mu[j%d] = sep * float64(1+j/d)
		q := algotest.Orthogonal(rng, d)
		l := make([][]float64, d)
		cov := make([][]float64, d)
		sd := make([]float64, d)
		for a := range sd {
			sd[a] = 0.4 + 0.6*rng.Float64()
		}
		for t := range d {
			l[t] = make([]float64, d)
			for a := range d {
				l[t][a] = q[a][t] * sd[a]
			}
		}
		for t := range d {
			cov[t] = make([]float64, d)
			for u := range d {
				for a := range d {
					cov[t][u] += l[t][a] * l[u][a]
				}
			}
		}
		s.means, s.covs, ls[j] = append(s.means, mu), append(s.covs, cov), l
	}
	for i := range n {
		j := i % k
		x := append([]float64(nil), s.means[j]...)
		for a := range d {
			z := rng.NormFloat64()
			for t := range d {
				x[t] += ls[j][t][a] * z
			}
		}
		s.points, s.labels = append(s.points, x), append(s.labels, j)
	}
	return s
}

// transform returns the points x ↦ Qx + b.
func transform(points, q [][]float64, b []float64) [][]float64 {
	out := make([][]float64, len(points))
	for i, x := range points {
		y := append([]float64(nil), b...)
		for a, row := range q {
			for t, v := range row {
				y[a] += v * x[t]
			}
		}
		out[i] = y
	}
	return out
}

// directLogLik is log p(x | θ) (eq 2.6) by gonum's multivariate normal, an
// implementation independent of the engine's.
func directLogLik(t *testing.T, e *EM) float64 {
	t.Helper()
	d := e.Dim()
	var dists []*distmv.Normal
	var logw []float64
	for _, g := range e.Components() {
		sigma := mat.NewSymDense(d, nil)
		for a := range d {
			for b := a; b < d; b++ {
				sigma.SetSym(a, b, g.Cov[a][b])
			}
		}
		n, ok := distmv.NewNormal(g.Mean, sigma, nil)
		if !ok {
			t.Fatalf("Σ not positive definite: %v", g.Cov)
		}
		dists, logw = append(dists, n), append(logw, math.Log(g.Weight))
	}
	ll := 0.0
	x := make([]float64, d)
	for i := range e.N() {
		for a := range x {
			x[a] = e.Coord(a)[i]
		}
		m, terms := math.Inf(-1), make([]float64, len(dists))
		for j, n := range dists {
			terms[j] = logw[j] + n.LogProb(x)
			m = max(m, terms[j])
		}
		s := 0.0
		for _, v := range terms {
			s += math.Exp(v - m)
		}
		ll += m + math.Log(s)
	}
	return ll
}

// TestEMInDimensions is EM in d = 3, 4 and 6 dimensions against oracles
// computed apart from the engine, after every M-step: the log-likelihood
// against gonum's multivariate normal (to 1e-9 relative), the M-step
// against eqs (2.13)–(2.15) evaluated directly from the responsibilities
// of the E-step before it (to 1e-9 of the data's scale; the floor is
// inactive here), and the monotonicity (2.37) with the bound between the
// old and the new log-likelihood.
func TestEMInDimensions(t *testing.T) {
	for _, c := range []struct{ n, d, k int }{{300, 3, 3}, {400, 4, 2}, {500, 6, 4}} {
		t.Run(fmt.Sprintf("n=%d/d=%d/k=%d", c.n, c.d, c.k), func(t *testing.T) {
			s := ndBlobs(uint64(c.d), c.n, c.d, c.k, 3)
			e, err := New(s.points, Config{K: c.k, Reg: DefaultReg, Tol: 0, Init: InitPlusPlus}, newRNG(7))
			if err != nil {
				t.Fatal(err)
			}
			if e.Dim() != c.d {
				t.Fatalf("Dim = %d", e.Dim())
			}
			scale := math.Sqrt(e.Scale())
			defer func() {
				if e.Iter() < 5 {
					t.Errorf("only %d iterations checked", e.Iter())
				}
			}()
			for e.Iter() < 15 {
				before := e.LogLik()
				if err := e.Step(); errors.Is(err, algo.ErrConverged) {
					break
				} else if err != nil { // E
					t.Fatal(err)
				}
				q, _ := e.Resp()
				q = append([]float64(nil), q...)
				if err := e.Step(); err != nil { // M
					t.Fatal(err)
				}
				if want := directLogLik(t, e); math.Abs(e.LogLik()-want) > 1e-9*math.Abs(want) {
					t.Fatalf("iteration %d: log p = %.15g, gonum %.15g", e.Iter(), e.LogLik(), want)
				}
				elbo, _ := e.ELBO()
				if elbo < before-slack(before) || e.LogLik() < elbo-slack(elbo) {
					t.Fatalf("iteration %d: log p old %.15g, L %.15g, log p new %.15g", e.Iter(), before, elbo, e.LogLik())
				}
				for j, g := range e.Components() {
					nk, mu := 0.0, make([]float64, c.d)
					for i, x := range s.points {
						nk += q[i*c.k+j]
						for a, v := range x {
							mu[a] += q[i*c.k+j] * v
						}
					}
					if w := nk / float64(c.n); math.Abs(g.Weight-w) > 1e-12 {
						t.Fatalf("π_%d = %v, N_k/N = %v", j, g.Weight, w)
					}
					for a := range mu {
						mu[a] /= nk
						if math.Abs(g.Mean[a]-mu[a]) > 1e-9*scale {
							t.Fatalf("μ_%d[%d] = %v, eq 2.13 gives %v", j, a, g.Mean[a], mu[a])
						}
					}
					for a := range c.d {
						for b := range c.d {
							sab := 0.0
							for i, x := range s.points {
								sab += q[i*c.k+j] * (x[a] - mu[a]) * (x[b] - mu[b])
							}
							if sab /= nk; math.Abs(g.Cov[a][b]-sab) > 1e-9*scale*scale {
								t.Fatalf("Σ_%d[%d][%d] = %v, eq 2.14 gives %v", j, a, b, g.Cov[a][b], sab)
							}
						}
					}
				}
			}
		})
	}
}

// TestEMRotationInvariant: the mixture log-likelihood of Qx + b under the
// transformed θ equals that of x (|det Q| = 1), distances are unchanged, so
// k-means++ picks the same seeds and k-means the same clusters, and the
// floor εI is invariant: EM run on rotated and shifted data must trace the
// same log-likelihood, to 1e-9 relative, in 3 and 5 dimensions, from either
// start.
func TestEMRotationInvariant(t *testing.T) {
	for _, d := range []int{3, 5} {
		for _, init := range []InitMode{InitPlusPlus, InitKMeans} {
			t.Run(fmt.Sprintf("d=%d/init=%v", d, init), func(t *testing.T) {
				s := ndBlobs(uint64(10+d), 400, d, 3, 2.5)
				b := make([]float64, d)
				for a := range b {
					b[a] = float64(10 * (a + 1))
				}
				moved := transform(s.points, algotest.Orthogonal(newRNG(uint64(d)), d), b)
				var traces [2][]float64
				for r, pts := range [][][]float64{s.points, moved} {
					e, err := New(pts, Config{K: 3, Reg: DefaultReg, Tol: DefaultTol, Init: init}, newRNG(3))
					if err != nil {
						t.Fatal(err)
					}
					run(t, e, 200)
					traces[r] = e.Trace()
				}
				if len(traces[0]) != len(traces[1]) || len(traces[0]) < 6 {
					t.Fatalf("%d and %d iterations", len(traces[0])-1, len(traces[1])-1)
				}
				for i, v := range traces[0] {
					if w := traces[1][i]; math.Abs(v-w) > 1e-9*math.Abs(v) {
						t.Fatalf("iteration %d: %.15g on x, %.15g on Qx + b", i, v, w)
					}
				}
			})
		}
	}
}

// TestPlaneMatchesGeneral: in the plane, the unrolled passes of k-means
// and EM give what the passes for any d give (white box: the general block
// functions swapped in), the same assignments and J, and EM's trace to
// 1e-12 relative.
func TestPlaneMatchesGeneral(t *testing.T) {
	pts := blobs(t, 9, 3000, 4).Points
	var kms [2]*KMeans
	var ems [2]*EM
	for r := range 2 {
		m, err := NewKMeans(pts, 5, newRNG(2))
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(pts, Config{K: 5, Reg: DefaultReg, Tol: 0}, newRNG(2))
		if err != nil {
			t.Fatal(err)
		}
		if r == 1 {
			m.assignFn, e.evalFn, e.mFn = m.assignBlock, e.evalBlock, e.mBlock
			if err := e.evaluate(); err != nil {
				t.Fatal(err)
			}
		}
		for range 30 {
			if m.Step() != nil {
				break
			}
		}
		run(t, e, 30)
		kms[r], ems[r] = m, e
	}
	a, b := kms[0].Assign(nil), kms[1].Assign(nil)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("point %d: cluster %d unrolled, %d general", i, a[i], b[i])
		}
	}
	if ja, jb := kms[0].J(), kms[1].J(); math.Abs(ja-jb) > 1e-12*ja || kms[0].HalfSteps() != kms[1].HalfSteps() {
		t.Errorf("J %v and %v after %d and %d half-steps", ja, jb, kms[0].HalfSteps(), kms[1].HalfSteps())
	}
	ta, tb := ems[0].Trace(), ems[1].Trace()
	if len(ta) != len(tb) {
		t.Fatalf("EM: %d and %d iterations", len(ta)-1, len(tb)-1)
	}
	for i := range ta {
		if math.Abs(ta[i]-tb[i]) > 1e-12*math.Abs(ta[i]) {
			t.Fatalf("EM iteration %d: %.15g unrolled, %.15g general", i, ta[i], tb[i])
		}
	}
}

// TestKMeansInDimensions runs TestKMeansMonotone's checks (J against its
// recomputation, monotone, the stopping rule, the fixed point) in 3 and 7
// dimensions.
func TestKMeansInDimensions(t *testing.T) {
	for _, c := range []struct{ n, d, clusters, k int }{{200, 3, 3, 3}, {500, 3, 4, 6}, {800, 7, 5, 5}, {300, 7, 2, 10}} {
		t.Run(fmt.Sprintf("n=%d/d=%d/k=%d", c.n, c.d, c.k), func(t *testing.T) {
			checkKMeansRun(t, ndBlobs(uint64(c.n), c.n, c.d, c.clusters, 3).points, c.k, 5)
		})
	}
}

// TestFloor checks the covariance floor on data that drives components
// towards a collapse (k = 10 on 30 points in the plane, k = 8 on 30 points
// in 3-D, a large floor so that it binds): after every M-step each Σ_k has
// every eigenvalue ≥ ε (to rounding; by gonum, not by the engine's closed
// form in the plane or its Cholesky test in 3-D), the floor binds at some
// point and AtFloor finds it, and the log-likelihood never falls (2.37).
func TestFloor(t *testing.T) {
	for _, c := range []struct {
		name   string
		points [][]float64
		k      int
	}{
		{"2-D", blobs(t, 2, 30, 2).Points, 10},
		{"3-D", ndBlobs(2, 30, 3, 2, 3).points, 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(c.points, Config{K: c.k, Reg: 1e-2, Tol: 0, Init: InitPlusPlus}, newRNG(2))
			if err != nil {
				t.Fatal(err)
			}
			eps, bound, d := e.Eps(), 0, e.Dim()
			prev := math.Inf(-1)
			for e.HalfSteps() < 400 {
				if err := e.Step(); errors.Is(err, algo.ErrConverged) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				if ll := e.LogLik(); ll < prev-slack(prev) {
					t.Fatalf("half-step %d: log p fell from %.15g to %.15g", e.HalfSteps(), prev, ll)
				} else {
					prev = ll
				}
				for j, g := range e.Components() {
					var eig mat.EigenSym
					sym := mat.NewSymDense(d, nil)
					for a := range d {
						for b := a; b < d; b++ {
							sym.SetSym(a, b, g.Cov[a][b])
						}
					}
					if !eig.Factorize(sym, false) {
						t.Fatal("no eigendecomposition")
					}
					lo := eig.Values(nil)[0]
					if lo < eps*(1-1e-9) {
						t.Fatalf("half-step %d: Σ_%d has eigenvalue %g < ε = %g", e.HalfSteps(), j, lo, eps)
					}
					if lo < eps*(1+1e-9) {
						bound++
					}
				}
			}
			if bound == 0 {
				t.Error("the floor never bound: the test does not exercise it")
			}
			if _, ok := e.AtFloor(); !ok {
				t.Error("AtFloor finds no component at the floor")
			}
		})
	}
}

// TestRecoveryInDimensions: on five well-separated clusters in 5
// dimensions (means 6√2 s.d. apart), the best of two EM runs puts every
// mean within 5 standard errors of its cluster's true mean, and within
// 0.02 of a standard error of the complete-data MLE (the labelled
// clusters' own means), as TestRecovery does in the plane; and k-means
// from the same start puts every point in its own cluster.
func TestRecoveryInDimensions(t *testing.T) {
	const n, d, k = 1000, 5, 5
	s := ndBlobs(4, n, d, k, 6)
	e, _, err := BestEM(s.points, Config{K: k, Reg: DefaultReg, Tol: DefaultTol, Init: InitKMeans}, 2, 500, 1,
		func(r int) *rand.Rand { return newRNG(uint64(20 + r)) })
	if err != nil {
		t.Fatal(err)
	}
	fit := e.Components()
	for j := range k {
		best, bj := math.Inf(1), 0
		for i, g := range fit {
			dist := 0.0
			for a := range d {
				dist += sq(g.Mean[a] - s.means[j][a])
			}
			if dist < best {
				best, bj = dist, i
			}
		}
		mle, nk := make([]float64, d), 0.0
		for i, x := range s.points {
			if s.labels[i] == j {
				nk++
				for a, v := range x {
					mle[a] += v
				}
			}
		}
		for a := range d {
			mle[a] /= nk
			se := math.Sqrt(s.covs[j][a][a] / nk)
			if got := fit[bj].Mean[a]; math.Abs(got-s.means[j][a]) > 5*se || math.Abs(got-mle[a]) > 0.02*se {
				t.Errorf("cluster %d, μ[%d] = %.6g: truth %.6g, complete-data MLE %.6g, s.e. %.2g", j, a, got, s.means[j][a], mle[a], se)
			}
		}
	}
	km, _, err := BestKMeans(s.points, k, 2, 300, 1, func(r int) *rand.Rand { return newRNG(uint64(20 + r)) })
	if err != nil {
		t.Fatal(err)
	}
	assign := km.Assign(nil)
	label := map[int]int{}
	for i, a := range assign {
		if l, ok := label[a]; ok && l != s.labels[i] {
			t.Fatalf("cluster %d holds points of clusters %d and %d", a, l, s.labels[i])
		}
		label[a] = s.labels[i]
	}
}

// TestStepAllocsInDimensions: a full EM iteration and a k-means one
// allocate nothing in 4 dimensions either.
func TestStepAllocsInDimensions(t *testing.T) {
	s := ndBlobs(3, 1000, 4, 3, 3)
	e, err := New(s.points, Config{K: 4, Reg: DefaultReg, Tol: 0}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewKMeans(s.points, 4, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if err := e.Step(); err != nil {
			t.Fatal(err)
		}
		if err := e.Step(); err != nil {
			t.Fatal(err)
		}
		_ = m.Step()
		_ = m.Step()
	})
	if allocs != 0 {
		t.Errorf("an iteration allocates %v times", allocs)
	}
}

// BenchmarkEMIterationInDimensions times one full EM iteration (E + M)
// on 20,000 points in 8 dimensions with k = 5, the general passes.
func BenchmarkEMIterationInDimensions(b *testing.B) {
	s := ndBlobs(1, 20000, 8, 5, 1.5)
	e, err := New(s.points, Config{K: 5, Reg: DefaultReg, Tol: 0}, newRNG(1))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.eStep()
		if err := e.mStep(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKMeansIterationInDimensions times one k-means iteration
// (assignment and update) on 20,000 points in 8 dimensions with k = 8,
// the general pass.
func BenchmarkKMeansIterationInDimensions(b *testing.B) {
	s := ndBlobs(1, 20000, 8, 8, 1)
	m, err := NewKMeans(s.points, 8, newRNG(1))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.assignStep()
		m.updateStep()
	}
}
