package ancestral

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/mixture"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xa5)) }

// moments2 accumulates the mean and covariance of 2-D points.
type moments2 struct {
	n                     float64
	sx, sy, sxx, sxy, syy float64
}

func (m *moments2) add(x [2]float64) {
	m.n++
	m.sx += x[0]
	m.sy += x[1]
	m.sxx += x[0] * x[0]
	m.sxy += x[0] * x[1]
	m.syy += x[1] * x[1]
}

func (m *moments2) mean() [2]float64 { return [2]float64{m.sx / m.n, m.sy / m.n} }

func (m *moments2) cov() [2][2]float64 {
	mu := m.mean()
	c := m.sxy/m.n - mu[0]*mu[1]
	return [2][2]float64{{m.sxx/m.n - mu[0]*mu[0], c}, {c, m.syy/m.n - mu[1]*mu[1]}}
}

// checkGMM draws S points and checks, per component, the frequency of z
// against π_k (binomial standard error sqrt(π(1−π)/S)) and the mean and
// covariance of x | z against μ_k and Σ_k (standard errors sqrt(Σ_ii/n_k) and
// sqrt((Σ_ii Σ_jj + Σ_ij²)/n_k)), all to 5 standard errors.
func checkGMM(t *testing.T, g *GMM, S int) {
	t.Helper()
	comps := g.Components()
	m := make([]moments2, len(comps))
	for range S {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		z, x := g.Last()
		m[z].add(x)
	}
	if g.N() != S {
		t.Fatalf("N = %d after %d draws", g.N(), S)
	}
	for k, c := range comps {
		se := math.Sqrt(c.Weight * (1 - c.Weight) / float64(S))
		if f := m[k].n / float64(S); math.Abs(f-c.Weight) > 5*se+1e-12 {
			t.Errorf("component %d: frequency %.4f, π = %.4f ± %.2g", k+1, f, c.Weight, 5*se)
		}
		if m[k].n < 50 {
			continue
		}
		mu, cov := m[k].mean(), m[k].cov()
		for a := range 2 {
			if se := math.Sqrt(c.Cov[a][a] / m[k].n); math.Abs(mu[a]-c.Mean[a]) > 5*se {
				t.Errorf("component %d: mean[%d] %.4f, want %.4f ± %.2g", k+1, a, mu[a], c.Mean[a], 5*se)
			}
			for b := a; b < 2; b++ {
				se := math.Sqrt((c.Cov[a][a]*c.Cov[b][b] + c.Cov[a][b]*c.Cov[a][b]) / m[k].n)
				if math.Abs(cov[a][b]-c.Cov[a][b]) > 5*se {
					t.Errorf("component %d: cov[%d][%d] %.4f, want %.4f ± %.2g", k+1, a, b, cov[a][b], c.Cov[a][b], 5*se)
				}
			}
		}
	}
}

