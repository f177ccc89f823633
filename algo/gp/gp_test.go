package gp

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

func sinusoid(t testing.TB, seed uint64, n int) ([][]float64, []float64) {
	t.Helper()
	d, err := dataset.Sinusoid(rand.New(rand.NewPCG(seed, 5)), n, 0.3, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d.X, d.Y
}

func grid(lo, hi float64, m int) [][]float64 {
	g := make([][]float64, m)
	for i := range g {
		g[i] = []float64{lo + (hi-lo)*float64(i)/float64(m-1)}
	}
	return g
}

// TestNoiseFreeInterpolation: with σ² = 0 the posterior mean passes through
// every observation and the latent variance vanishes there (seed-003
// catalogue G3 oracle 1; seed-002 D6).
func TestNoiseFreeInterpolation(t *testing.T) {
	x, y := sinusoid(t, 1, 12)
	h := Hyper{Lengthscale: 0.2, Variance: 1}
	p, err := Fit(h.Kernel(), x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, v := p.Predict(x)
	for i := range x {
		if math.Abs(m[i]-y[i]) > 1e-6 || v[i] > 1e-6 {
			t.Errorf("x = %.3f: mean %v vs y %v, variance %v (jitter %g)", x[i][0], m[i], y[i], v[i], p.Jitter())
		}
	}
}

// TestPosteriorVarianceBounds: 0 ≤ v(x) ≤ k(x, x) everywhere, the mean →
// 0 and the variance → the prior variance far from the data (G3 oracles 2,
// 3), and Covariance's diagonal is Predict's variance.
func TestPosteriorVarianceBounds(t *testing.T) {
	x, y := sinusoid(t, 2, 20)
	h := Hyper{Lengthscale: 0.15, Variance: 2, Noise: 0.09}
	p, _ := Fit(h.Kernel(), x, y, h.Noise)
	test := grid(-1, 2, 61)
	_, v := p.Predict(test)
	for a := range test {
		if v[a] < 0 || v[a] > h.Variance*(1+1e-12) {
			t.Errorf("v(%.2f) = %v outside [0, %v]", test[a][0], v[a], h.Variance)
		}
	}
	far, vfar := p.Predict([][]float64{{10}})
	if math.Abs(far[0]) > 1e-12 || math.Abs(vfar[0]-h.Variance) > 1e-12 {
		t.Errorf("far away: mean %v, variance %v", far[0], vfar[0])
	}
	cov := p.Covariance(test)
	for a := range test {
		if math.Abs(cov[a*len(test)+a]-v[a]) > 1e-10 {
			t.Fatalf("cov diag %v vs variance %v", cov[a*len(test)+a], v[a])
		}
	}
}

// TestSamples: with z = 0 a sample is the posterior mean; over many z the
// samples' variance at each point is the posterior variance (within 4
// standard errors of a variance estimate, √(2/S)·v).
func TestSamples(t *testing.T) {
	x, y := sinusoid(t, 8, 10)
	h := Hyper{Lengthscale: 0.2, Variance: 1, Noise: 0.05}
	p, _ := Fit(h.Kernel(), x, y, h.Noise)
	test := grid(0, 1, 15)
	mean, v := p.Predict(test)
	rng := rand.New(rand.NewPCG(1, 2))
	const S = 4000
	z := make([][]float64, S+1)
	z[0] = make([]float64, len(test))
	for s := 1; s <= S; s++ {
		z[s] = make([]float64, len(test))
		for i := range z[s] {
			z[s][i] = rng.NormFloat64()
		}
	}
	f, err := p.Samples(test, z)
	if err != nil {
		t.Fatal(err)
	}
	for i := range test {
		if math.Abs(f[0][i]-mean[i]) > 1e-12 {
			t.Fatalf("z = 0 sample %v, mean %v", f[0][i], mean[i])
		}
		ss := 0.0
		for s := 1; s <= S; s++ {
			d := f[s][i] - mean[i]
			ss += d * d
		}
		if got := ss / S; math.Abs(got-v[i]) > 4*math.Sqrt(2.0/S)*v[i]+1e-9 {
			t.Errorf("x = %v: sample variance %v, posterior %v", test[i][0], got, v[i])
		}
	}
}

// TestMeanIsKernelRidge: the GP posterior mean is kernel ridge regression
// with λ = σ² (seed 003 L1017–1018; seed-003 catalogue K3).
func TestMeanIsKernelRidge(t *testing.T) {
	x, y := sinusoid(t, 3, 30)
	h := Hyper{Lengthscale: 0.1, Variance: 1.5, Noise: 0.05}
	p, _ := Fit(h.Kernel(), x, y, h.Noise)
	gram := kernel.Gram(h.Kernel(), x)
	r, err := kernel.NewRidge(gram, y, h.Noise)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range p.Weights() {
		if math.Abs(a-r.Star()[i]) > 1e-9*math.Max(1, math.Abs(a)) {
			t.Fatalf("a_%d = %v, ridge α_%d = %v", i, a, i, r.Star()[i])
		}
	}
	test := grid(0, 1, 25)
	m, _ := p.Predict(test)
	cross := kernel.Cross(h.Kernel(), test, x)
	for a := range test {
		f := 0.0
		for i, al := range r.Star() {
			f += al * cross[a*len(x)+i]
		}
		if math.Abs(f-m[a]) > 1e-9 {
			t.Errorf("x = %v: GP mean %v, ridge %v", test[a][0], m[a], f)
		}
	}
}

// TestLogMarginalIsMVNLogDensity: log p(y|θ) equals gonum's multivariate
// normal log-density of y under N(0, K + σ²I) (seed 003 L1037).
func TestLogMarginalIsMVNLogDensity(t *testing.T) {
	x, y := sinusoid(t, 4, 25)
	for _, h := range []Hyper{{0.1, 1, 0.09}, {0.5, 0.3, 0.5}, {0.05, 2, 0.01}} {
		ev, err := LogMarginalSE(x, y, h)
		if err != nil {
			t.Fatal(err)
		}
		gram := kernel.Gram(h.Kernel(), x)
		c := mat.NewSymDense(len(x), gram)
		for i := range x {
			c.SetSym(i, i, c.At(i, i)+h.Noise)
		}
		norm, ok := distmv.NewNormal(make([]float64, len(x)), c, nil)
		if !ok {
			t.Fatal("gonum rejects C")
		}
		if want := norm.LogProb(y); math.Abs(ev.LogML-want) > 1e-9*math.Abs(want) {
			t.Errorf("%v: log p = %v, distmv %v", h, ev.LogML, want)
		}
		if math.Abs(ev.DataFit+ev.Complexity-0.5*float64(len(x))*math.Log(2*math.Pi)-ev.LogML) > 1e-9 {
			t.Errorf("terms do not add up")
		}
	}
}

// TestGradientMatchesFiniteDifferences: the analytic gradient in
// log-parameters equals central finite differences (seed-002 D7 oracle,
// relative error < 1e-5).
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	x, y := sinusoid(t, 5, 20)
	for _, h := range []Hyper{{0.1, 1, 0.09}, {0.3, 0.5, 0.2}, {0.05, 3, 0.01}} {
		ev, err := LogMarginalSE(x, y, h)
		if err != nil {
			t.Fatal(err)
		}
		f := func(th []float64) float64 {
			e, err := LogMarginalSE(x, y, FromLog([3]float64{th[0], th[1], th[2]}))
			if err != nil {
				t.Fatal(err)
			}
			return e.LogML
		}
		th := h.LogParams()
		num := fd.Gradient(nil, f, th[:], &fd.Settings{Formula: fd.Central, Step: 1e-5})
		for j := range num {
			if d := math.Abs(num[j] - ev.Grad[j]); d > 1e-5*math.Max(1, math.Abs(num[j])) {
				t.Errorf("%v: ∂/∂θ_%d analytic %v, finite differences %v", h, j, ev.Grad[j], num[j])
			}
		}
	}
}

// TestSequentialEqualsBatch: observations arriving one at a time never raise
// the variance anywhere (G3 oracle 4) and end at the batch posterior.
func TestSequentialEqualsBatch(t *testing.T) {
	x, y := sinusoid(t, 6, 15)
	h := Hyper{Lengthscale: 0.15, Variance: 1, Noise: 0.09}
	test := grid(-0.2, 1.2, 40)
	s, err := NewSequential(h.Kernel(), h.Noise, x, y, test)
	if err != nil {
		t.Fatal(err)
	}
	prev := append([]float64(nil), s.Variance()...)
	for s.Step() == nil {
		for a, v := range s.Variance() {
			if v > prev[a]+1e-12 {
				t.Fatalf("n = %d: variance at %.2f rose from %v to %v", s.N(), test[a][0], prev[a], v)
			}
		}
		prev = append(prev[:0], s.Variance()...)
	}
	batch, _ := Fit(h.Kernel(), x, y, h.Noise)
	m, v := batch.Predict(test)
	for a := range test {
		if math.Abs(m[a]-s.Mean()[a]) > 1e-12 || math.Abs(v[a]-s.Variance()[a]) > 1e-12 {
			t.Fatalf("sequential and batch differ at %v", test[a][0])
		}
	}
}

// TestSequentialMatchesFit: the incrementally extended factor gives, after
// every observation, the posterior of a from-scratch Fit on the same
// points — means, variances, the log marginal likelihood and the jitter —
// to 1e-10 (issue 14.1) with noise. On ill-conditioned C (condition
// numbers up to MaxCond = 1e13, where either computation of the mean is
// only good to about cond·ε relative) the jitter must agree (to the
// rounding of its scale, a mean over the points of an earlier step), the
// variances to 1e-8 and the means and log p to 1e-3 relative: with tiny
// noise, and without noise on points dense enough that the jitter must
// step in (the step then refactorises).
func TestSequentialMatchesFit(t *testing.T) {
	noisy, ny := sinusoid(t, 3, 120)
	for _, c := range []struct {
		name string
		h    Hyper
		x    [][]float64
		y    []float64
		tol  float64 // of the means, relative, and of log p
		vtol float64 // of the variances
	}{
		{"noise", Hyper{Lengthscale: 0.1, Variance: 1, Noise: 0.09}, noisy, ny, 1e-10, 1e-10},
		{"tiny noise", Hyper{Lengthscale: 0.3, Variance: 2, Noise: 1e-9}, noisy[:60], ny[:60], 1e-3, 1e-8},
		{"no noise, jitter", Hyper{Lengthscale: 1, Variance: 1}, grid(0, 5, 80), ny[:80], 1e-3, 1e-8},
	} {
		test := grid(-0.2, 1.2, 30)
		s, err := NewSequential(c.h.Kernel(), c.h.Noise, c.x, c.y, test)
		if err != nil {
			t.Fatal(err)
		}
		jittered := false
		for k := 1; k <= len(c.x); k++ {
			if err := s.Step(); err != nil {
				t.Fatalf("%s: step %d: %v", c.name, k, err)
			}
			batch, err := Fit(c.h.Kernel(), c.x[:k], c.y[:k], c.h.Noise)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(batch.Jitter()-s.Jitter()) > 1e-12*batch.Jitter() {
				t.Fatalf("%s: n = %d: jitter %v, Fit's %v", c.name, k, s.Jitter(), batch.Jitter())
			}
			jittered = jittered || s.Jitter() > 0
			m, v := batch.Predict(test)
			for a := range test {
				if math.Abs(m[a]-s.Mean()[a]) > c.tol*math.Max(1, math.Abs(m[a])) || math.Abs(v[a]-s.Variance()[a]) > c.vtol {
					t.Fatalf("%s: n = %d at x = %v: mean %v var %v, Fit's %v %v",
						c.name, k, test[a][0], s.Mean()[a], s.Variance()[a], m[a], v[a])
				}
			}
			got, _, _ := s.LogMarginal()
			want, _, _ := batch.LogMarginal()
			if math.Abs(got-want) > c.tol*math.Max(1, math.Abs(want)) {
				t.Fatalf("%s: n = %d: log p %v, Fit's %v", c.name, k, got, want)
			}
			pm, _ := s.Posterior().Predict(test)
			if math.Abs(pm[0]-m[0]) > c.tol*math.Max(1, math.Abs(m[0])) {
				t.Fatalf("%s: n = %d: the posterior's mean %v, Fit's %v", c.name, k, pm[0], m[0])
			}
		}
		if jittered != (c.h.Noise == 0) {
			t.Errorf("%s: jitter used: %v", c.name, jittered)
		}
	}
}

// TestFitterClimbs: the log marginal likelihood never falls, the run
// converges, and on data drawn from a GP with ℓ = 0.2 the learnt
// lengthscale is near it (a loose statistical check).
func TestFitterClimbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	truth := Hyper{Lengthscale: 0.2, Variance: 1, Noise: 0.01}
	x := make([][]float64, 80)
	for i := range x {
		x[i] = []float64{rng.Float64() * 3}
	}
	cov := kernel.Gram(truth.Kernel(), x)
	for i := range x {
		cov[i*len(x)+i] += truth.Noise
	}
	norm, ok := distmv.NewNormal(make([]float64, len(x)), mat.NewSymDense(len(x), cov), rand.NewPCG(8, 8))
	if !ok {
		t.Fatal("bad covariance")
	}
	y := norm.Rand(nil)
	f, err := NewFitter(x, y, Hyper{Lengthscale: 1, Variance: 0.5, Noise: 0.3}, 0.01, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	prev := f.Evidence().LogML
	steps := 0
	for {
		err := f.Step()
		if errors.Is(err, algo.ErrConverged) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if lml := f.Evidence().LogML; lml < prev {
			t.Fatalf("step %d: log p fell from %v to %v", f.Iter(), prev, lml)
		}
		prev = f.Evidence().LogML
		if steps++; steps > 5000 {
			t.Fatalf("no convergence: ‖∇‖ = %g", f.GradNorm())
		}
	}
	if l := f.Evidence().Hyper.Lengthscale; l < 0.12 || l > 0.33 {
		t.Errorf("learnt ℓ = %v, true 0.2", l)
	}
}

// TestBLREqualsGP: Bayesian linear regression updated one point at a time
// equals the batch posterior, its predictive distribution equals the GP's
// with kernel (1 + xx')/α, and its mean is ridge regression with penalty
// σ²α (seed 002 C1, D4; Remark 4.6, L1758).
func TestBLREqualsGP(t *testing.T) {
	d, _ := dataset.NoisyLine(rand.New(rand.NewPCG(9, 9)), 40, 0.5, -1.2, 0.3)
	xs := make([]float64, len(d.X))
	for i, v := range d.X {
		xs[i] = v[0]
	}
	const alpha, noise = 2.0, 0.09
	seq, _ := NewBLR(alpha, noise)
	for i := range xs {
		seq.Observe(xs[i], d.Y[i])
	}
	batch, _ := BatchBLR(alpha, noise, xs, d.Y)
	a0, a1 := seq.Mean()
	b0, b1 := batch.Mean()
	if math.Abs(a0-b0) > 1e-12 || math.Abs(a1-b1) > 1e-12 {
		t.Errorf("sequential mean (%v, %v), batch (%v, %v)", a0, a1, b0, b1)
	}
	post, err := Fit(seq.Kernel(), d.X, d.Y, noise)
	if err != nil {
		t.Fatal(err)
	}
	test := grid(-2, 2, 21)
	m, v := post.Predict(test)
	for a, x := range test {
		bm, bv := seq.Predict(x[0])
		if math.Abs(bm-m[a]) > 1e-10 || math.Abs(bv-v[a]) > 1e-10 {
			t.Errorf("x = %v: BLR (%v, %v), GP (%v, %v)", x[0], bm, bv, m[a], v[a])
		}
	}
	// Ridge: (ΦᵀΦ + σ²αI) w = Φᵀy.
	var sx, sxx, sy, sxy float64
	n := float64(len(xs))
	for i, x := range xs {
		sx, sxx, sy, sxy = sx+x, sxx+x*x, sy+d.Y[i], sxy+x*d.Y[i]
	}
	l := noise * alpha
	det := (n+l)*(sxx+l) - sx*sx
	r0, r1 := ((sxx+l)*sy-sx*sxy)/det, ((n+l)*sxy-sx*sy)/det
	if math.Abs(r0-a0) > 1e-12 || math.Abs(r1-a1) > 1e-12 {
		t.Errorf("ridge (%v, %v), BLR mean (%v, %v)", r0, r1, a0, a1)
	}
}

// TestJitterOrError: a covariance that is not positive definite gets an
// error that says so, never a silent bad factor; a merely ill-conditioned
// one gets jitter.
func TestJitterOrError(t *testing.T) {
	x := grid(0, 5, 200)
	y := make([]float64, len(x))
	p, err := Fit(Hyper{Lengthscale: 1, Variance: 1}.Kernel(), x, y, 0)
	if err != nil {
		t.Fatalf("ill-conditioned SE Gram matrix: %v", err)
	}
	if p.Jitter() == 0 {
		t.Error("200 points 0.025 apart with ℓ = 1 factorised without jitter")
	}
	_, err = Fit(kernel.Distance{}, x[:10], y[:10], 0)
	if err == nil || !strings.Contains(err.Error(), "not positive definite") {
		t.Errorf("indefinite kernel: %v", err)
	}
	// A variance so small that every jitter underflows to 0 (lab run gp
	// --set variance=5e-324 --set noise=0 looped for ever on its first
	// point).
	var f factor
	if err := f.factorize([]float64{5e-324}, 1, 0); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("denormal variance: %v", err)
	}
	var pe *algo.ParamError
	if _, err := Fit(kernel.Linear{}, x, y, -1); !errors.As(err, &pe) || pe.Name != "noise" {
		t.Errorf("negative noise: %v", err)
	}
	if _, err := NewFitter(x, y, Hyper{Lengthscale: 0, Variance: 1, Noise: 1}, 0.1, 0); !errors.As(err, &pe) || pe.Name != "lengthscale" {
		t.Errorf("zero lengthscale: %v", err)
	}
	if _, err := NewBLR(0, 1); !errors.As(err, &pe) || pe.Name != "alpha" {
		t.Errorf("zero precision: %v", err)
	}
}

