package classify

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x636c66)) }

var (
	equal = Params{Pi: 0.4, Mu: [2][2]float64{{-1.5, 0}, {1.5, 0.5}},
		Cov: [2][2][2]float64{{{1, 0.5}, {0.5, 1}}, {{1, 0.5}, {0.5, 1}}}}
	different = Params{Pi: 0.5, Mu: [2][2]float64{{-1.5, 0}, {1.5, 0.5}},
		Cov: [2][2][2]float64{{{1, 0.5}, {0.5, 1}}, {{0.4, -0.2}, {-0.2, 1.8}}}}
)

// gauss is N(x; μ, Σ) written out, for Bayes' rule in the tests.
func gauss(x, mu [2]float64, c [2][2]float64) float64 {
	det := c[0][0]*c[1][1] - c[0][1]*c[1][0]
	d0, d1 := x[0]-mu[0], x[1]-mu[1]
	q := (c[1][1]*d0*d0 - 2*c[0][1]*d0*d1 + c[0][0]*d1*d1) / det
	return math.Exp(-q/2) / (2 * math.Pi * math.Sqrt(det))
}

// TestPosteriorIsBayesRule checks (1.4) against Bayes' rule
// πf₁/(πf₁ + (1 − π)f₀) with the densities written out, and the quadratic
// form of the log-odds against LogOdds, for both models.
func TestPosteriorIsBayesRule(t *testing.T) {
	r := rng(1)
	for _, p := range []Params{equal, different} {
		a, b, c := p.Quadratic()
		for range 200 {
			x := [2]float64{4 * r.NormFloat64(), 4 * r.NormFloat64()}
			f0, f1 := gauss(x, p.Mu[0], p.Cov[0]), gauss(x, p.Mu[1], p.Cov[1])
			bayes := p.Pi * f1 / (p.Pi*f1 + (1-p.Pi)*f0)
			algotest.Near(t, "p(Y=1|x) vs Bayes' rule", p.Posterior(x), bayes, 1e-12)
			quad := x[0]*(a[0][0]*x[0]+a[0][1]*x[1]) + x[1]*(a[1][0]*x[0]+a[1][1]*x[1]) + b[0]*x[0] + b[1]*x[1] + c
			algotest.Near(t, "xᵀAx + bᵀx + c vs log-odds", quad, p.LogOdds(x), 1e-9*math.Max(1, math.Abs(quad)))
		}
	}
}

// TestSharedCovarianceIsLinear answers Exercise 1.1: with Σ₀ = Σ₁ the
// log-odds is affine: A = 0 exactly, every second difference
// g(x + h) − 2g(x) + g(x − h) vanishes, and (b, c) are the catalogue's
// w = Σ⁻¹(μ₁ − μ₀), w₀ = −½μ₁ᵀΣ⁻¹μ₁ + ½μ₀ᵀΣ⁻¹μ₀ + log(π/(1 − π)). With
// different covariances the second differences do not vanish.
func TestSharedCovarianceIsLinear(t *testing.T) {
	a, b, c := equal.Quadratic()
	if a != [2][2]float64{} {
		t.Errorf("A = %v, want 0", a)
	}
	s, _ := inv(equal.Cov[0])
	dm := [2]float64{equal.Mu[1][0] - equal.Mu[0][0], equal.Mu[1][1] - equal.Mu[0][1]}
	w := [2]float64{s[0][0]*dm[0] + s[0][1]*dm[1], s[1][0]*dm[0] + s[1][1]*dm[1]}
	quad := func(m [2]float64) float64 {
		return m[0]*(s[0][0]*m[0]+s[0][1]*m[1]) + m[1]*(s[1][0]*m[0]+s[1][1]*m[1])
	}
	w0 := -quad(equal.Mu[1])/2 + quad(equal.Mu[0])/2 + math.Log(0.4/0.6)
	algotest.Near(t, "w₁", b[0], w[0], 1e-12)
	algotest.Near(t, "w₂", b[1], w[1], 1e-12)
	algotest.Near(t, "w₀", c, w0, 1e-12)
	r := rng(2)
	worst := func(p Params) float64 {
		m := 0.0
		for range 200 {
			x := [2]float64{3 * r.NormFloat64(), 3 * r.NormFloat64()}
			h := [2]float64{r.NormFloat64(), r.NormFloat64()}
			xp, xm := [2]float64{x[0] + h[0], x[1] + h[1]}, [2]float64{x[0] - h[0], x[1] - h[1]}
			m = math.Max(m, math.Abs(p.LogOdds(xp)-2*p.LogOdds(x)+p.LogOdds(xm)))
		}
		return m
	}
	if e := worst(equal); e > 1e-12 {
		t.Errorf("shared covariance: second difference %g, want 0 (affine)", e)
	}
	if e := worst(different); e < 0.1 {
		t.Errorf("different covariances: second difference %g, want a quadratic", e)
	}
	// A fitted shared model is affine too, whatever the data.
	f, _ := NewFit(Shared)
	st, _ := NewStream(f, &different, nil, nil, rng(3))
	for range 300 {
		_ = st.Step()
	}
	p, ok := f.Params()
	if !ok {
		t.Fatal("no fit")
	}
	if a, _, _ := p.Quadratic(); a != [2][2]float64{} {
		t.Errorf("fitted shared model: A = %v, want 0", a)
	}
	if e := worst(p); e > 1e-12 {
		t.Errorf("fitted shared model: second difference %g", e)
	}
}

