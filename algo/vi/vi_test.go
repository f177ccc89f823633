package vi

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/divergence"
	"github.com/thelab/lab/algo/mixture"
	"github.com/thelab/lab/algo/target"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7669)) }

// TestMeanFieldCorrelated runs CAVI on the `correlated` target for several
// ρ: the variances must reach σ²(1 − ρ²) (Ex 3.6, L1346–1348) after the
// first update of each coordinate, the means μ, the KL its minimum
// −½ log(1 − ρ²), and the KL must never increase from one coordinate
// update to the next.
func TestMeanFieldCorrelated(t *testing.T) {
	for _, rho := range []float64{0, 0.5, 0.9, -0.95, 0.99} {
		tg, err := target.NewCorrelated(rho)
		if err != nil {
			t.Fatal(err)
		}
		mf, err := NewMeanField(tg.Mean(), tg.Cov(), []float64{3, -3}, 1, 1e-12)
		if err != nil {
			t.Fatal(err)
		}
		prev := mf.KL()
		for {
			err := mf.Step()
			if errors.Is(err, algo.ErrConverged) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if mf.KL() > prev+1e-14*math.Max(1, prev) {
				t.Fatalf("ρ=%g: KL rose from %.17g to %.17g at update %d", rho, prev, mf.KL(), mf.Updates())
			}
			prev = mf.KL()
			if mf.Updates() == 2 {
				for j, s := range mf.S() {
					algotest.Near(t, fmt.Sprintf("ρ=%g s_%d after one sweep", rho, j+1), s, 1-rho*rho, 1e-14)
				}
			}
			if mf.Updates() > 100000 {
				t.Fatalf("ρ=%g: no convergence", rho)
			}
		}
		for j := range 2 {
			algotest.Near(t, "m", mf.M()[j], 0, 1e-10)
		}
		algotest.Near(t, "KL at the optimum", mf.KL(), -0.5*math.Log(1-rho*rho), 1e-12)
		// The engine's KL (L1315) against the general Gaussian KL.
		m, s := mf.M(), mf.S()
		want, err := divergence.KLGaussian(m, mat.NewSymDense(2, []float64{s[0], 0, 0, s[1]}), tg.Mean(), mat.NewSymDense(2, []float64{1, rho, rho, 1}))
		if err != nil {
			t.Fatal(err)
		}
		algotest.Near(t, "KL vs divergence.KLGaussian", mf.KL(), want, 1e-12)
	}
}

