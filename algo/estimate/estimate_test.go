package estimate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6d6c65)) }

func model(t *testing.T, kind Kind, a, b float64) Model {
	t.Helper()
	m, err := NewModel(kind, a, b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMLEClosedForms checks each model's MLE against the batch formulas
// computed from the raw data (the 1/N variance; least squares for the
// regression, Remark 1.6), and that it maximises the log-likelihood: the
// finite-difference gradient vanishes and every nearby θ is worse.
func TestMLEClosedForms(t *testing.T) {
	for _, m := range []Model{
		model(t, "gaussian", 2, 3), model(t, "bernoulli", 0.3, 0),
		model(t, "exponential", 1.7, 0), model(t, "regression", -0.8, 0.5),
	} {
		r := rng(1)
		var st Stats
		var xs, ys []float64
		for range 500 {
			x, y := m.Draw(r)
			st.Add(x, y)
			xs, ys = append(xs, x), append(ys, y)
		}
		th, ok := st.MLE(m.Kind)
		if !ok {
			t.Fatalf("%s: no MLE", m.Kind)
		}
		var sy, sxx, sxy float64
		for i := range ys {
			sy += ys[i]
			sxx += xs[i] * xs[i]
			sxy += xs[i] * ys[i]
		}
		mean := sy / 500
		switch m.Kind {
		case Gaussian:
			v := 0.0
			for _, y := range ys {
				v += (y - mean) * (y - mean)
			}
			algotest.Near(t, "μ̂", th[0], mean, 1e-12)
			algotest.Near(t, "σ̂² (1/N)", th[1], v/500, 1e-12)
		case Bernoulli:
			algotest.Near(t, "p̂", th[0], mean, 1e-15)
		case Exponential:
			algotest.Near(t, "λ̂", th[0], 1/mean, 1e-12)
		case Regression:
			a := sxy / sxx
			rss := 0.0
			for i := range ys {
				rss += (ys[i] - a*xs[i]) * (ys[i] - a*xs[i])
			}
			algotest.Near(t, "â (least squares)", th[0], a, 1e-12)
			algotest.Near(t, "σ̂²", th[1], rss/500, 1e-10)
		}
		best := st.LogLik(m.Kind, th)
		for j := range m.NumParams() {
			h := 1e-5 * math.Max(1, math.Abs(th[j]))
			up, dn := th, th
			up[j] += h
			dn[j] -= h
			g := (st.LogLik(m.Kind, up) - st.LogLik(m.Kind, dn)) / (2 * h)
			algotest.Near(t, fmt.Sprintf("%s ∂l/∂θ%d at the MLE", m.Kind, j+1), g, 0, 1e-4)
			for _, d := range []float64{-0.01, 0.01} {
				p := th
				p[j] += d * math.Max(0.1, math.Abs(th[j]))
				if st.LogLik(m.Kind, p) >= best {
					t.Errorf("%s: l(%v) = %g ≥ l(MLE) = %g", m.Kind, p, st.LogLik(m.Kind, p), best)
				}
			}
		}
	}
}

// TestStreamConsistency checks consistency (L295): after 100 000
// observations each θ̂_j is within 4 asymptotic standard errors √(I⁻¹/n)
// of the truth.
func TestStreamConsistency(t *testing.T) {
	for _, m := range []Model{
		model(t, "gaussian", -1, 4), model(t, "bernoulli", 0.8, 0),
		model(t, "exponential", 0.5, 0), model(t, "regression", 2, 1),
	} {
		s, err := NewStream(m, rng(2))
		if err != nil {
			t.Fatal(err)
		}
		const n = 100000
		for range n {
			_ = s.Step()
		}
		th, ok := s.MLE()
		if !ok || s.N() != n {
			t.Fatalf("%s: no MLE after %d", m.Kind, s.N())
		}
		inv := m.InverseFisher()
		for j := range m.NumParams() {
			algotest.Near(t, fmt.Sprintf("%s θ̂%d", m.Kind, j+1), th[j], m.Theta[j], 4*math.Sqrt(inv[j]/n))
		}
		if x, y := s.Recent(); len(x) != RecentCap || len(y) != RecentCap {
			t.Errorf("recent: %d", len(x))
		}
		if a := testing.AllocsPerRun(1000, func() { _ = s.Step() }); a != 0 {
			t.Errorf("Step allocates %v times", a)
		}
	}
}

// TestSamplingDistribution replicates each experiment R = 4000 times at
// n = 200 and checks the mean and variance of z = √n(θ̂ − θ): within 4
// standard errors of the exact finite-n moments, and within 4 standard
// errors plus the O(1/n) gap of the asymptotic law N(0, I⁻¹) (L301); and
// that 95% ± 4 s.e. of the z lie within ±1.96 asymptotic sd.
func TestSamplingDistribution(t *testing.T) {
	const n, R = 200, 4000
	nf := float64(n)
	for _, c := range []struct {
		m Model
		// exact finite-n mean and variance of z for each parameter
		mean, vr [2]float64
	}{
		{model(t, "gaussian", 1, 2), [2]float64{0, -2 / math.Sqrt(nf)}, [2]float64{2, 8 * (nf - 1) / nf}},
		{model(t, "bernoulli", 0.3, 0), [2]float64{0}, [2]float64{0.21}},
		{model(t, "exponential", 2, 0), [2]float64{math.Sqrt(nf) * 2 / (nf - 1)}, [2]float64{nf * nf * nf * 4 / ((nf - 1) * (nf - 1) * (nf - 2))}},
		{model(t, "regression", 1.5, 0.5), [2]float64{0, -0.5 / math.Sqrt(nf)}, [2]float64{nf * 0.5 / (nf - 2), 0.5 * (nf - 1) / nf}},
	} {
		r, err := NewReplicates(c.m, n, 60, rng(3))
		if err != nil {
			t.Fatal(err)
		}
		for range R {
			_ = r.Step()
		}
		if ok, bad := r.Replicates(); ok != R || bad != 0 {
			t.Fatalf("%s: %d replicates, %d without an MLE", c.m.Kind, ok, bad)
		}
		inv := c.m.InverseFisher()
		for j := range c.m.NumParams() {
			mean, v, in95 := r.Moments(j)
			seMean := math.Sqrt(c.vr[j] / R)
			seVar := c.vr[j] * math.Sqrt(2.0/R) * 1.5 // 1.5: room for excess kurtosis at n = 200
			name := fmt.Sprintf("%s z%d", c.m.Kind, j+1)
			algotest.Near(t, name+" mean (exact)", mean, c.mean[j], 4*seMean)
			algotest.Near(t, name+" variance (exact)", v, c.vr[j], 4*seVar)
			algotest.Near(t, name+" mean (asymptotic 0)", mean, 0, 4*seMean+math.Abs(c.mean[j]))
			algotest.Near(t, name+" variance (asymptotic I⁻¹)", v, inv[j], 4*seVar+math.Abs(c.vr[j]-inv[j]))
			algotest.Near(t, name+" fraction within ±1.96 sd", in95, 0.95, 4*math.Sqrt(0.95*0.05/R)+0.01)
			lo, hi := r.Range(j)
			w := (hi - lo) / 60
			mass := 0.0
			for _, d := range r.Density(j, nil) {
				mass += d * w
			}
			if mass < 0.99 || mass > 1+1e-12 {
				t.Errorf("%s: histogram mass %g", name, mass)
			}
		}
	}
}

func TestBadParams(t *testing.T) {
	cases := []struct {
		err  error
		name string
	}{
		{func() error { _, err := NewModel("poisson", 1, 1); return err }(), "model"},
		{func() error { _, err := NewModel("bernoulli", 1, 0); return err }(), "theta1"},
		{func() error { _, err := NewModel("gaussian", 0, 0); return err }(), "theta2"},
		{func() error { _, err := NewModel("exponential", -1, 0); return err }(), "theta1"},
		{func() error { _, err := NewModel("regression", math.NaN(), 1); return err }(), "theta1"},
		{func() error {
			_, err := NewReplicates(Model{Kind: Gaussian, Theta: [2]float64{0, 1}}, 0, 50, rng(1))
			return err
		}(), "n"},
		{func() error {
			_, err := NewReplicates(Model{Kind: Gaussian, Theta: [2]float64{0, 1}}, 10, 5, rng(1))
			return err
		}(), "bins"},
	}
	for _, c := range cases {
		var pe *algo.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.name {
			t.Errorf("got %v, want a ParamError naming %s", c.err, c.name)
		}
	}
	r, _ := NewReplicates(model(t, "gaussian", 0, 1), 100, 50, rng(1))
	if a := testing.AllocsPerRun(100, func() { _ = r.Step() }); a != 0 {
		t.Errorf("Replicates.Step allocates %v times", a)
	}
}
