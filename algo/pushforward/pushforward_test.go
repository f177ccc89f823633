package pushforward

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/integrate"
)

func build(t *testing.T, src SourceKind, m MapKind, a, b float64, cfg Config, seed uint64) *Sampler {
	t.Helper()
	so, err := NewSource(src)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := NewMap(m, a, b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSampler(so, mp, cfg, rand.New(rand.NewPCG(seed, 0x7066)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func run(s *Sampler, steps int) {
	for range steps {
		_ = s.Step()
	}
}

// TestExample12 checks the discrete push-forward of Ex 1.2 (L148–160):
// (T_#P)({a}) = 0.2, (T_#P)({b}) = 0.8, exactly, and the sampled
// frequencies within 4 standard errors.
func TestExample12(t *testing.T) {
	s := build(t, "discrete", "ex1.2", 1, 0, Config{Batch: 1000, Bins: 50, Threshold: 0.5}, 1)
	if !s.Discrete() || len(s.Values()) != 2 {
		t.Fatalf("values %v", s.Values())
	}
	algotest.Near(t, "P(a)", s.PMF()[0], 0.2, 1e-15)
	algotest.Near(t, "P(b)", s.PMF()[1], 0.8, 1e-15)
	if Label(s.Map(), s.Values()[0]) != "a" || Label(s.Map(), s.Values()[1]) != "b" {
		t.Errorf("labels %q %q", Label(s.Map(), s.Values()[0]), Label(s.Map(), s.Values()[1]))
	}
	run(s, 100)
	n := float64(s.N())
	algotest.Near(t, "sampled P(a)", float64(s.Counts()[0])/n, 0.2, 4*math.Sqrt(0.16/n))
	emp, exact := s.Below()
	algotest.Near(t, "P(Y < ½) = P(a)", exact, 0.2, 1e-15)
	algotest.Near(t, "sampled P(Y < ½)", emp, 0.2, 4*math.Sqrt(0.16/n))
	if _, df, p := s.GoodnessOfFit(); df != 1 || p < 1e-3 {
		t.Errorf("goodness of fit: df %d, p %g", df, p)
	}
	// The other maps on the discrete source group equal images: x² on
	// {1, 2, 3} is {1, 4, 9} with the same probabilities.
	sq := build(t, "discrete", "square", 1, 0, Config{Batch: 10, Bins: 50, Threshold: 5}, 1)
	if v := sq.Values(); len(v) != 3 || v[0] != 1 || v[1] != 4 || v[2] != 9 || sq.PMF()[1] != 0.5 {
		t.Errorf("x² on {1,2,3}: %v %v", v, sq.PMF())
	}
}

// TestExample13 checks Ex 1.3 (L167–171): X ~ N(0, 1), Y = X² has density
// e^{−y/2}/√(2πy) (the sum over the branches ±√y), P(Y < 1) = 0.682689, and
// the sampled fraction agrees within 4 standard errors.
func TestExample13(t *testing.T) {
	s := build(t, "normal", "square", 1, 0, Config{Batch: 10000, Bins: 60, Threshold: 1}, 2)
	for _, y := range []float64{0.01, 0.3, 1, 2.5, 7} {
		algotest.Near(t, "p_Y", s.Density(y), math.Exp(-y/2)/math.Sqrt(2*math.Pi*y), 1e-14)
	}
	_, exact := s.Below()
	algotest.Near(t, "P(Y < 1)", exact, 0.682689, 5e-7)
	run(s, 20)
	emp, _ := s.Below()
	n := float64(s.N())
	algotest.Near(t, "sampled P(Y < 1)", emp, exact, 4*math.Sqrt(exact*(1-exact)/n))
	if lo, _ := s.YRange(); lo != 0 {
		t.Errorf("x² drawn from %g, want 0", lo)
	}
}

// TestLaws checks every continuous combination: the density integrates to
// the CDF's increments (eq 1.5 against eq 1.6) by quadrature, the binned
// masses sum to one with the tails, the closed forms of the affine,
// exponential and quantile maps, and that 200 000 draws pass Pearson's χ²
// test against the push-forward law at the 0.1% level.
func TestLaws(t *testing.T) {
	for _, c := range []struct {
		src SourceKind
		m   MapKind
	}{
		{"normal", "square"}, {"normal", "affine"}, {"normal", "exp"}, {"normal", "tanh"},
		{"uniform", "square"}, {"uniform", "exp"}, {"uniform", "tanh"}, {"uniform", "affine"},
		{"uniform", "exp-quantile"}, {"uniform", "normal-quantile"}, {"uniform", "cauchy-quantile"},
	} {
		s := build(t, c.src, c.m, -2, 1, Config{Batch: 20000, Bins: 50, Threshold: 0.5}, 3)
		lo, hi := s.YRange()
		for _, ab := range [][2]float64{{0.2, 0.4}, {0.5, 0.9}} {
			a, b := lo+ab[0]*(hi-lo), lo+ab[1]*(hi-lo)
			got := integrate.Integrate(s.Density, a, b, 16)
			algotest.Near(t, string(c.src)+"/"+string(c.m)+": ∫p_Y vs ΔF", got, s.CDF(b)-s.CDF(a), 1e-9)
		}
		total := s.pLow + s.pHigh
		for _, p := range s.BinMass() {
			total += p
		}
		algotest.Near(t, string(c.src)+"/"+string(c.m)+": total mass", total, 1, 1e-12)
		run(s, 10)
		if chi2, df, p := s.GoodnessOfFit(); p < 1e-3 {
			t.Errorf("%s/%s: χ² = %.1f on %d df, p = %.2g", c.src, c.m, chi2, df, p)
		}
	}
	aff := build(t, "normal", "affine", -2, 1, Config{Batch: 1, Bins: 50}, 1)
	algotest.Near(t, "affine: N(1, 4) density", aff.Density(2), math.Exp(-1.0/8)/math.Sqrt(8*math.Pi), 1e-15)
	ex := build(t, "uniform", "exp-quantile", 1, 0, Config{Batch: 1, Bins: 50}, 1)
	algotest.Near(t, "Exp(1) CDF", ex.CDF(1.3), 1-math.Exp(-1.3), 1e-15)
	ln := build(t, "normal", "exp", 1, 0, Config{Batch: 1, Bins: 50}, 1)
	algotest.Near(t, "log-normal density", ln.Density(2), math.Exp(-math.Log(2)*math.Log(2)/2)/(2*math.Sqrt(2*math.Pi)), 1e-15)
}

// TestGoodnessOfFitDetectsTheWrongLaw replaces the exact bin masses of x²
// by those of a single branch of (1.5) (half the density, the mistake of
// treating x² as invertible) and checks that the χ² test rejects it.
func TestGoodnessOfFitDetectsTheWrongLaw(t *testing.T) {
	s := build(t, "normal", "square", 1, 0, Config{Batch: 10000, Bins: 50, Threshold: 1}, 4)
	run(s, 5)
	for i := range s.pBin {
		s.pBin[i] /= 2
	}
	s.pHigh = 1 - (1-s.pHigh)/2
	if _, _, p := s.GoodnessOfFit(); p > 1e-10 {
		t.Errorf("one-branch law accepted, p = %g", p)
	}
}

func TestBadParams(t *testing.T) {
	so, _ := NewSource("normal")
	q, _ := NewMap("exp-quantile", 1, 0)
	cases := []struct {
		err  error
		name string
	}{
		{func() error {
			_, err := NewSampler(so, q, Config{Batch: 1, Bins: 50}, rand.New(rand.NewPCG(1, 1)))
			return err
		}(), "source"},
		{func() error {
			d, _ := NewSource("discrete")
			_, err := NewSampler(d, q, Config{Batch: 1, Bins: 50}, rand.New(rand.NewPCG(1, 1)))
			return err
		}(), "source"},
		{func() error {
			m, _ := NewMap("square", 1, 0)
			_, err := NewSampler(so, m, Config{Batch: 0, Bins: 50}, rand.New(rand.NewPCG(1, 1)))
			return err
		}(), "batch"},
		{func() error {
			m, _ := NewMap("square", 1, 0)
			_, err := NewSampler(so, m, Config{Batch: 1, Bins: 5}, rand.New(rand.NewPCG(1, 1)))
			return err
		}(), "bins"},
		{func() error { _, err := NewMap("cube", 1, 0); return err }(), "map"},
		{func() error { _, err := NewMap("affine", 0, 0); return err }(), "a"},
		{func() error { _, err := NewSource("cauchy"); return err }(), "source"},
	}
	for _, c := range cases {
		var pe *algo.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.name {
			t.Errorf("got %v, want a ParamError naming %s", c.err, c.name)
		}
	}
	s := build(t, "normal", "square", 1, 0, Config{Batch: 100, Bins: 50, Threshold: 1}, 1)
	if a := testing.AllocsPerRun(100, func() { _ = s.Step() }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

func BenchmarkStep(b *testing.B) {
	so, _ := NewSource("normal")
	m, _ := NewMap("square", 1, 0)
	s, _ := NewSampler(so, m, Config{Batch: 1000, Bins: 60, Threshold: 1}, rand.New(rand.NewPCG(1, 1)))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Step()
	}
}