// TestGMM is item B6's oracle for a fixed mixture: ancestral draws have the
// component frequencies π and the conditional moments μ_k, Σ_k.
func TestGMM(t *testing.T) {
	s, err := mixture.Blobs(newRNG(1), 10, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGMM(s.Truth, newRNG(2))
	if err != nil {
		t.Fatal(err)
	}
	if z, _ := g.Last(); z != -1 {
		t.Fatalf("z = %d before the first draw", z)
	}
	checkGMM(t, g, 50000)
	if a := testing.AllocsPerRun(100, func() { _ = g.Step() }); a != 0 {
		t.Errorf("a draw allocates %v times", a)
	}
}

// TestHierGMM is Example 3.1's oracle. Given its globals, each model is a
// GMM with the right conditionals (checkGMM); over R independent models the
// globals have their priors' moments: π_k mean 1/K and variance
// (K−1)/(K²(Kα+1)) (symmetric Dirichlet), and every coordinate of μ_k mean
// M0 and variance τ², to 5 standard errors.
func TestHierGMM(t *testing.T) {
	cfg := HierConfig{K: 4, Alpha: 2, M0: [2]float64{1, -2}, Tau: 3, Sigma: 0.5}
	g, err := NewHierGMM(cfg, newRNG(3))
	if err != nil {
		t.Fatal(err)
	}
	checkGMM(t, g, 40000)

	const R = 20000
	K := float64(cfg.K)
	var sumPi, sumPi2, sumMu, sumMu2 float64
	rng := newRNG(4)
	for range R {
		g, err := NewHierGMM(cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		c := g.Components()
		sumPi += c[0].Weight
		sumPi2 += c[0].Weight * c[0].Weight
		d := c[1].Mean[1] - cfg.M0[1]
		sumMu += d
		sumMu2 += d * d
	}
	varPi := (K - 1) / (K * K * (K*cfg.Alpha + 1))
	if m, se := sumPi/R, math.Sqrt(varPi/R); math.Abs(m-1/K) > 5*se {
		t.Errorf("E[π_1] = %.4f, want %.4f ± %.2g", m, 1/K, 5*se)
	}
	if v := sumPi2/R - (sumPi/R)*(sumPi/R); math.Abs(v-varPi) > 0.05*varPi {
		t.Errorf("Var[π_1] = %.5f, want %.5f (±5%%)", v, varPi)
	}
	if m, se := sumMu/R, cfg.Tau/math.Sqrt(R); math.Abs(m) > 5*se {
		t.Errorf("E[μ_2,y − m0] = %.4f, want 0 ± %.2g", m, 5*se)
	}
	// Var of a sample variance of Gaussians: 2τ⁴/R.
	if v, se := sumMu2/R, math.Sqrt(2/float64(R))*cfg.Tau*cfg.Tau; math.Abs(v-cfg.Tau*cfg.Tau) > 5*se {
		t.Errorf("Var[μ_2,y] = %.4f, want %.4f ± %.2g", v, cfg.Tau*cfg.Tau, 5*se)
	}
}

// TestSSM is Example 3.3's oracle: the draws follow the model's conditionals,
// so the process residuals z_t − f(z_{t−1}) and the observation residuals
// x_t − h(z_t) are N(0, q²) and N(0, r²): means within 5 standard errors and
// variances within 5 standard errors (sqrt(2/n)·σ²). For the linear model
// the state's stationary variance is q²/(1 − a²): checked over R independent
// chains at t = 60 (a^120 ≈ 0 for a = 0.9, so the start is forgotten).
func TestSSM(t *testing.T) {
	for _, cfg := range []SSMConfig{
		{Dynamics: Nonlinear, Q: math.Sqrt(10), R: 1},
		{Dynamics: Linear, A: 0.9, Q: 0.5, R: 2},
	} {
		t.Run(cfg.Dynamics.String(), func(t *testing.T) {
			s, err := NewSSM(cfg, newRNG(5))
			if err != nil {
				t.Fatal(err)
			}
			const n = 50000
			var ep, ep2, eo, eo2 float64
			prev := 0.0
			for i := 0; i < n; i++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
				z, x := s.Last()
				if i > 0 {
					e := z - s.F(prev)
					ep += e
					ep2 += e * e
				}
				e := x - s.H(z)
				eo += e
				eo2 += e * e
				prev = z
			}
			check := func(what string, sum, sum2 float64, cnt int, sd float64) {
				t.Helper()
				m := sum / float64(cnt)
				v := sum2/float64(cnt) - m*m
				if se := sd / math.Sqrt(float64(cnt)); math.Abs(m) > 5*se {
					t.Errorf("%s residual mean %.4f, want 0 ± %.2g", what, m, 5*se)
				}
				if se := math.Sqrt(2/float64(cnt)) * sd * sd; math.Abs(v-sd*sd) > 5*se {
					t.Errorf("%s residual variance %.4f, want %.4f ± %.2g", what, v, sd*sd, 5*se)
				}
			}
			check("process", ep, ep2, n-1, cfg.Q)
			check("observation", eo, eo2, n, cfg.R)
			if s.T() != n {
				t.Errorf("T = %d", s.T())
			}
		})
	}
	cfg := SSMConfig{Dynamics: Linear, A: 0.9, Q: 0.5, R: 2}
	const R = 20000
	rng := newRNG(6)
	sum2 := 0.0
	for range R {
		s, _ := NewSSM(cfg, rng)
		for range 60 {
			_ = s.Step()
		}
		z, _ := s.Last()
		sum2 += z * z
	}
	want := cfg.Q * cfg.Q / (1 - cfg.A*cfg.A)
	if v, se := sum2/R, math.Sqrt(2.0/R)*want; math.Abs(v-want) > 5*se {
		t.Errorf("stationary Var z = %.4f, want q²/(1−a²) = %.4f ± %.2g", v, want, 5*se)
	}
}

func TestBadParams(t *testing.T) {
	good := []mixture.Component{{Weight: 1, Cov: [2][2]float64{{1, 0}, {0, 1}}}}
	bad := func(f func(*mixture.Component)) []mixture.Component {
		c := good[0]
		f(&c)
		return []mixture.Component{c}
	}
	hier := HierConfig{K: 3, Alpha: 1, Tau: 1, Sigma: 1}
	cases := []struct {
		name  string
		err   error
		param string
	}{
		{"no components", func() error { _, err := NewGMM(nil, newRNG(1)); return err }(), "k"},
		{"weights sum", func() error {
			_, err := NewGMM(bad(func(c *mixture.Component) { c.Weight = 0.5 }), newRNG(1))
			return err
		}(), "weights"},
		{"negative weight", func() error {
			_, err := NewGMM(bad(func(c *mixture.Component) { c.Weight = -1 }), newRNG(1))
			return err
		}(), "weights"},
		{"NaN mean", func() error {
			_, err := NewGMM(bad(func(c *mixture.Component) { c.Mean[0] = math.NaN() }), newRNG(1))
			return err
		}(), "means"},
		{"singular cov", func() error {
			_, err := NewGMM(bad(func(c *mixture.Component) { c.Cov = [2][2]float64{{1, 1}, {1, 1}} }), newRNG(1))
			return err
		}(), "covariances"},
		{"asymmetric cov", func() error {
			_, err := NewGMM(bad(func(c *mixture.Component) { c.Cov[0][1] = 0.5 }), newRNG(1))
			return err
		}(), "covariances"},
		{"nil rng", func() error { _, err := NewGMM(good, nil); return err }(), "rng"},
		{"hier k", func() error { h := hier; h.K = 11; _, err := NewHierGMM(h, newRNG(1)); return err }(), "k"},
		{"hier alpha", func() error { h := hier; h.Alpha = 0; _, err := NewHierGMM(h, newRNG(1)); return err }(), "alpha"},
		{"hier tau", func() error { h := hier; h.Tau = 0; _, err := NewHierGMM(h, newRNG(1)); return err }(), "tau"},
		{"hier sigma", func() error { h := hier; h.Sigma = -1; _, err := NewHierGMM(h, newRNG(1)); return err }(), "sigma"},
		{"ssm a", func() error { _, err := NewSSM(SSMConfig{Dynamics: Linear, A: 1, Q: 1, R: 1}, newRNG(1)); return err }(), "a"},
		{"ssm q", func() error { _, err := NewSSM(SSMConfig{Q: 0, R: 1}, newRNG(1)); return err }(), "q"},
		{"ssm r", func() error { _, err := NewSSM(SSMConfig{Q: 1, R: math.NaN()}, newRNG(1)); return err }(), "r"},
		{"ssm dynamics", func() error { _, err := NewSSM(SSMConfig{Dynamics: 5, Q: 1, R: 1}, newRNG(1)); return err }(), "dynamics"},
	}
	for _, c := range cases {
		if !algo.IsParamError(c.err, c.param) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, c.err, c.param)
		}
	}
}

// TestGMMWeightTolerance: NewGMM takes weights summing to 1 within 1e-9,
// as its doc comment says: off by half that accepted, by twice refused.
func TestGMMWeightTolerance(t *testing.T) {
	comp := func(w float64) mixture.Component {
		return mixture.Component{Weight: w, Cov: [2][2]float64{{1, 0}, {0, 1}}}
	}
	for _, c := range []struct {
		off float64
		ok  bool
	}{{5e-10, true}, {-5e-10, true}, {2e-9, false}, {-2e-9, false}} {
		_, err := NewGMM([]mixture.Component{comp(0.25), comp(0.75 + c.off)}, newRNG(1))
		if c.ok != (err == nil) {
			t.Errorf("weights off by %g: %v", c.off, err)
		}
		if !c.ok && !algo.IsParamError(err, "weights") {
			t.Errorf("weights off by %g: %v, want a ParamError naming weights", c.off, err)
		}
	}
}
