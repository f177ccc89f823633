package autoenc

import (
	"fmt"
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

// TestLinearReportsCurrent: before the first step and after every step,
// Loss is J(D, E) = (1/N) Σ ‖x_i − D E x_i‖² at the current D and E,
// computed here by loops, and GradNorm the norm of a central-difference
// gradient of that J in all the entries of D and E (issue 28.1: both were
// of (D, E) before the last step, beside D and E already moved, so that
// a pane's first two J points were both J at the start). A step
// allocates nothing.
func TestLinearReportsCurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := gaussianData(rng, 50, 4)
	l, err := NewLinear(x, 2, 0.05, rng)
	if err != nil {
		t.Fatal(err)
	}
	n, d := l.X.Dims()
	const r = 2
	// J at D (d×r) and E (r×d), row-major.
	j := func(D, E []float64) float64 {
		s := 0.0
		for i := range n {
			var code [r]float64
			for k := range r {
				for c := range d {
					code[k] += E[k*d+c] * l.X.At(i, c)
				}
			}
			for c := range d {
				rec := 0.0
				for k := range r {
					rec += D[c*r+k] * code[k]
				}
				s += sq(l.X.At(i, c) - rec)
			}
		}
		return s / float64(n)
	}
	for step := 0; step <= 30; step++ {
		if step > 0 {
			if err := l.Step(); err != nil {
				t.Fatal(err)
			}
		}
		D := append([]float64(nil), l.D.RawMatrix().Data...)
		E := append([]float64(nil), l.E.RawMatrix().Data...)
		want := j(D, E)
		algotest.Near(t, fmt.Sprintf("J at step %d", step), l.Loss(), want, 1e-12*want)
		const h = 1e-6
		g2 := 0.0
		for _, p := range [][]float64{D, E} {
			for i := range p {
				v := p[i]
				p[i] = v + h
				up := j(D, E)
				p[i] = v - h
				down := j(D, E)
				p[i] = v
				g2 += sq((up - down) / (2 * h))
			}
		}
		fd := math.Sqrt(g2)
		algotest.Near(t, fmt.Sprintf("‖∇J‖ at step %d", step), l.GradNorm(), fd, 1e-6*math.Max(1, fd))
	}
	if a := testing.AllocsPerRun(10, func() { _ = l.Step() }); a != 0 {
		t.Errorf("%g allocations a step", a)
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
// that floor. 1200 steps of 32 units reach about a twentieth (seed 3, 4:
// 0.011 against a Bayes error of 0.234), half the bound.
func TestDenoisingIsTweedie(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data, _, err := toy2d.Sample(toy2d.Ring, rng, 4000)
	if err != nil {
		t.Fatal(err)
	}
	const sigma = 0.5
	a, err := NewNet(NetConfig{D: 2, Code: 2, Units: 32, Batch: 64, Sigma: sigma, Opt: opt.Config{LR: 0.01}}, data, rng)
	if err != nil {
		t.Fatal(err)
	}
	for range 1200 {
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

// TestGaussianKLMonteCarlo: the catalogue's μ = (0.5, −1, 0.3), σ = (0.7,
// 1.3, 0.4): the closed form 1.3506 against a Monte Carlo mean of
// log q(z) − log p(z) over 200 000 draws, within 4 standard errors.
func TestGaussianKLMonteCarlo(t *testing.T) {
	mu, sd := []float64{0.5, -1, 0.3}, []float64{0.7, 1.3, 0.4}
	kl := GaussianKL(mu, sd)
	algotest.Near(t, "KL", kl, 1.3506, 5e-5)
	m, se := mcKL(rand.New(rand.NewPCG(7, 8)), mu, sd, 200000)
	algotest.Near(t, "Monte Carlo", m, kl, 4*se)
}

// mcKL is the Monte Carlo mean of log q(z) − log p(z), z ~ q = N(μ,
// diag sd²), p = N(0, I), over n draws, and its standard error.
func mcKL(rng *rand.Rand, mu, sd []float64, n int) (mean, se float64) {
	var s, s2 float64
	for range n {
		v := 0.0
		for j := range mu {
			e := rng.NormFloat64()
			z := mu[j] + sd[j]*e
			v += -0.5*e*e - math.Log(sd[j]) + 0.5*z*z
		}
		s += v
		s2 += v * v
	}
	mean = s / float64(n)
	return mean, math.Sqrt((s2/float64(n) - mean*mean) / float64(n))
}

// TestDiscreteELBO: the notes' toy p(z) = (0.2, 0.5, 0.3), p(x|z) =
// (0.9, 0.1, 0.4), q = (0.3, 0.3, 0.4): log p(x) = −1.049822, ELBO =
// −1.172365, KL = 0.122543 = the gap; q = the posterior closes it.
func TestDiscreteELBO(t *testing.T) {
	prior, lik := []float64{0.2, 0.5, 0.3}, []float64{0.9, 0.1, 0.4}
	lp, elbo, kl := DiscreteELBO(prior, lik, []float64{0.3, 0.3, 0.4})
	algotest.Near(t, "log p", lp, -1.049822, 1e-6)
	algotest.Near(t, "ELBO", elbo, -1.172365, 1e-6)
	algotest.Near(t, "KL", kl, 0.122543, 1e-6)
	algotest.Near(t, "gap", lp-elbo, kl, 1e-15)
	px := math.Exp(lp)
	post := []float64{0.18 / px, 0.05 / px, 0.12 / px}
	_, elbo, kl = DiscreteELBO(prior, lik, post)
	algotest.Near(t, "ELBO at the posterior", elbo, lp, 1e-15)
	algotest.Near(t, "KL at the posterior", kl, 0, 1e-15)
}

// TestVAEOnRing: a VAE with a 2-D latent and a Gaussian decoder on the
// ring of 8 lowers −ELBO; its KL term, evaluated by the closed form on
// the trained encoder, matches a Monte Carlo estimate; the −ELBO on a
// batch equals recon + KL.
func TestVAEOnRing(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	data, _, _ := toy2d.Sample(toy2d.Ring, rng, 2000)
	v, err := NewVAE(VAEConfig{D: 2, Latent: 2, Units: 32, Batch: 128, Likelihood: Gaussian, DecoderSD: 0.2,
		Opt: opt.Config{LR: 0.005}}, data, rng)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Step(); err != nil {
		t.Fatal(err)
	}
	first := v.NegELBO()
	for range 400 {
		if err := v.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if v.NegELBO() > first-1 {
		t.Errorf("−ELBO %g → %g", first, v.NegELBO())
	}
	mu, lv := v.Encode(data[:2])
	sd := []float64{math.Exp(lv[0] / 2), math.Exp(lv[1] / 2)}
	kl := GaussianKL(mu, sd)
	m, se := mcKL(rng, mu, sd, 100000)
	algotest.Near(t, "KL by Monte Carlo", m, kl, 4*se)
	_, err = NewVAE(VAEConfig{D: 2, Latent: 2, Units: 8, Batch: 8, Likelihood: Gaussian}, data, rng)
	algotest.WantParam(t, err, "decoder_sd")
}

// TestPrincipalAnglesClosedForm: spans whose angles are known, from 1e-12
// to π/2. The arccos of the cosines alone was good to √ε ≈ 1.5e-8 only,
// so that the small angles read 0 or 1.5e-8; from the sines they hold to
// a few ulps relative.
func TestPrincipalAnglesClosedForm(t *testing.T) {
	for _, th := range []float64{1e-12, 3e-9, 1e-6, 0.3, math.Pi/4 - 1e-3, math.Pi/4 + 1e-3, 1.2, math.Pi / 2} {
		c, s := math.Cos(th), math.Sin(th)
		// Lines in the plane: e₁ against (cos θ, sin θ).
		line := PrincipalAngles(mat.NewDense(2, 1, []float64{1, 0}), mat.NewDense(2, 1, []float64{c, s}))
		// Planes in R⁴: span(e₁, e₂) against span(e₁, cos θ e₂ + sin θ e₃),
		// scaled and sheared so that neither basis is orthonormal.
		a := mat.NewDense(4, 2, []float64{2, 1, 0, 3, 0, 0, 0, 0})
		b := mat.NewDense(4, 2, []float64{5, 1, 0, c, 0, s, 0, 0})
		plane := PrincipalAngles(a, b)
		if len(line) != 1 || len(plane) != 2 {
			t.Fatalf("θ = %g: %v, %v", th, line, plane)
		}
		algotest.Near(t, "line", line[0], th, 8e-16*th)
		algotest.Near(t, "plane's first", plane[0], 0, 1e-15)
		algotest.Near(t, "plane's second", plane[1], th, 1e-14*th)
	}
}
