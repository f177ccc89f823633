package rff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/gp"
	"github.com/thelab/lab/algo/kernel"
	"gonum.org/v1/gonum/mat"
)

// gpData is n noisy points of sin 2πx on [0, 1] and nt test points.
func gpData(n, nt int, seed uint64) (pts [][]float64, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	for range n {
		x := rng.Float64()
		pts = append(pts, []float64{x})
		y = append(y, math.Sin(2*math.Pi*x)+0.1*rng.NormFloat64())
	}
	for t := range nt {
		pts = append(pts, []float64{-0.2 + 1.4*float64(t)/float64(nt-1)})
	}
	return pts, y
}

// TestWeightSpaceEqualsFunctionSpace (X1, exact): at every m the weight
// space posterior on 2m features equals the function-space GP posterior
// with the Gram matrix K̂_m = ΦΦᵀ, mean and variance to 1e-10 (both from
// Cholesky solves, one of order 2m, one of order n).
func TestWeightSpaceEqualsFunctionSpace(t *testing.T) {
	const n, nt, noise = 15, 9, 0.01
	pts, y := gpData(n, nt, 1)
	for _, kind := range []Kind{IID, ORF} {
		s, _ := NewSampler(1, 20, kind, rand.New(rand.NewPCG(4, 4)))
		f, err := NewFeatures(pts, s, 40)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewWeightSpaceGP(f, y, noise)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for g.Step() == nil {
			c := mat.NewSymDense(n, nil)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					v := f.Kernel(i, j)
					if i == j {
						v += noise
					}
					c.SetSym(i, j, v)
				}
			}
			var ch mat.Cholesky
			if !ch.Factorize(c) {
				t.Fatal("K̂ + σ²I not PD")
			}
			a := mat.NewVecDense(n, nil)
			ch.SolveVecTo(a, mat.NewVecDense(n, y))
			for tt := 0; tt < nt; tt++ {
				k := mat.NewVecDense(n, nil)
				for i := 0; i < n; i++ {
					k.SetVec(i, f.Kernel(i, n+tt))
				}
				mean := mat.Dot(k, a)
				v := mat.NewVecDense(n, nil)
				ch.SolveVecTo(v, k)
				vr := f.Kernel(n+tt, n+tt) - mat.Dot(k, v)
				worst = math.Max(worst, math.Abs(mean-g.Mean()[tt]))
				worst = math.Max(worst, math.Abs(vr-g.Var()[tt]))
			}
		}
		if worst > 1e-10 {
			t.Errorf("%s: weight vs function space differ by %g", kind, worst)
		}
		t.Logf("%s: largest difference %.2g over m = 1…40", kind, worst)
	}
}

// TestRFFGPApproachesExact (X1, statistical): the RMS gap between the RFF
// GP's mean and the exact-kernel GP's (algo/gp) over the test points falls
// with m; its log-log slope over m = 4…64, over 8 seeds, is
// −½ ± 0.15.
func TestRFFGPApproachesExact(t *testing.T) {
	const n, nt, noise, gamma = 20, 30, 0.01, 20
	pts, y := gpData(n, nt, 2)
	post, err := gp.Fit(kernel.RBF{Gamma: gamma}, pts[:n], y, noise)
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := post.Predict(pts[n:])
	var lx, ly []float64
	for seed := range uint64(8) {
		s, _ := NewSampler(1, gamma, IID, rand.New(rand.NewPCG(seed, 8)))
		f, _ := NewFeatures(pts, s, 64)
		g, _ := NewWeightSpaceGP(f, y, noise)
		for f.Add() == nil {
			if m := g.M(); m >= 4 && m&(m-1) == 0 {
				if err := g.Refit(); err != nil {
					t.Fatal(err)
				}
				s := 0.0
				for i, v := range g.Mean() {
					s += (v - exact[i]) * (v - exact[i])
				}
				lx = append(lx, math.Log(float64(m)))
				ly = append(ly, 0.5*math.Log(s/nt))
			}
		}
	}
	sl := slope(lx, ly)
	if math.Abs(sl+0.5) > 0.15 {
		t.Errorf("gap slope %v, want −½", sl)
	}
	t.Logf("RMS gap to the exact GP: log-log slope %.3f", sl)
}

func TestModelsBadParams(t *testing.T) {
	s, _ := NewSampler(1, 1, IID, rand.New(rand.NewPCG(1, 1)))
	_, err := NewFeatures(nil, s, 4)
	algotest.WantParam(t, err, "points")
	_, err = NewFeatures([][]float64{{1, 2}}, s, 4)
	algotest.WantParam(t, err, "d")
	_, err = NewFeatures([][]float64{{1}}, s, 0)
	algotest.WantParam(t, err, "m_max")
	f, _ := NewFeatures([][]float64{{1}, {2}}, s, 4)
	_, err = NewWeightSpaceGP(f, []float64{1}, 0)
	algotest.WantParam(t, err, "noise")
	_, err = NewWeightSpaceGP(f, []float64{1, 2, 3}, 1)
	algotest.WantParam(t, err, "y")
}

// TestStepsDoNotAllocate: the steps that say so allocate nothing: FAVOR+'s
// (iid and orthogonal frequencies, across block boundaries),
// Gram–Schmidt's, the features' Add and the weight-space GP's Step.
func TestStepsDoNotAllocate(t *testing.T) {
	q, k, v := favorTokens(6, 4, 1, 1)
	for _, kind := range []Kind{IID, ORF} {
		s, _ := NewSampler(4, 0.5, kind, rand.New(rand.NewPCG(1, 1)))
		f, err := NewFavor(q, k, v, s)
		if err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(10, func() { _ = f.Step() }); n != 0 {
			t.Errorf("FAVOR+ (%s): %v allocations a step", kind, n)
		}
	}
	g := make([][]float64, 12)
	for i := range g {
		g[i] = make([]float64, 12)
		g[i][i], g[i][(i+1)%12] = 1, 0.5
	}
	gs, err := NewGramSchmidt(g)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(10, func() { _ = gs.Step(); _ = gs.SpanResidual() }); n != 0 {
		t.Errorf("Gram–Schmidt: %v allocations a step and its span residual", n)
	}
	pts, y := gpData(10, 5, 1)
	s, _ := NewSampler(1, 20, SORF, rand.New(rand.NewPCG(2, 2))) // SORF's block draws too
	f, _ := NewFeatures(pts, s, 40)
	wgp, err := NewWeightSpaceGP(f, y, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() { _ = wgp.Step() }); n != 0 {
		t.Errorf("weight-space GP: %v allocations a step", n)
	}
}