// TestFitIsMLE checks the fit against batch formulas (class frequencies,
// means, 1/N_k covariances, the pooled covariance) and its consistency:
// after 20 000 points from the truth, every parameter within 0.05.
func TestFitIsMLE(t *testing.T) {
	for _, mode := range []Covariance{Shared, Separate} {
		f, _ := NewFit(mode)
		st, _ := NewStream(f, &different, nil, nil, rng(4))
		for st.Step() == nil {
		}
		xs, ys := st.Points()
		if len(xs) != MaxPoints {
			t.Fatalf("%d points", len(xs))
		}
		var n [2]float64
		var mu [2][2]float64
		for i, x := range xs {
			n[ys[i]]++
			mu[ys[i]][0] += x[0]
			mu[ys[i]][1] += x[1]
		}
		var cov [2][2][2]float64
		for k := range 2 {
			mu[k][0] /= n[k]
			mu[k][1] /= n[k]
		}
		for i, x := range xs {
			k := ys[i]
			d := [2]float64{x[0] - mu[k][0], x[1] - mu[k][1]}
			for a := range 2 {
				for b := range 2 {
					cov[k][a][b] += d[a] * d[b] / n[k]
				}
			}
		}
		p, ok := f.Params()
		if !ok {
			t.Fatal("no fit")
		}
		algotest.Near(t, "π̂", p.Pi, n[1]/(n[0]+n[1]), 1e-15)
		for k := range 2 {
			for a := range 2 {
				algotest.Near(t, "μ̂", p.Mu[k][a], mu[k][a], 1e-10)
				for b := range 2 {
					want := cov[k][a][b]
					if mode == Shared {
						want = (n[0]*cov[0][a][b] + n[1]*cov[1][a][b]) / (n[0] + n[1])
					}
					algotest.Near(t, "Σ̂", p.Cov[k][a][b], want, 1e-10)
					if mode == Separate {
						algotest.Near(t, "Σ̂ vs truth", p.Cov[k][a][b], different.Cov[k][a][b], 0.05)
					}
				}
				algotest.Near(t, "μ̂ vs truth", p.Mu[k][a], different.Mu[k][a], 0.05)
			}
		}
		// The separate fit approaches the Bayes classifier's accuracy.
		test := make([][2]float64, 5000)
		lab := make([]int, 5000)
		r := rng(5)
		for i := range test {
			test[i], lab[i] = different.Sample(r)
		}
		bayes, fitted := Accuracy(different, test, lab), Accuracy(p, test, lab)
		if mode == Separate && math.Abs(bayes-fitted) > 0.005 {
			t.Errorf("separate fit accuracy %.4f, Bayes %.4f", fitted, bayes)
		}
		if mode == Shared && fitted > bayes+0.002 {
			t.Errorf("shared (misspecified) fit %.4f beats Bayes %.4f", fitted, bayes)
		}
	}
}

func TestStreamFromData(t *testing.T) {
	f, _ := NewFit(Separate)
	data := [][2]float64{{0, 0}, {1, 0}, {0, 1}, {5, 5}, {6, 5}, {5, 7}, {0.5, 0.2}, {5.5, 6}}
	labels := []int{0, 0, 0, 1, 1, 1, 0, 1}
	st, err := NewStream(f, nil, data, labels, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	var stepErr error
	for stepErr == nil {
		stepErr = st.Step()
	}
	if !errors.Is(stepErr, algo.ErrConverged) || st.N() != 8 {
		t.Errorf("%v after %d points", stepErr, st.N())
	}
	p, ok := f.Params()
	if !ok || Accuracy(p, data, labels) != 1 {
		t.Errorf("fit %v ok %v", p, ok)
	}
}

func TestBadParams(t *testing.T) {
	f, _ := NewFit(Shared)
	bad := equal
	bad.Pi = 1
	bad2 := equal
	bad2.Cov[1] = [2][2]float64{{1, 2}, {2, 1}}
	cases := []struct {
		err  error
		name string
	}{
		{func() error { _, err := NewFit("tied"); return err }(), "fit"},
		{func() error { _, err := NewStream(f, &bad, nil, nil, rng(1)); return err }(), "pi"},
		{func() error { _, err := NewStream(f, &bad2, nil, nil, rng(1)); return err }(), "cov1"},
		{func() error {
			_, err := NewStream(f, nil, [][2]float64{{0, 0}, {1, 1}}, []int{0, 0}, rng(1))
			return err
		}(), "data"},
		{func() error {
			_, err := NewStream(f, nil, [][2]float64{{0, 0}, {1, 1}}, []int{0, 2}, rng(1))
			return err
		}(), "data"},
	}
	for _, c := range cases {
		var pe *algo.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.name {
			t.Errorf("got %v, want a ParamError naming %s", c.err, c.name)
		}
	}
	st, _ := NewStream(f, &equal, nil, nil, rng(1))
	if a := testing.AllocsPerRun(1000, func() { _ = st.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}
