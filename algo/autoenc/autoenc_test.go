package autoenc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/algo/toy2d"
	"gonum.org/v1/gonum/mat"
)

// gaussianData draws n points of N(0, A Aᵀ) in d dimensions for a fixed
// random A: distinct eigenvalues.
func gaussianData(rng *rand.Rand, n, d int) [][]float64 {
	a := make([]float64, d*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	x := make([][]float64, n)
	for i := range x {
		z := make([]float64, d)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		x[i] = make([]float64, d)
		for j := range d {
			for k := range d {
				x[i][j] += a[j*d+k] * z[k] / math.Sqrt(float64(k+1))
			}
		}
	}
	return x
}

// TestLinearIsPCA: the catalogue's shape (n = 5, N = 60, r = 2): gradient
// descent reaches the Eckart–Young floor Σ_{j>r} λ_j to 6 digits, the
// principal angles to PCA's subspace fall below 1e-5, and DE is the
// projector U_r U_rᵀ — not U_r Σ_r U_rᵀ as L1250 prints.
func TestLinearIsPCA(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := gaussianData(rng, 60, 5)
	l, err := NewLinear(x, 2, 0.02, rng)
	if err != nil {
		t.Fatal(err)
	}
	for range 20000 {
		if err := l.Step(); err != nil {
			t.Fatal(err)
		}
	}
	algotest.Near(t, "floor", l.Loss(), l.Floor(), 1e-6*l.Floor())
	for _, a := range l.PrincipalAngles() {
		if a > 1e-5 {
			t.Errorf("principal angle %g", a)
		}
	}
	var uu mat.Dense
	uu.Mul(l.U, l.U.T())
	var diff mat.Dense
	diff.Sub(l.Projector(), &uu)
	if e := mat.Norm(&diff, math.Inf(1)); e > 1e-5 {
		t.Errorf("‖DE − U Uᵀ‖ = %g", e)
	}
	// U Σ U ᵀ differs from the projector as soon as λ₁ ≠ 1.
	ev := l.Eigenvalues()
	sig := mat.NewDiagDense(2, []float64{math.Sqrt(ev[0]), math.Sqrt(ev[1])})
	var us, usu mat.Dense
	us.Mul(l.U, sig)
	usu.Mul(&us, l.U.T())
	diff.Sub(l.Projector(), &usu)
	if e := mat.Norm(&diff, math.Inf(1)); e < 0.1 {
		t.Errorf("‖DE − U Σ Uᵀ‖ = %g: the erratum's form should not fit", e)
	}
}

func TestLinearValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := gaussianData(rng, 10, 3)
	_, err := NewLinear(x, 4, 0.1, rng)
	algotest.WantParam(t, err, "r")
	_, err = NewLinear(x[:1], 1, 0.1, rng)
	algotest.WantParam(t, err, "n")
	_, err = NewLinear(x, 1, 0, rng)
	algotest.WantParam(t, err, "lr")
}

// TestDenoisingIsTweedie: a denoising autoencoder trained on the ring of
// 8 with σ = 0.5 maps noisy points close to Tweedie's E[X | Y]: its mean
// squared distance to the posterior mean is under a tenth of the Bayes
// error E‖X − E[X|Y]‖², which it cannot beat, and its loss approaches
// that floor.
func TestDenoisingIsTweedie(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data, _, err := toy2d.Sample(toy2d.Ring, rng, 4000)
	if err != nil {
		t.Fatal(err)
	}
	const sigma = 0.5
	a, err := NewNet(NetConfig{D: 2, Code: 2, Units: 64, Batch: 128, Sigma: sigma, Opt: opt.Config{LR: 0.01}}, data, rng)
	if err != nil {
		t.Fatal(err)
	}
	for range 2500 {
		if err := a.Step(); err != nil {
			t.Fatal(err)
		}
	}
	means, s, _ := toy2d.Ring.Mixture()
	test, _, _ := toy2d.Sample(toy2d.Ring, rng, 4000)
	y := make([]float64, len(test))
	for i := range y {
		y[i] = test[i] + sigma*rng.NormFloat64()
	}
	out := a.Map(y, nil)
	var dist, bayes, mse float64
	for i := 0; i < len(y); i += 2 {
		m := toy2d.PosteriorMean(means, s, sigma, [2]float64{y[i], y[i+1]})
		dist += sq(out[i]-m[0]) + sq(out[i+1]-m[1])
		bayes += sq(test[i]-m[0]) + sq(test[i+1]-m[1])
		mse += sq(test[i]-out[i]) + sq(test[i+1]-out[i+1])
	}
	n := float64(len(y) / 2)
	dist, bayes, mse = dist/n, bayes/n, mse/n
	if dist > 0.1*bayes {
		t.Errorf("E‖DAE(y) − E[X|y]‖² = %g, Bayes error %g", dist, bayes)
	}
	// The test MSE is the Bayes error plus the distance (orthogonality of
	// the posterior mean), up to sampling noise.
	algotest.Near(t, "MSE = Bayes + distance", mse, bayes+dist, 0.05*bayes)
}

func sq(x float64) float64 { return x * x }
