package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func sinusoid(t *testing.T, seed uint64, n int) *dataset.Labelled {
	t.Helper()
	d, err := dataset.Sinusoid(rand.New(rand.NewPCG(seed, 2)), n, 0.3, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRidgeClosedForm: α* solves (K + λI)α = y, and for the linear kernel
// the dual prediction equals primal ridge (the push-through identity
// (XᵀX + λI)⁻¹Xᵀy = Xᵀ(XXᵀ + λI)⁻¹y, the representer statement of seed
// 003 L89–93 made numeric).
func TestRidgeClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randPoints(rng, 30, 4, 1)
	y := make([]float64, 30)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	const lambda = 0.7
	r, err := NewRidge(Gram(Linear{}, x), y, lambda)
	if err != nil {
		t.Fatal(err)
	}
	// Primal: w = (XᵀX + λI)⁻¹ Xᵀ y.
	X := mat.NewDense(30, 4, nil)
	for i, row := range x {
		X.SetRow(i, row)
	}
	var a mat.Dense
	a.Mul(X.T(), X)
	for j := 0; j < 4; j++ {
		a.Set(j, j, a.At(j, j)+lambda)
	}
	var xty, w mat.VecDense
	xty.MulVec(X.T(), mat.NewVecDense(30, y))
	if err := w.SolveVec(&a, &xty); err != nil {
		t.Fatal(err)
	}
	// Dual: w = Xᵀα*.
	var wd mat.VecDense
	wd.MulVec(X.T(), mat.NewVecDense(30, r.Star()))
	for j := 0; j < 4; j++ {
		if math.Abs(w.AtVec(j)-wd.AtVec(j)) > 1e-10 {
			t.Fatalf("primal w %v, dual Xᵀα %v", mat.Formatted(w.T()), mat.Formatted(wd.T()))
		}
	}
}

// TestRidgeIterative: conjugate gradients reach α* in about n steps (exactly
// n in exact arithmetic) and both methods stay under their A-norm bounds at
// every step; plain gradient descent crawls, as the bound says.
func TestRidgeIterative(t *testing.T) {
	d := sinusoid(t, 3, 25)
	g := Gram(RBF{Gamma: 10}, d.X)
	r, err := NewRidge(g, d.Y, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	kappa, _, _ := r.Cond()
	if kappa < 100 {
		t.Fatalf("κ = %g: the test wants an ill-conditioned system", kappa)
	}
	cg, _ := NewRidgeIter(r, CG, 1e-10)
	gd, _ := NewRidgeIter(r, GD, 1e-10)
	var cgDone int
	for k := 1; k <= 200; k++ {
		if err := cg.Step(); err != nil {
			if !errors.Is(err, algo.ErrConverged) {
				t.Fatal(err)
			}
			if cgDone == 0 {
				cgDone = k - 1
			}
		}
		if err := gd.Step(); err != nil {
			t.Fatal(err)
		}
		if cgDone == 0 {
			if e, b := r.ErrorA(cg.Alpha()), cg.Bound(k); e > b*(1+1e-6)+1e-12 {
				t.Fatalf("cg step %d: error %g above bound %g", k, e, b)
			}
		}
		if e, b := r.ErrorA(gd.Alpha()), gd.Bound(k); e > b*(1+1e-9)+1e-14 {
			t.Fatalf("gd step %d: error %g above bound %g", k, e, b)
		}
	}
	if cgDone == 0 || cgDone > 3*len(d.Y) {
		t.Errorf("cg took %d steps on n = %d", cgDone, len(d.Y))
	}
	if e := r.ErrorA(cg.Alpha()); e > 1e-8 {
		t.Errorf("cg error %g", e)
	}
	if e := r.ErrorA(gd.Alpha()); e < 1e-3 {
		t.Errorf("gd error after 200 steps %g: expected it to crawl (κ = %.3g)", e, kappa)
	}
	// The objective J is minimised at α*.
	j0 := r.Objective(r.Star())
	for _, alpha := range [][]float64{cg.Alpha(), gd.Alpha()} {
		if r.Objective(alpha) < j0-1e-9*math.Abs(j0) {
			t.Errorf("J(α) = %v below J(α*) = %v", r.Objective(alpha), j0)
		}
	}
	if _, err := NewRidge(g, d.Y, 0); err == nil {
		t.Error("λ = 0 accepted")
	}
	if _, err := NewRidgeIter(r, "newton", 0); err == nil {
		t.Error("unknown solver accepted")
	}
}

// TestKPCALinearIsPCA: kernel PCA with the linear kernel reproduces PCA
// (seed 000 §4.12 oracle): the component variances λ̃_k/N equal the
// covariance eigenvalues and the projections agree up to sign.
func TestKPCALinearIsPCA(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	n := 30
	x := make([][]float64, n)
	X := mat.NewDense(n, 2, nil)
	for i := range x {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		x[i] = []float64{3*a + 1, a + 0.5*b - 2}
		X.SetRow(i, x[i])
	}
	p, err := NewKPCA(Gram(Linear{}, x), n, 2, 1e-12, rng)
	if err != nil {
		t.Fatal(err)
	}
	for p.Step() == nil {
	}
	var pc stat.PC
	if !pc.PrincipalComponents(X, nil) {
		t.Fatal("PCA failed")
	}
	vars := pc.VarsTo(nil) // with 1/(n−1)
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	for c := 0; c < 2; c++ {
		want := vars[c] * float64(n-1) / float64(n)
		if got := p.Exact()[c] / float64(n); math.Abs(got-want) > 1e-10*want {
			t.Errorf("component %d: exact λ̃/N = %v, PCA variance %v", c, got, want)
		}
		if got := p.Ritz()[c] / float64(n); math.Abs(got-want) > 1e-10*want {
			t.Errorf("component %d: iterated λ̃/N = %v, PCA variance %v", c, got, want)
		}
		proj := p.Project(c)
		// PCA scores v_cᵀ(x_i − mean), equal up to sign.
		mean := []float64{0, 0}
		for _, row := range x {
			mean[0] += row[0] / float64(n)
			mean[1] += row[1] / float64(n)
		}
		var dmax float64
		for _, sgn := range []float64{1, -1} {
			worst := 0.0
			for i, row := range x {
				s := vecs.At(0, c)*(row[0]-mean[0]) + vecs.At(1, c)*(row[1]-mean[1])
				worst = math.Max(worst, math.Abs(sgn*s-proj[i]))
			}
			if sgn == 1 || worst < dmax {
				dmax = worst
			}
		}
		if dmax > 1e-9 {
			t.Errorf("component %d: projections differ from PCA by %g", c, dmax)
		}
	}
}

// TestKPCAConverges: subspace iteration reaches the exact leading
// eigenvalues of K̃ on concentric circles with a Gaussian kernel, and the
// first component separates the circles (seed 000 L1826, which holds for a
// suitable γ; linear PCA cannot separate them).
func TestKPCAConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	data, _ := dataset.Circles(rng, 150, 0.3, 0.03)
	p, err := NewKPCA(Gram(RBF{Gamma: 3}, data.X), len(data.X), 2, 1e-10, rng)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for p.Step() == nil {
		if steps++; steps > 5000 {
			t.Fatalf("no convergence: residual %g", p.Residual())
		}
	}
	for c, v := range p.Ritz() {
		if w := p.Exact()[c]; math.Abs(v-w) > 1e-8*w {
			t.Errorf("λ̃_%d = %v, exact %v", c+1, v, w)
		}
	}
	// The circles separate along the first component.
	for c := 0; c < 2; c++ {
		proj := p.Project(c)
		lo0, hi0, lo1, hi1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for i, v := range proj {
			if data.Y[i] == 0 {
				lo0, hi0 = math.Min(lo0, v), math.Max(hi0, v)
			} else {
				lo1, hi1 = math.Min(lo1, v), math.Max(hi1, v)
			}
		}
		if separated := hi0 < lo1 || hi1 < lo0; separated != (c == 0) {
			t.Errorf("component %d separates the circles: %v", c+1, separated)
		}
	}
}
