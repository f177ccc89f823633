package sinkhorn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/ot"
)

// three is the catalogue's 3×3 example (E2, E5): LP optimum 0.1.
func three() (mu, nu, c []float64) {
	p := ot.Three()
	return p.Mu, p.Nu, p.C
}

func mustNew(t testing.TB, mu, nu, c []float64, cfg Config) *Sinkhorn {
	t.Helper()
	s, err := New(mu, nu, c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run takes up to k iterations, stopping early at convergence; any other
// error is returned.
func run(s *Sinkhorn, k int) error {
	for range k {
		if err := s.Step(); err != nil {
			if errors.Is(err, algo.ErrConverged) {
				return nil
			}
			return err
		}
	}
	return nil
}

// TestExpShift: expShift's exponentials are within a relative 5e-16
// (about 2 ulp) of math.Exp on [−708, 0], 0 below, and their sum is
// returned; the shift is applied first.
func TestExpShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := []float64{0, -1e-300, -708, -708.5, -1000, math.Inf(-1)}
	for i := range 200000 {
		if i%2 == 0 {
			x = append(x, -rng.Float64())
		} else {
			x = append(x, -708*rng.Float64())
		}
	}
	const shift = 3.5
	xs := make([]float64, len(x))
	for i, v := range x {
		xs[i] = v + shift
	}
	e := make([]float64, len(x))
	sum, want := expShift(e, xs, shift), 0.0
	worst := 0.0
	for i := range x {
		v := xs[i] - shift // the argument expShift forms
		w := math.Exp(v)
		if v < -708 {
			w = 0
		}
		want += w
		if w == 0 {
			if e[i] != 0 {
				t.Errorf("e^%g = %g, want 0", v, e[i])
			}
			continue
		}
		worst = math.Max(worst, math.Abs(e[i]-w)/w)
	}
	if worst > 5e-16 {
		t.Errorf("worst relative error %g", worst)
	}
	algotest.Near(t, "sum", sum, want, 1e-12*want)
	if s := expShift(nil, xs, shift); s != sum {
		t.Errorf("without dst the sum is %g, with %g", s, sum)
	}
}

// TestReferenceTrace reproduces the trace of testdata/reference.py, an
// independent plain-Python transcription of (5.12), on POT's 1-D example
// (two Gaussian histograms on 100 bins): the marginal error and ⟨C, π⟩ at
// iterations 1 … 200, to a relative 1e-9 (the issue asks 1e-6) or 1e-14
// absolute for errors at rounding level.
func TestReferenceTrace(t *testing.T) {
	type mark struct {
		iter      int
		err, cost float64
	}
	eps2 := []mark{
		{1, 1.622905742351253e+00, 7.773874127715286e-02},
		{2, 7.850095299601325e-01, 1.302539284533602e-01},
		{5, 4.808400336175513e-02, 1.671691089715317e-01},
		{10, 4.254860839948851e-04, 1.695986501846193e-01},
		{20, 3.347199280947120e-08, 1.696204715786732e-01},
		{50, 4.292220876408144e-16, 1.696204732955033e-01},
		{100, 4.736623488788958e-16, 1.696204732955033e-01},
		{200, 4.346544625049963e-16, 1.696204732955032e-01},
	}
	eps3 := []mark{
		{1, 1.972875252135852e+00, 5.076625749088150e-03},
		{2, 1.949915498582688e+00, 1.448647017910067e-02},
		{5, 1.809085562050124e+00, 4.721994147328209e-02},
		{10, 1.384943985370324e+00, 9.034622791231597e-02},
		{20, 5.938525212378347e-01, 1.363110295218550e-01},
		{50, 3.220933295205445e-02, 1.646229320106186e-01},
		{100, 2.392021148178970e-04, 1.662557845082455e-01},
		{200, 1.323896571133187e-08, 1.662680521090208e-01},
	}
	p, err := ot.GaussHistograms(rand.New(rand.NewPCG(1, 1)), 100, 100)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := p.Cost(2)
	for _, tt := range []struct {
		name  string
		eps   float64
		dom   Domain
		marks []mark
	}{
		{"eps=1e-2 plain", 1e-2, Plain, eps2},
		{"eps=1e-2 log", 1e-2, Log, eps2},
		{"eps=1e-3 log", 1e-3, Log, eps3},
	} {
		s := mustNew(t, p.Mu, p.Nu, c, Config{Eps: tt.eps, Domain: tt.dom})
		for _, mk := range tt.marks {
			for s.Iter() < mk.iter {
				if err := s.Step(); err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
			}
			algotest.Near(t, tt.name+" error", s.MarginalError(), mk.err, math.Max(1e-9*mk.err, 1e-14))
			algotest.Near(t, tt.name+" cost", s.Cost(), mk.cost, 1e-9*mk.cost)
		}
	}
}

// TestCatalogueTable reproduces the seed-002 catalogue's E5 table on the
// 3×3 example (λ = 1/ε): the cost and the marginal error after 1, 10 and
// 200 iterations, to the two digits printed; at λ = 1000 the plain run is
// stuck at 0.2 and reports an UnderflowError, while the log domain
// converges to the LP optimum 0.1.
func TestCatalogueTable(t *testing.T) {
	mu, nu, c := three()
	for _, tt := range []struct {
		lambda        float64
		cost          float64 // after 200 iterations
		e1, e10, e200 float64
	}{
		{1, 0.3618, 0.023, 6.3e-6, 3e-17},
		{10, 0.1002, 0.2, 0.194, 9.6e-4},
		{100, 0.0972, 0.2, 0.2, 5.6e-3},
	} {
		for _, dom := range []Domain{Plain, Log} {
			s := mustNew(t, mu, nu, c, Config{Eps: 1 / tt.lambda, Domain: dom})
			got := map[int]float64{}
			for k := 1; k <= 200; k++ {
				// Tol = 0: a run whose error reaches exactly 0 has converged
				// and keeps it.
				if err := s.Step(); err != nil && !errors.Is(err, algo.ErrConverged) {
					t.Fatalf("λ=%g %v: %v", tt.lambda, dom, err)
				}
				got[k] = s.MarginalError()
			}
			name := fmt.Sprintf("%v λ=%g", dom, tt.lambda)
			algotest.Near(t, name+" cost", s.Cost(), tt.cost, 5e-5)
			algotest.Near(t, name+" error@1", got[1], tt.e1, 0.05*tt.e1)
			algotest.Near(t, name+" error@10", got[10], tt.e10, 0.05*tt.e10)
			algotest.Near(t, name+" error@200", got[200], tt.e200, math.Max(0.05*tt.e200, 1e-15))
		}
	}

	s := mustNew(t, mu, nu, c, Config{Eps: 1e-3, Domain: Plain})
	var uerr *UnderflowError
	if err := run(s, 1000); !errors.As(err, &uerr) || !errors.Is(err, algo.ErrDiverged) {
		t.Fatalf("plain λ=1000: got %v, want an UnderflowError", err)
	}
	if uerr.Iter > StallIters+2 || math.Abs(uerr.MarginalError-0.2) > 1e-12 || uerr.Zeros != 6 {
		t.Errorf("plain λ=1000: %+v, want stuck at 0.2 within %d iterations with 6 zeros", uerr, StallIters+2)
	}
	if msg := uerr.Error(); !strings.Contains(msg, "log domain") || !strings.Contains(msg, "0.00565") {
		t.Errorf("message %q should give the threshold 4/708.4 and suggest the log domain", msg)
	}
	s = mustNew(t, mu, nu, c, Config{Eps: 1e-3, Domain: Log, Tol: 1e-10})
	if err := run(s, 200000); err != nil {
		t.Fatal(err)
	}
	if s.MarginalError() > 1e-10 || math.Abs(s.Cost()-0.1) > 2e-3 {
		t.Errorf("log λ=1000: error %g cost %g after %d iterations, want → 0 and ≈ 0.1", s.MarginalError(), s.Cost(), s.Iter())
	}
}

// TestIndependentLimit: as ε → ∞, K → 1 and one iteration gives the
// independent coupling μνᵀ (Ex 5.3; the catalogue's λ = 0 row, cost 1.18):
// the plan is within 4·max C/ε of μνᵀ entrywise, the marginals exact.
func TestIndependentLimit(t *testing.T) {
	mu, nu, c := three()
	for _, eps := range []float64{1e6, 1e12, 1e300} {
		for _, dom := range []Domain{Plain, Log} {
			s := mustNew(t, mu, nu, c, Config{Eps: eps, Domain: dom})
			if err := s.Step(); err != nil && !errors.Is(err, algo.ErrConverged) {
				t.Fatal(err)
			}
			p := s.Plan(nil)
			for i := range mu {
				for j := range nu {
					algotest.Near(t, fmt.Sprintf("%v ε=%g π[%d][%d]", dom, eps, i, j), p[i*3+j], mu[i]*nu[j], 4*4/eps+1e-16)
				}
			}
			algotest.Near(t, fmt.Sprintf("%v ε=%g cost", dom, eps), s.Cost(), 1.18, 16*4/eps+1e-15)
			algotest.Near(t, fmt.Sprintf("%v ε=%g error", dom, eps), s.MarginalError(), 0, 16/eps+1e-15)
		}
	}
}

// randomProblem draws n and m points in the unit square with random masses
// and returns μ, ν and the squared-distance cost.
func randomProblem(rng *rand.Rand, n, m int) (mu, nu, c []float64) {
	x, y := make([]float64, 2*n), make([]float64, 2*m)
	for i := range x {
		x[i] = rng.Float64()
	}
	for i := range y {
		y[i] = rng.Float64()
	}
	mu, nu = make([]float64, n), make([]float64, m)
	for i := range mu {
		mu[i] = 0.2 + rng.Float64()
	}
	for j := range nu {
		nu[j] = 0.2 + rng.Float64()
	}
	sa, sb := 0.0, 0.0
	for _, v := range mu {
		sa += v
	}
	for _, v := range nu {
		sb += v
	}
	return ot.Normalised(mu, sa), ot.Normalised(nu, sb), ot.GroundCost(x, y, 2, 2)
}

// TestDomainsAgree: where the plain kernel is representable the two
// domains carry the same iteration: plans, costs, entropies and errors
// agree to 1e-12 after 50 iterations; and the quantities fused into the
// log-domain pass agree with the plan's own to 1e-13.
func TestDomainsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {1, 5}, {7, 3}, {20, 30}} {
		mu, nu, c := randomProblem(rng, sz[0], sz[1])
		for _, eps := range []float64{0.5, 0.05, 0.01} {
			pl := mustNew(t, mu, nu, c, Config{Eps: eps, Domain: Plain})
			lg := mustNew(t, mu, nu, c, Config{Eps: eps, Domain: Log})
			if err := run(pl, 50); err != nil {
				t.Fatal(err)
			}
			if err := run(lg, 50); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%v ε=%g", sz, eps)
			pp, lp := pl.Plan(nil), lg.Plan(nil)
			for k := range pp {
				algotest.Near(t, name+" plan", lp[k], pp[k], 1e-12)
			}
			algotest.Near(t, name+" cost", lg.Cost(), pl.Cost(), 1e-12)
			algotest.Near(t, name+" entropy", lg.Entropy(), pl.Entropy(), 1e-10)
			algotest.Near(t, name+" objective", lg.Objective(), pl.Objective(), 1e-12)
			if pl.Iter() == lg.Iter() {
				algotest.Near(t, name+" error", lg.MarginalError(), pl.MarginalError(), 1e-12)
			}
			rows, cols := ot.MarginalError(lp, mu, nu)
			algotest.Near(t, name+" fused row error", lg.MarginalError(), rows, 1e-13)
			algotest.Near(t, name+" column error", cols, 0, 1e-13)
			algotest.Near(t, name+" fused cost", lg.Cost(), ot.PlanCost(c, lp), 1e-13)
			h := 0.0
			for _, v := range lp {
				if v > 0 {
					h -= v * math.Log(v)
				}
			}
			algotest.Near(t, name+" entropy", lg.Entropy(), h, 1e-10)
		}
	}
}