// TestMeanFieldCatalogue checks the catalogue's C8 numbers: Σ = [[1, 1.2],
// [1.2, 2]], μ = (1, −1), m₀ = (5, 5): s = (0.28, 0.56), and the mean error
// ‖m − μ‖ after each sweep 5.62, 4.05, 2.92, 2.10, 1.51, 1.09, contracting
// by ρ² = 0.72.
func TestMeanFieldCatalogue(t *testing.T) {
	mf, err := NewMeanField([]float64{1, -1}, [][]float64{{1, 1.2}, {1.2, 2}}, []float64{5, 5}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{5.62, 4.05, 2.92, 2.10, 1.51, 1.09}
	prev := 0.0
	for sweep, w := range want {
		_ = mf.Step()
		_ = mf.Step()
		e := math.Hypot(mf.M()[0]-1, mf.M()[1]+1)
		algotest.Near(t, fmt.Sprintf("error after sweep %d", sweep+1), e, w, 0.006)
		if sweep > 0 {
			algotest.Near(t, "contraction", e/prev, 0.72, 1e-9)
		}
		prev = e
	}
	algotest.Near(t, "s₁", mf.S()[0], 0.28, 1e-12)
	algotest.Near(t, "s₂", mf.S()[1], 0.56, 1e-12)
	opt := mf.Optimum()
	algotest.Near(t, "optimum s₁", opt[0], 0.28, 1e-12)
}

func TestMeanFieldBadParams(t *testing.T) {
	cov := [][]float64{{1, 0}, {0, 1}}
	_, err := NewMeanField([]float64{0, 0}, [][]float64{{1, 2}, {2, 1}}, []float64{0, 0}, 1, 0)
	algotest.WantParam(t, err, "sigma")
	_, err = NewMeanField([]float64{0, 0}, [][]float64{{1, 0.5}, {0.4, 1}}, []float64{0, 0}, 1, 0)
	algotest.WantParam(t, err, "sigma")
	_, err = NewMeanField([]float64{0, 0}, cov, []float64{0}, 1, 0)
	algotest.WantParam(t, err, "m0")
	_, err = NewMeanField([]float64{0, 0}, cov, []float64{0, 0}, 0, 0)
	algotest.WantParam(t, err, "s0")
	_, err = NewMeanField(nil, cov, nil, 1, 0)
	algotest.WantParam(t, err, "mu")
	mf, _ := NewMeanField([]float64{0, 0}, [][]float64{{1, 0.9}, {0.9, 1}}, []float64{3, 3}, 1, 0)
	if a := testing.AllocsPerRun(1000, func() { _ = mf.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

// fig37 is the `mixture` target's parameters as fixed mixture components.
func fig37() []Component {
	return []Component{
		{Weight: 0.5, Mean: []float64{3, 3}, Cov: [][]float64{{1, 0}, {0, 1}}},
		{Weight: 0.5, Mean: []float64{-3, -3}, Cov: [][]float64{{1, 0}, {0, 1}}},
	}
}

// TestMixtureCAVI checks Ex 3.7: the ELBO never decreases from one factor
// update to the next, one sweep closes the gap log p(x) − ELBO (eq 3.9) to
// rounding, the factors are then the responsibilities π_k N_k / Σ_j π_j N_j
// (checked against the `mixture` target's own density), and a second sweep
// changes nothing, so the run converges.
func TestMixtureCAVI(t *testing.T) {
	comps := fig37()
	pts, _, err := Sample(comps, 300, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	tg := target.Fig37()
	c, err := NewMixtureCAVI(pts, comps, 1e-12, rng(2))
	if err != nil {
		t.Fatal(err)
	}
	logp := 0.0
	for _, p := range pts {
		logp += tg.LogP(p)
	}
	algotest.Near(t, "log p(x) against the target", c.LogEvidence(), logp, 1e-9*math.Abs(logp))
	if c.ELBO() > c.LogEvidence() {
		t.Errorf("ELBO %g above the evidence %g", c.ELBO(), c.LogEvidence())
	}
	prev := c.ELBO()
	var stepErr error
	for i := 0; ; i++ {
		if stepErr = c.Step(); stepErr != nil {
			break
		}
		if c.ELBO() < prev-1e-9 {
			t.Fatalf("update %d: ELBO fell from %.12g to %.12g", i, prev, c.ELBO())
		}
		prev = c.ELBO()
		if c.Updates() == c.N() {
			algotest.Near(t, "gap after one sweep", c.LogEvidence()-c.ELBO(), 0, 1e-9)
		}
	}
	if !errors.Is(stepErr, algo.ErrConverged) || c.Updates() != 2*c.N() {
		t.Errorf("%v after %d updates, want convergence after two sweeps (%d)", stepErr, c.Updates(), 2*c.N())
	}
	for i, p := range pts {
		r := math.Exp(-0.5*(sq(p[0]-3)+sq(p[1]-3)) + math.Log(0.5) - math.Log(2*math.Pi) - tg.LogP(p))
		algotest.Near(t, "φ_n1", c.Phi()[2*i], r, 1e-12)
	}
}

func sq(x float64) float64 { return x * x }

// TestMixtureCAVIEqualsEM runs the lab's EM engine (algo/mixture) on 2-D
// data to convergence, freezes its parameters, and checks that one CAVI
// sweep with those fixed parameters gives EM's responsibilities at them:
// "CAVI recovers the usual mixture responsibilities" (L1414).
func TestMixtureCAVIEqualsEM(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		sample, err := mixture.Blobs(rng(seed), 200, 2, 4)
		if err != nil {
			t.Fatal(err)
		}
		em, err := mixture.New(sample.Points, mixture.Config{K: 2, Reg: mixture.DefaultReg, Tol: 0}, rng(seed+10))
		if err != nil {
			t.Fatal(err)
		}
		// Step until the last step was an E-step after 2 M-steps: the
		// responsibilities are then those of the current parameters.
		for em.Iter() < 2 || em.Next() != mixture.MStep {
			if err := em.Step(); err != nil {
				t.Fatalf("seed %d: EM step %d: %v", seed, em.HalfSteps(), err)
			}
		}
		var comps []Component
		for _, c := range em.Components() {
			comps = append(comps, Component{Weight: c.Weight, Mean: []float64{c.Mean[0], c.Mean[1]},
				Cov: [][]float64{{c.Cov[0][0], c.Cov[0][1]}, {c.Cov[1][0], c.Cov[1][1]}}})
		}
		cv, err := NewMixtureCAVI(sample.Points, comps, 0, rng(seed))
		if err != nil {
			t.Fatal(err)
		}
		for range cv.N() {
			_ = cv.Step()
		}
		resp, _ := em.Resp()
		worst := 0.0
		for i, f := range cv.Phi() {
			worst = math.Max(worst, math.Abs(f-resp[i]))
		}
		if worst > 1e-12 {
			t.Errorf("seed %d: CAVI factors differ from EM's responsibilities by %g", seed, worst)
		}
		algotest.Near(t, "CAVI evidence vs EM log-likelihood", cv.LogEvidence(), em.LogLik(), 1e-9*math.Abs(em.LogLik()))
	}
}

func TestMixtureCAVIBadParams(t *testing.T) {
	pts := [][]float64{{0, 0}, {1, 1}}
	bad := fig37()
	bad[0].Weight = 0.7
	_, err := NewMixtureCAVI(pts, bad, 0, rng(1))
	algotest.WantParam(t, err, "weights")
	bad = fig37()
	bad[1].Cov = [][]float64{{1, 2}, {2, 1}}
	_, err = NewMixtureCAVI(pts, bad, 0, rng(1))
	algotest.WantParam(t, err, "covariances")
	_, err = NewMixtureCAVI([][]float64{{0}}, fig37(), 0, rng(1))
	algotest.WantParam(t, err, "data")
	_, err = NewMixtureCAVI(nil, fig37(), 0, rng(1))
	algotest.WantParam(t, err, "data")
	_, _, err = Sample(fig37(), 0, rng(1))
	algotest.WantParam(t, err, "n")
	c, _ := NewMixtureCAVI(pts, fig37(), 0, rng(1))
	if a := testing.AllocsPerRun(1000, func() { _ = c.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

// TestSample checks the ancestral sampler's component frequencies and
// moments within 4 standard errors.
func TestSample(t *testing.T) {
	comps := []Component{
		{Weight: 0.3, Mean: []float64{-2, 1}, Cov: [][]float64{{1, 0.5}, {0.5, 2}}},
		{Weight: 0.7, Mean: []float64{4, 0}, Cov: [][]float64{{0.5, 0}, {0, 0.5}}},
	}
	const n = 50000
	pts, labels, err := Sample(comps, n, rng(7))
	if err != nil {
		t.Fatal(err)
	}
	var cnt int
	var sx, sy, sxx, sxy, syy float64
	for i, p := range pts {
		if labels[i] != 0 {
			continue
		}
		cnt++
		sx += p[0]
		sy += p[1]
		sxx += (p[0] + 2) * (p[0] + 2)
		sxy += (p[0] + 2) * (p[1] - 1)
		syy += (p[1] - 1) * (p[1] - 1)
	}
	algotest.Near(t, "frequency of component 1", float64(cnt)/n, 0.3, 4*math.Sqrt(0.21/n))
	m := float64(cnt)
	algotest.Near(t, "mean x", sx/m, -2, 4*math.Sqrt(1/m))
	algotest.Near(t, "mean y", sy/m, 1, 4*math.Sqrt(2/m))
	algotest.Near(t, "var x", sxx/m, 1, 4*math.Sqrt(2/m))
	algotest.Near(t, "cov xy", sxy/m, 0.5, 4*math.Sqrt((2+0.25)/m))
	algotest.Near(t, "var y", syy/m, 2, 4*math.Sqrt(8/m))
}

// ringData draws n points from k unit-variance clusters on a ring of radius
// r, the model's own likelihood.
func ringData(t *testing.T, n, k int, r float64, seed uint64) [][]float64 {
	t.Helper()
	var comps []Component
	for j := range k {
		a := 2 * math.Pi * float64(j) / float64(k)
		comps = append(comps, Component{Weight: 1 / float64(k), Mean: []float64{r * math.Cos(a), r * math.Sin(a)},
			Cov: [][]float64{{1, 0}, {0, 1}}})
	}
	pts, _, err := Sample(comps, n, rng(seed))
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

// TestBayesGMMMonotone checks that the ELBO never decreases from one
// half-step to the next, over seeds, K and priors.
func TestBayesGMMMonotone(t *testing.T) {
	for _, c := range []struct {
		n, clusters, k int
		alpha0, sd     float64
	}{{200, 3, 3, 1, 5}, {150, 2, 5, 0.05, 10}, {100, 4, 8, 0.5, 3}, {60, 1, 2, 2, 1}} {
		for seed := uint64(1); seed <= 4; seed++ {
			pts := ringData(t, c.n, c.clusters, 5, seed)
			g, err := NewBayesGMM(pts, BGMMConfig{K: c.k, Alpha0: c.alpha0, PriorSD: c.sd, Tol: 0}, rng(seed+50))
			if err != nil {
				t.Fatal(err)
			}
			prev := g.ELBO()
			for g.HalfSteps() < 300 {
				err := g.Step()
				if errors.Is(err, algo.ErrConverged) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if g.ELBO() < prev-1e-9*math.Abs(prev) {
					t.Fatalf("%+v seed %d: ELBO fell from %.12g to %.12g at half-step %d", c, seed, prev, g.ELBO(), g.HalfSteps())
				}
				prev = g.ELBO()
			}
		}
	}
}

// TestBayesGMMRecovers checks, on well-separated clusters, that CAVI finds
// the true means within 4 posterior-ish standard errors (1/√N_k), that the
// surplus components empty out under a small α₀ (E[π_k] below 1%), and that
// the run converges.
func TestBayesGMMRecovers(t *testing.T) {
	pts := ringData(t, 600, 3, 6, 3)
	g, err := NewBayesGMM(pts, BGMMConfig{K: 6, Alpha0: 0.01, PriorSD: 10, Tol: 1e-9}, rng(4))
	if err != nil {
		t.Fatal(err)
	}
	var stepErr error
	for stepErr == nil && g.HalfSteps() < 2000 {
		stepErr = g.Step()
	}
	if !errors.Is(stepErr, algo.ErrConverged) {
		t.Fatalf("%v after %d half-steps", stepErr, g.HalfSteps())
	}
	found := 0
	for j := range 3 {
		a := 2 * math.Pi * float64(j) / 3
		tx, ty := 6*math.Cos(a), 6*math.Sin(a)
		for k := range g.K() {
			m := g.Mean(k)
			if g.Weight(k) > 0.2 && math.Hypot(m[0]-tx, m[1]-ty) < 4/math.Sqrt(200) {
				found++
			}
		}
	}
	used := 0
	for k := range g.K() {
		if g.Weight(k) > 0.01 {
			used++
		}
	}
	if found != 3 || used != 3 {
		for k := range g.K() {
			t.Logf("component %d: weight %.4f mean %.3f", k, g.Weight(k), g.Mean(k))
		}
		t.Errorf("found %d true means, %d components in use; want 3 and 3", found, used)
	}
}

// TestBayesGMMELBOByMonteCarlo checks the closed-form ELBO against a Monte
// Carlo estimate E_q[log p(x, z, μ, π) − log q(z, μ, π)] from draws of q,
// within 4 standard errors, at the start and after a few half-steps.
func TestBayesGMMELBOByMonteCarlo(t *testing.T) {
	pts := ringData(t, 40, 2, 3, 9)
	g, err := NewBayesGMM(pts, BGMMConfig{K: 3, Alpha0: 0.7, PriorSD: 4}, rng(10))
	if err != nil {
		t.Fatal(err)
	}
	r := rng(11)
	for _, halves := range []int{1, 2, 5} {
		for g.HalfSteps() < halves {
			_ = g.Step()
		}
		const draws = 20000
		var sum, sum2 float64
		alpha := make([]float64, g.K())
		for k := range alpha {
			alpha[k] = g.Alpha(k)
		}
		prior0 := make([]float64, g.K())
		for k := range prior0 {
			prior0[k] = 0.7
		}
		pi := make([]float64, g.K())
		mu := make([]float64, 2*g.K())
		for range draws {
			dirichlet(r, alpha, pi)
			v := logDirichlet(prior0, pi) - logDirichlet(alpha, pi)
			for k := range g.K() {
				s := math.Sqrt(g.S2(k))
				for a := range 2 {
					mu[2*k+a] = g.Mean(k)[a] + s*r.NormFloat64()
					v += divergence.LogNormalPDF(mu[2*k+a], 0, 4) - divergence.LogNormalPDF(mu[2*k+a], g.Mean(k)[a], s)
				}
			}
			for i := range g.N() {
				phi := g.Phi()[i*g.K() : (i+1)*g.K()]
				u, z := r.Float64(), g.K()-1
				for k, f := range phi {
					if u -= f; u < 0 {
						z = k
						break
					}
				}
				x := g.Point(i)
				v += math.Log(pi[z]) - math.Log(phi[z])
				for a := range 2 {
					v += divergence.LogNormalPDF(x[a], mu[2*z+a], 1)
				}
			}
			sum += v
			sum2 += v * v
		}
		mean := sum / draws
		se := math.Sqrt((sum2/draws - mean*mean) / draws)
		algotest.Near(t, fmt.Sprintf("ELBO after %d half-steps (MC)", halves), g.ELBO(), mean, 4*se)
	}
}

func TestBayesGMMBadParams(t *testing.T) {
	pts := [][]float64{{0, 0}, {1, 1}, {2, 2}}
	ok := BGMMConfig{K: 2, Alpha0: 1, PriorSD: 1}
	for _, c := range []struct {
		mod  func(*BGMMConfig)
		name string
	}{
		{func(c *BGMMConfig) { c.K = 0 }, "k"},
		{func(c *BGMMConfig) { c.K = 4 }, "k"},
		{func(c *BGMMConfig) { c.Alpha0 = 0 }, "alpha0"},
		{func(c *BGMMConfig) { c.PriorSD = -1 }, "prior_sd"},
		{func(c *BGMMConfig) { c.Tol = math.NaN() }, "tol"},
	} {
		cfg := ok
		c.mod(&cfg)
		_, err := NewBayesGMM(pts, cfg, rng(1))
		algotest.WantParam(t, err, c.name)
	}
	_, err := NewBayesGMM([][]float64{{0, 0}, {1}}, ok, rng(1))
	algotest.WantParam(t, err, "data")
	g, _ := NewBayesGMM(ringData(t, 100, 2, 4, 1), ok, rng(1))
	if a := testing.AllocsPerRun(50, func() { _ = g.Step() }); a > 0.1 {
		t.Errorf("Step allocates %v times", a)
	}
}

// dirichlet draws π ~ Dir(α) by normalised Gammas.
func dirichlet(r *rand.Rand, alpha, pi []float64) {
	s := 0.0
	for k, a := range alpha {
		pi[k] = distuv.Gamma{Alpha: a, Beta: 1, Src: r}.Rand()
		s += pi[k]
	}
	for k := range pi {
		pi[k] /= s
	}
}

// logDirichlet is log Dir(π; α).
func logDirichlet(alpha, pi []float64) float64 {
	s, v := 0.0, 0.0
	for k, a := range alpha {
		lg, _ := math.Lgamma(a)
		v += (a-1)*math.Log(pi[k]) - lg
		s += a
	}
	lg, _ := math.Lgamma(s)
	return v + lg
}
