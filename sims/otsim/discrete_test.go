package otsim

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// TestAssignmentExercises: enumeration reproduces Exercise 5.1 — one
// feasible map, T = (y3, y1, y2), for μ = (1/2, 1/3, 1/6), none for
// μ = (1/2, 1/4, 1/4) against ν uniform — and Exercise 5.2's two optimal
// maps of cost 1.
func TestAssignmentExercises(t *testing.T) {
	s := simtest.Build(t, Assignment, map[string]string{"preset": "ex5.1-exists"}, 1, nil)
	simtest.RunToEnd(t, s, 100)
	f := s.Frame()
	algotest.Near(t, "ex5.1 feasible", simtest.Metric(t, f, "feasible"), 1, 0)
	algotest.Near(t, "ex5.1 cost", simtest.Metric(t, f, "best"), 0.5*4+1.0/3+1.0/6, 1e-12) // |x − y|² on 0, 1, 2
	if got := fmt.Sprint(s.Result()["optimal_maps"]); got != "[[2 0 1]]" {
		t.Errorf("ex5.1 optimal maps %s, want [[2 0 1]]: T(x1) = y3, T(x2) = y1, T(x3) = y2", got)
	}

	s = simtest.Build(t, Assignment, map[string]string{"preset": "ex5.1-none"}, 1, nil)
	simtest.RunToEnd(t, s, 100)
	f = s.Frame()
	algotest.Near(t, "ex5.1 ii feasible", simtest.Metric(t, f, "feasible"), 0, 0)
	if _, ok := f.Metric("best"); ok || !strings.Contains(simtest.Text(f), "no Monge map exists") {
		t.Errorf("ex5.1 ii: %v\n%s", f.Metrics, simtest.Text(f))
	}

	s = simtest.Build(t, Assignment, map[string]string{"preset": "ex5.2"}, 1, nil)
	simtest.RunToEnd(t, s, 100)
	f = s.Frame()
	algotest.Near(t, "ex5.2 optimal", simtest.Metric(t, f, "optimal"), 2, 0)
	algotest.Near(t, "ex5.2 cost", simtest.Metric(t, f, "best"), 1, 1e-15)
	if got := fmt.Sprint(s.Result()["optimal_maps"]); got != "[[0 1] [1 0]]" {
		t.Errorf("ex5.2 optimal maps %s, want both bijections", got)
	}
}