// BenchmarkPosterior1000 fits a GP to 1,000 points and predicts at 200
// test points (target < 0.5 s).
func BenchmarkPosterior1000(b *testing.B) {
	defer algotest.CPUTime(b)()
	x, y := sinusoid(b, 10, 1000)
	h := Hyper{Lengthscale: 0.1, Variance: 1, Noise: 0.09}
	test := grid(0, 1, 200)
	b.ReportAllocs()
	for b.Loop() {
		p, err := Fit(h.Kernel(), x, y, h.Noise)
		if err != nil {
			b.Fatal(err)
		}
		p.Predict(test)
		p.LogMarginal()
	}
}

// BenchmarkSequential1000 is the gp sim's whole run at n = 1,000: every
// observation added by extending the factor, with the mean and variance at
// 120 chart points kept up to date (issue 14.1: within 2× of one
// scikit-learn fit of the same 1,000 points; see bench/).
func BenchmarkSequential1000(b *testing.B) {
	defer algotest.CPUTime(b)()
	x, y := sinusoid(b, 10, 1000)
	h := Hyper{Lengthscale: 0.1, Variance: 1, Noise: 0.09}
	test := grid(-0.15, 1.15, 120)
	b.ReportAllocs()
	for b.Loop() {
		s, err := NewSequential(h.Kernel(), h.Noise, x, y, test)
		if err != nil {
			b.Fatal(err)
		}
		for s.Step() == nil {
		}
	}
}

// BenchmarkLogMarginalSE500 is one evaluation of gp-fit's objective and
// gradient at n = 500: Gram matrix, Cholesky, inverse, gradient.
func BenchmarkLogMarginalSE500(b *testing.B) {
	defer algotest.CPUTime(b)()
	x, y := sinusoid(b, 10, 500)
	h := Hyper{Lengthscale: 0.3, Variance: 1.5, Noise: 0.09}
	for b.Loop() {
		if _, err := LogMarginalSE(x, y, h); err != nil {
			b.Fatal(err)
		}
	}
}