// TestLinearConvergence: the marginal error falls geometrically — on POT's
// histograms at ε = 0.05 the ratio e_{k+1}/e_k settles below 1 and varies
// by under 1% between iterations 10 and 30, so log e_k is a straight line.
func TestLinearConvergence(t *testing.T) {
	p, _ := ot.GaussHistograms(rand.New(rand.NewPCG(1, 1)), 100, 100)
	c, _ := p.Cost(2)
	s := mustNew(t, p.Mu, p.Nu, c, Config{Eps: 0.002})
	var errs []float64
	for range 40 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		errs = append(errs, s.MarginalError())
	}
	r0 := errs[20] / errs[19]
	if !(r0 < 0.99) {
		t.Fatalf("ratio %g, want a contraction", r0)
	}
	for k := 10; k < 30; k++ {
		if r := errs[k+1] / errs[k]; math.Abs(r-r0) > 0.01*r0 {
			t.Errorf("ratio at %d: %g, at 20: %g", k, r, r0)
		}
	}
}

// TestEpsToZero: the entropic cost tends to the LP optimum as ε → 0, on
// the 3×3 example (optimum 0.1) in the log domain; each run goes to a
// marginal error of 1e-7 (convergence slows sharply as ε falls: at
// ε = 0.03 the error contracts by 1 − 8e-6 an iteration once below 1e-7),
// and the gap |⟨C, π⟩ − 0.1| shrinks with ε until the marginal error
// bounds it.
func TestEpsToZero(t *testing.T) {
	mu, nu, c := three()
	prev := math.Inf(1)
	for _, eps := range []float64{1, 0.3, 0.1, 0.03, 0.01} {
		s := mustNew(t, mu, nu, c, Config{Eps: eps, Tol: 1e-7})
		if err := run(s, 100000); err != nil || s.MarginalError() > 1e-7 {
			t.Fatalf("ε=%g: %v, error %g", eps, err, s.MarginalError())
		}
		// A plan off the marginals by e can be cheaper than the optimum by
		// up to max C · e = 4e.
		gap := math.Abs(s.Cost() - 0.1)
		if !(gap < prev || gap <= 4*s.MarginalError()) {
			t.Errorf("ε=%g: cost %g, gap %g after %g", eps, s.Cost(), gap, prev)
		}
		prev = gap
	}
	if prev > 1e-6 {
		t.Errorf("ε=0.01: gap %g, want < 1e-6", prev)
	}
}