// TestHungarianAgainstEnumeration: on N = M = 6 uniform points the
// Hungarian algorithm ends at the least cost that enumerating all 6^6 maps
// finds, with the dual bound equal to it (strong duality) and never above
// the cost on the way.
func TestHungarianAgainstEnumeration(t *testing.T) {
	for _, pre := range []string{"gaussians", "moons-ring"} {
		set := map[string]string{"preset": pre, "n": "6", "method": "enumerate"}
		e := simtest.Build(t, Assignment, set, 3, nil)
		simtest.RunToEnd(t, e, 50000)
		set["method"] = "hungarian"
		h := simtest.Build(t, Assignment, set, 3, nil)
		for {
			err := h.Step()
			f := h.Frame()
			if d, c := simtest.Metric(t, f, "dual"), simtest.Metric(t, f, "cost"); simtest.Metric(t, f, "matched") == 6 && d > c+1e-12 {
				t.Fatalf("%s: dual %g above the cost %g", pre, d, c)
			}
			if errors.Is(err, algo.ErrConverged) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		want := simtest.Metric(t, e.Frame(), "best")
		f := h.Frame()
		algotest.Near(t, pre+" Hungarian cost", simtest.Metric(t, f, "cost"), want, 1e-12)
		algotest.Near(t, pre+" dual", simtest.Metric(t, f, "dual"), want, 1e-12)
	}
	// The Hungarian algorithm needs N = M masses 1/N.
	_, err := simtest.BuildErr(Assignment, map[string]string{"preset": "ex5.1-none", "method": "hungarian"}, 1, nil)
	if !algo.IsParamError(err, "method") || !strings.Contains(err.Error(), "enumerate") {
		t.Errorf("hungarian on ex5.1-none: %v", err)
	}
	// Enumeration refuses more maps than it can list, naming n.
	_, err = simtest.BuildErr(Assignment, map[string]string{"preset": "gaussians", "n": "9", "method": "enumerate"}, 1, nil)
	algotest.WantParam(t, err, "n")
}

// TestLPWorkedExamples: the transportation simplex and gonum's simplex
// reach Exercise 5.4's closed form (p* = 0.1, cost 2.5) and the
// catalogue's 3×3 optimum 0.1 with its plan; the marginals hold to 1e-12
// and the plan has at most n + m − 1 nonzeros.
func TestLPWorkedExamples(t *testing.T) {
	for _, tt := range []struct {
		preset string
		cost   float64
		plan   [][]float64
	}{
		{"ex5.4", 2.5, [][]float64{{0.1, 0.6}, {0.3, 0}}},
		{"three", 0.1, [][]float64{{0.4, 0.1, 0}, {0, 0.3, 0}, {0, 0, 0.2}}},
	} {
		s := simtest.Build(t, LP, map[string]string{"preset": tt.preset}, 1, nil)
		simtest.RunToEnd(t, s, 100)
		f := s.Frame()
		algotest.Near(t, tt.preset+" cost", simtest.Metric(t, f, "cost"), tt.cost, 1e-12)
		algotest.Near(t, tt.preset+" gonum", simtest.Metric(t, f, "gonum"), tt.cost, 1e-10)
		r := s.Result()
		plan := r["plan"].([][]float64)
		for i := range tt.plan {
			for j := range tt.plan[i] {
				algotest.Near(t, fmt.Sprintf("%s P[%d][%d]", tt.preset, i, j), plan[i][j], tt.plan[i][j], 1e-12)
			}
		}
		algotest.Near(t, tt.preset+" row marginals", r["row_marginal_err"].(float64), 0, 1e-12)
		algotest.Near(t, tt.preset+" column marginals", r["col_marginal_err"].(float64), 0, 1e-12)
		if nz, bound := simtest.Metric(t, f, "nonzeros"), float64(len(plan)+len(plan[0])-1); nz > bound {
			t.Errorf("%s: %g nonzeros > n + m − 1 = %g", tt.preset, nz, bound)
		}
		if tt.preset == "ex5.4" && !strings.Contains(simtest.Text(f), "p* = 0.1, cost 2.5") {
			t.Errorf("ex5.4's closed form is not stated:\n%s", simtest.Text(f))
		}
	}
}

// TestLPSortedCost: on the line the LP optimum is the cost of the sorted
// (quantile) coupling (E3), for p = 1 and p = 2 and unequal numbers of
// atoms; and on a 2-D default the simplex ends at gonum's optimum.
func TestLPSortedCost(t *testing.T) {
	for _, p := range []string{"1", "2"} {
		s := simtest.Build(t, LP, map[string]string{"preset": "gauss-1d", "n": "30", "m": "20", "p": p}, 4, nil)
		simtest.RunToEnd(t, s, 10000)
		f := s.Frame()
		algotest.Near(t, "p="+p+" LP against sorted", simtest.Metric(t, f, "cost"), simtest.Metric(t, f, "sorted"), 1e-10)
	}
	s := simtest.Build(t, LP, nil, 2, nil)
	simtest.RunToEnd(t, s, 10000)
	f := s.Frame()
	algotest.Near(t, "mixtures LP against gonum", simtest.Metric(t, f, "cost"), simtest.Metric(t, f, "gonum"), 1e-9)
}

// TestSinkhornReferenceTrace: on POT's 1-D example (two Gaussian
// histograms on 100 bins, cost |x − y|² on [0, 1]) the sim's iterates
// reproduce the trace of algo/ot/sinkhorn/testdata/reference.py, an
// independent transcription of (5.12), to a relative 1e-6 (the issue's
// tolerance): ε = 1e-2 in both domains and 1e-3 in the log domain.
func TestSinkhornReferenceTrace(t *testing.T) {
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
	for _, tt := range []struct {
		eps, domain string
		marks       []mark
	}{{"0.01", "log", eps2}, {"0.01", "plain", eps2}, {"0.001", "log", eps3}} {
		s := simtest.Build(t, Sinkhorn, map[string]string{"preset": "gauss-hist", "n": "100", "eps": tt.eps, "domain": tt.domain, "tol": "0"}, 1, nil)
		done := 0
		for _, mk := range tt.marks {
			simtest.Run(t, s, mk.iter-done)
			done = mk.iter
			f := s.Frame()
			name := fmt.Sprintf("ε=%s %s iteration %d", tt.eps, tt.domain, mk.iter)
			algotest.Near(t, name+" error", simtest.Metric(t, f, "err"), mk.err, 1e-6*mk.err)
			algotest.Near(t, name+" cost", simtest.Metric(t, f, "cost"), mk.cost, 1e-6*mk.cost)
		}
	}
}

// TestSinkhornLimits: ε → ∞ gives the independent coupling μνᵀ after one
// iteration (Ex 5.3; the catalogue's λ = 0 row, cost 1.18 on the 3×3
// example), and as ε → 0 the cost of the converged plan tends to the LP
// optimum 0.1 from above the LP line, within the entropic bias.
func TestSinkhornLimits(t *testing.T) {
	s := simtest.Build(t, Sinkhorn, map[string]string{"preset": "three", "eps": "1e9"}, 1, nil)
	if err := s.Step(); err != nil && !errors.Is(err, sims.ErrConverged) {
		t.Fatal(err)
	}
	f := s.Frame()
	algotest.Near(t, "ε=1e9 cost", simtest.Metric(t, f, "cost"), 1.18, 1e-7)
	algotest.Near(t, "ε=1e9 independent", s.Result()["independent"].(float64), 1.18, 1e-12)
	plan := s.Result()["plan"].([][]float64)
	mu, nu := []float64{0.5, 0.3, 0.2}, []float64{0.4, 0.4, 0.2}
	for i := range mu {
		for j := range nu {
			algotest.Near(t, fmt.Sprintf("π[%d][%d]", i, j), plan[i][j], mu[i]*nu[j], 1e-8)
		}
	}
	prev := math.Inf(1)
	for _, eps := range []string{"0.3", "0.1", "0.01", "0.003"} {
		s := simtest.Build(t, Sinkhorn, map[string]string{"preset": "three", "eps": eps, "tol": "1e-10"}, 1, nil)
		simtest.RunToEnd(t, s, 200000)
		f := s.Frame()
		gap := simtest.Metric(t, f, "cost") - simtest.Metric(t, f, "lp")
		algotest.Near(t, "LP", simtest.Metric(t, f, "lp"), 0.1, 1e-12)
		// Converged to 1e-10, the plan's cost is at least the LP's but for
		// that marginal error (|C| ≤ 4).
		if gap < -1e-9 || math.Abs(gap) > prev+1e-9 {
			t.Errorf("ε = %s: ⟨C,π⟩ − LP = %g after %g, want ≥ 0 and shrinking", eps, gap, prev)
		}
		prev = math.Abs(gap)
	}
	if prev > 1e-6 {
		t.Errorf("ε = 0.003: cost − LP = %g, want → 0", prev)
	}
}

// TestSinkhornPlainStall: at λ = 1000 (ε = 1e-3) the plain kernel of the
// 3×3 example underflows in 6 of 9 entries and the iterations stall at a
// marginal error of 0.2 (the catalogue's table): the run ends diverged
// within a few dozen iterations, the pane warns from the start and names
// domain=log, which converges at the same ε.
func TestSinkhornPlainStall(t *testing.T) {
	s := simtest.Build(t, Sinkhorn, map[string]string{"preset": "three", "eps": "0.001", "domain": "plain"}, 1, nil)
	if text := simtest.Text(s.Frame()); !strings.Contains(text, "⚠") || !strings.Contains(text, "domain=log") {
		t.Errorf("no warning before the run:\n%s", text)
	}
	err := simtest.RunErr(s, 200)
	if !errors.Is(err, sims.ErrDiverged) || !strings.Contains(err.Error(), "log domain") {
		t.Fatalf("plain at ε = 1e-3: %v, want a stall naming the log domain", err)
	}
	f := s.Frame()
	algotest.Near(t, "stalled error", simtest.Metric(t, f, "err"), 0.2, 1e-12)
	if f.Step > 30 {
		t.Errorf("stall reported after %d iterations", f.Step)
	}
	s = simtest.Build(t, Sinkhorn, map[string]string{"preset": "three", "eps": "0.001", "domain": "log", "tol": "1e-10"}, 1, nil)
	simtest.RunToEnd(t, s, 200000)
}

// TestLinearConvergence: the marginal error falls geometrically, so the
// sim's reading of the slope of the log line is steady: the per-iteration
// factors over successive windows of ten agree to 1e-3.
func TestLinearConvergence(t *testing.T) {
	s := simtest.Build(t, Sinkhorn, map[string]string{"preset": "three", "eps": "0.1", "tol": "0"}, 1, nil).(*skSim)
	simtest.Run(t, s, 200)
	errs := s.trace.Column(0)
	r1, ok1 := rate(errs[:150])
	r2, ok2 := rate(errs[:200])
	if !ok1 || !ok2 || math.Abs(r1-r2) > 1e-3 || r1 >= 1 {
		t.Errorf("rates %g (%v), %g (%v): want equal and < 1", r1, ok1, r2, ok2)
	}
}
