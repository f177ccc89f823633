package sliced

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
	"github.com/thelab/lab/algo/ot/lp"
	"github.com/thelab/lab/algo/ot/oned"
)

func cloud(rng *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

func uniform(k int) []float64 {
	w := make([]float64, k)
	for i := range w {
		w[i] = 1 / float64(k)
	}
	return w
}

func mustNew(t testing.TB, x, y []float64, d int, mu, nu []float64, cfg Config, seed uint64) *Sliced {
	t.Helper()
	s, err := New(x, y, d, mu, nu, cfg, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func steps(t testing.TB, s *Sliced, k int) {
	t.Helper()
	for range k {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTranslation: ν = μ + m. Along every direction the projections keep
// their order, so W_2^2(θ#μ, θ#ν) = ⟨θ, m⟩² exactly (to 1e-12
// relative), and the Monte Carlo estimate of SW_2^2 is within 4 standard
// errors of ‖m‖²/d; for p = 1 the costs are |⟨θ, m⟩| and the estimate is
// within 4 s.e. of c_{d,1}‖m‖.
func TestTranslation(t *testing.T) {
	for _, tc := range []struct {
		d    int
		p    float64
		seed uint64
	}{{2, 2, 1}, {3, 2, 2}, {10, 2, 3}, {3, 1, 4}} {
		rng := rand.New(rand.NewPCG(tc.seed, 1))
		const n = 20 // the statistics depend on the directions only
		x := cloud(rng, n, tc.d)
		m := make([]float64, tc.d)
		norm2 := 0.0
		for k := range m {
			m[k] = 3 * rng.NormFloat64()
			norm2 += m[k] * m[k]
		}
		y := make([]float64, len(x))
		for i := range n {
			for k := range tc.d {
				y[i*tc.d+k] = x[i*tc.d+k] + m[k]
			}
		}
		s := mustNew(t, x, y, tc.d, uniform(n), uniform(n), Config{P: tc.p, Batch: 10}, tc.seed)
		for range 200 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			dot := 0.0
			for k, v := range s.Theta() {
				dot += v * m[k]
			}
			want := math.Pow(math.Abs(dot), tc.p)
			algotest.Near(t, "W_p^p along θ", s.Last(), want, 1e-12*math.Max(want, norm2))
		}
		want := MomentConstant(tc.d, tc.p) * math.Pow(norm2, tc.p/2)
		if z := (s.Estimate() - want) / s.StdErr(); math.Abs(z) > 4 {
			t.Errorf("d=%d p=%g: SW^p estimate %.6g, want %.6g: %.2f s.e. (s.e. %.3g)", tc.d, tc.p, s.Estimate(), want, z, s.StdErr())
		}
	}
}

// TestMomentConstant: c_{d,2} = 1/d; c_{2,1} = 2/π; c_{1,p} = 1; c_{3,1}
// = 1/2 (θ₁ is uniform on [−1, 1] on S²).
func TestMomentConstant(t *testing.T) {
	for _, d := range []int{1, 2, 3, 7, 100} {
		algotest.Near(t, "c_{d,2}", MomentConstant(d, 2), 1/float64(d), 1e-14)
	}
	algotest.Near(t, "c_{2,1}", MomentConstant(2, 1), 2/math.Pi, 1e-14)
	algotest.Near(t, "c_{3,1}", MomentConstant(3, 1), 0.5, 1e-14)
	algotest.Near(t, "c_{1,3}", MomentConstant(1, 3), 1, 1e-14)
}

// TestOneDimension: in d = 1 every direction is ±1 and SW_p^p = W_p^p
// exactly; with unequal weights and numbers of atoms the merged quantile
// functions give oned.Cost's value (an independent implementation on
// oned.Measure) to 1e-12 relative, for each p.
func TestOneDimension(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct{ n, m int }{{1, 1}, {7, 7}, {13, 5}, {40, 61}} {
		x, y := cloud(rng, tc.n, 1), cloud(rng, tc.m, 1)
		for i := range y {
			y[i] = 2*y[i] + 1
		}
		mu, nu := make([]float64, tc.n), make([]float64, tc.m)
		for i := range mu {
			mu[i] = rng.Float64() + 0.1
		}
		for j := range nu {
			nu[j] = rng.Float64() + 0.1
		}
		// equal totals: ν is rescaled to μ's total here, in the test
		sa, sb := 0.0, 0.0
		for _, v := range mu {
			sa += v
		}
		for _, v := range nu {
			sb += v
		}
		for j := range nu {
			nu[j] *= sa / sb
		}
		for _, p := range []float64{1, 1.5, 2, 3} {
			s := mustNew(t, x, y, 1, mu, nu, Config{P: p, Batch: 3}, 9)
			a, err := oned.Discrete(x, s.Mu())
			if err != nil {
				t.Fatal(err)
			}
			b, err := oned.Discrete(y, s.Nu())
			if err != nil {
				t.Fatal(err)
			}
			want, err := oned.Cost(a, b, p)
			if err != nil {
				t.Fatal(err)
			}
			steps(t, s, 5)
			algotest.Near(t, "SW_p^p in d = 1", s.Estimate(), want, 1e-12*want)
			algotest.Near(t, "max-sliced in d = 1", s.Max(), want, 1e-12*want)
			if s.StdErr() > 1e-12*want {
				t.Errorf("d = 1: s.e. %g, want 0", s.StdErr())
			}
			// the coupling's masses are the merged segments: they sum to 1
			// and cost the same
			sum, cost := 0.0, 0.0
			for _, q := range s.Coupling(nil) {
				sum += q.Mass
				cost += q.Mass * math.Pow(math.Abs(x[q.I]-y[q.J]), p)
			}
			algotest.Near(t, "coupled mass", sum, 1, 1e-12)
			algotest.Near(t, "coupling's cost", cost, want, 1e-12*want)
		}
	}
}

// TestBelowWasserstein: for the LP's optimal plan π* of two small clouds
// in the plane, every direction's cost is at most ∫|⟨θ, x − y⟩|^p dπ*
// (the projected plan couples the projections) and so at most W_p^p
// (exact inequalities, to rounding); the estimate of SW_p^p is within 4
// s.e. below c_{d,p} W_p^p.
func TestBelowWasserstein(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for _, p := range []float64{1, 2, 3} {
		const n, m, d = 12, 9, 2
		x, y := cloud(rng, n, d), cloud(rng, m, d)
		for j := range m {
			y[j*d] = 0.5*y[j*d] + 2
		}
		mu, nu := uniform(n), uniform(m)
		c := ot.GroundCost(x, y, d, p)
		simplex, err := lp.New(mu, nu, c)
		if err != nil {
			t.Fatal(err)
		}
		for err == nil {
			err = simplex.Step()
		}
		if !errors.Is(err, algo.ErrConverged) {
			t.Fatal(err)
		}
		w := simplex.Cost()
		plan := simplex.Plan()
		s := mustNew(t, x, y, d, mu, nu, Config{P: p, Batch: 1}, 3)
		for range 2000 {
			steps(t, s, 1)
			th := s.Theta()
			proj := 0.0
			for i := range n {
				for j := range m {
					dt := th[0]*(x[i*d]-y[j*d]) + th[1]*(x[i*d+1]-y[j*d+1])
					proj += plan[i*m+j] * math.Pow(math.Abs(dt), p)
				}
			}
			if s.Last() > proj*(1+1e-12)+1e-15 {
				t.Fatalf("p=%g: W_p^p(θ#μ, θ#ν) = %.15g above the projected plan's %.15g", p, s.Last(), proj)
			}
		}
		if s.Max() > w*(1+1e-12) {
			t.Errorf("p=%g: max-sliced %g above W_p^p = %g", p, s.Max(), w)
		}
		if bound := MomentConstant(d, p) * w; s.Estimate() > bound+4*s.StdErr() {
			t.Errorf("p=%g: SW_p^p estimate %g above c·W_p^p = %g by more than 4 s.e. (%g)", p, s.Estimate(), bound, s.StdErr())
		}
	}
}

// TestStdErrShrinks: the standard error falls as 1/√k: from 100 to 1600
// directions it falls 4-fold, within 15% (about 1.5 times the relative
// error of a sample sd of 100 such costs), and the estimate at 1600
// directions is within 4 combined s.e. (√2 times its own) of an
// independent 1600-direction estimate.
func TestStdErrShrinks(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	const n, d = 50, 3
	x, y := cloud(rng, n, d), cloud(rng, n, d)
	for i := range n {
		y[i*d] = 2*y[i*d] + 1
	}
	s := mustNew(t, x, y, d, uniform(n), uniform(n), Config{P: 2, Batch: 100}, 1)
	steps(t, s, 1)
	se100 := s.StdErr()
	steps(t, s, 15)
	se1600, est := s.StdErr(), s.Estimate()
	r := se100 / se1600
	t.Logf("s.e. ratio %.4f", r)
	if math.Abs(r/4-1) > 0.15 {
		t.Errorf("s.e. at 100 directions / s.e. at 1600 = %.3f, want 4 within 15%%", r)
	}
	ref := mustNew(t, x, y, d, uniform(n), uniform(n), Config{P: 2, Batch: 1600}, 2)
	steps(t, ref, 1)
	if z := (est - ref.Estimate()) / math.Hypot(se1600, ref.StdErr()); math.Abs(z) > 4 {
		t.Errorf("estimate %g against the reference %g: %.2f s.e.", est, ref.Estimate(), z)
	}
}

// TestStepDoesNotAllocate: a step with its sorting and merging allocates
// nothing.
func TestStepDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := cloud(rng, 100, 2), cloud(rng, 80, 2)
	s := mustNew(t, x, y, 2, uniform(100), uniform(80), Config{P: 2, Batch: 4}, 1)
	if a := testing.AllocsPerRun(50, func() { _ = s.Step() }); a != 0 {
		t.Errorf("Step allocates %g times", a)
	}
}

// TestSlicedValidation: each input is checked and named.
func TestSlicedValidation(t *testing.T) {
	x, y := []float64{0, 0, 1, 1}, []float64{2, 2}
	mu, nu := []float64{0.5, 0.5}, []float64{1}
	rng := rand.New(rand.NewPCG(1, 1))
	ok := Config{P: 2, Batch: 1}
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"d", func() error { _, err := New(x, y, 0, mu, nu, ok, rng); return err }},
		{"mu", func() error { _, err := New(x, y, 2, []float64{-1, 2}, nu, ok, rng); return err }},
		{"nu", func() error { _, err := New(x, y, 2, mu, []float64{3}, ok, rng); return err }},
		{"points", func() error { _, err := New(x[:3], y, 2, mu, nu, ok, rng); return err }},
		{"points", func() error { _, err := New([]float64{0, math.NaN(), 1, 1}, y, 2, mu, nu, ok, rng); return err }},
		{"p", func() error { _, err := New(x, y, 2, mu, nu, Config{P: 0.5, Batch: 1}, rng); return err }},
		{"batch", func() error { _, err := New(x, y, 2, mu, nu, Config{P: 2}, rng); return err }},
		{"rng", func() error { _, err := New(x, y, 2, mu, nu, ok, nil); return err }},
	} {
		algotest.WantParam(t, tc.err(), tc.name)
	}
	s, err := New(x, y, 2, mu, nu, ok, rng)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(s.Estimate()) || !math.IsNaN(s.StdErr()) || !math.IsNaN(s.Max()) {
		t.Error("before a direction the estimate, s.e. and max must be NaN")
	}
}

// TestTiesCoupledByIndex: atoms at a shared position (100 atoms on three
// points of the line, in scrambled order) are coupled in the order of
// their indices, whatever the sort does with equal keys: the Coupling is
// a function of the data. With the positions alone as the key, the
// unstable sort's order showed instead.
func TestTiesCoupledByIndex(t *testing.T) {
	const n = 100
	rng := rand.New(rand.NewPCG(8, 8))
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(rng.IntN(3))
	}
	s := mustNew(t, x, []float64{5}, 1, uniform(n), []float64{1}, Config{P: 2, Batch: 1}, 1)
	steps(t, s, 1)
	last := map[float64]int{}
	for _, q := range s.Coupling(nil) {
		if k, seen := last[x[q.I]]; seen && q.I < k {
			t.Fatalf("atom %d at %g coupled after atom %d at the same place", q.I, x[q.I], k)
		}
		last[x[q.I]] = q.I
	}
}