// TestZeroMass: an empty atom carries no mass and the run converges.
func TestZeroMass(t *testing.T) {
	mu, nu := []float64{0.5, 0, 0.5}, []float64{0.25, 0.75, 0}
	c := []float64{0, 1, 4, 1, 0, 1, 4, 1, 0}
	for _, dom := range []Domain{Plain, Log} {
		s := mustNew(t, mu, nu, c, Config{Eps: 0.1, Domain: dom, Tol: 1e-12})
		if err := run(s, 10000); err != nil {
			t.Fatal(err)
		}
		p := s.Plan(nil)
		for j := range 3 {
			if p[3+j] != 0 || p[3*j+2] != 0 {
				t.Errorf("%v: plan %v should be empty in row 2 and column 3", dom, p)
			}
		}
		if !algo.Finite(s.Objective()) || s.MarginalError() > 1e-12 {
			t.Errorf("%v: objective %g error %g", dom, s.Objective(), s.MarginalError())
		}
	}
}

func TestBadInput(t *testing.T) {
	mu, nu, c := three()
	nan := math.NaN()
	for _, tt := range []struct {
		name   string
		mu, nu []float64
		c      []float64
		cfg    Config
		param  string
	}{
		{"negative weight", []float64{0.6, -0.1, 0.5}, nu, c, Config{Eps: 1}, "mu"},
		{"empty side", mu, nil, nil, Config{Eps: 1}, "nu"},
		{"unequal masses", mu, []float64{0.4, 0.4, 0.3}, c, Config{Eps: 1}, "nu"},
		{"NaN cost", mu, nu, []float64{0, 1, 4, 1, nan, 1, 4, 1, 0}, Config{Eps: 1}, "cost"},
		{"short cost", mu, nu, c[:8], Config{Eps: 1}, "cost"},
		{"eps 0", mu, nu, c, Config{Eps: 0}, "eps"},
		{"eps Inf", mu, nu, c, Config{Eps: math.Inf(1)}, "eps"},
		{"eps NaN", mu, nu, c, Config{Eps: nan}, "eps"},
		{"tol", mu, nu, c, Config{Eps: 1, Tol: -1}, "tol"},
		{"domain", mu, nu, c, Config{Eps: 1, Domain: 7}, "domain"},
	} {
		_, err := New(tt.mu, tt.nu, tt.c, tt.cfg)
		algotest.WantParam(t, err, tt.param)
		if tt.name == "unequal masses" && (err == nil || !strings.Contains(err.Error(), "1.1") || !strings.Contains(err.Error(), "total mass of mu, 1")) {
			t.Errorf("unequal masses: %v should show both sums", err)
		}
	}
	err := CheckPlainEps(1e-3, c)
	algotest.WantParam(t, err, "eps")
	if err == nil || !strings.Contains(err.Error(), "log domain") {
		t.Errorf("CheckPlainEps: %v should suggest the log domain", err)
	}
	if err := CheckPlainEps(0.01, c); err != nil {
		t.Errorf("CheckPlainEps(0.01): %v", err)
	}
}

// TestNoAllocs: a step allocates nothing in either domain.
func TestNoAllocs(t *testing.T) {
	mu, nu, c := randomProblem(rand.New(rand.NewPCG(5, 6)), 40, 30)
	for _, dom := range []Domain{Plain, Log} {
		s := mustNew(t, mu, nu, c, Config{Eps: 0.05, Domain: dom})
		if a := testing.AllocsPerRun(20, func() { _ = s.Step() }); a != 0 {
			t.Errorf("%v: %g allocations per step", dom, a)
		}
	}
}
