package svm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
)

// ipmProblem is a seeded problem for IPM's tests.
type ipmProblem struct {
	name string
	x    [][]float64
	y    []float64
	c    float64
}

// gaussProblem is n points of two overlapping Gaussian classes in d
// dimensions (seeded by n and d).
func gaussProblem(t testing.TB, n, d int, c float64) ipmProblem {
	t.Helper()
	data, err := dataset.GaussianClasses(rand.New(rand.NewPCG(uint64(n), uint64(d))), n, d, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := data.PlusMinus()
	return ipmProblem{fmt.Sprintf("gaussians n=%d d=%d C=%g", n, d, c), data.X, y, c}
}

// separableProblem is n points separable with margin ≥ 0.1 in the plane.
func separableProblem(t testing.TB, n int, c float64) ipmProblem {
	t.Helper()
	data, _, err := dataset.Separable(rand.New(rand.NewPCG(uint64(n), 7)), n, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := data.PlusMinus()
	return ipmProblem{fmt.Sprintf("separable n=%d C=%g", n, c), data.X, y, c}
}

// ipmProblems are the problems solved by both IPM and SMO: overlapping
// classes at n = 30 and 200 in 1, 2 and 5 dimensions with C = 0.01, 1 and
// 100, and separable data with C = 10⁴ (where the box does not bind: the
// hard margin).
func ipmProblems(t testing.TB) []ipmProblem {
	var ps []ipmProblem
	for _, n := range []int{30, 200} {
		for _, d := range []int{1, 2, 5} {
			for _, c := range []float64{0.01, 1, 100} {
				ps = append(ps, gaussProblem(t, n, d, c))
			}
		}
		ps = append(ps, separableProblem(t, n, 1e4))
	}
	return ps
}

// edgeProblems are the degenerate cases IPM must handle: every point
// twice and one point with both labels (α not unique), a small minority
// class entirely at the bound C, and one feature.
func edgeProblems(t testing.TB) []ipmProblem {
	g := gaussProblem(t, 60, 2, 1)
	dup := ipmProblem{name: "duplicates C=1", c: 1}
	for i := range g.x {
		dup.x = append(dup.x, g.x[i], g.x[i])
		dup.y = append(dup.y, g.y[i], g.y[i])
	}
	dup.x = append(dup.x, []float64{0.3, -0.2}, []float64{0.3, -0.2})
	dup.y = append(dup.y, 1, -1)
	// 8 positives among 80 points, C small: every positive at C.
	rng := rand.New(rand.NewPCG(8, 80))
	few := ipmProblem{name: "minority at the bound C=0.05", c: 0.05}
	for i := range 80 {
		yi, mean := -1.0, -1.0
		if i%10 == 0 {
			yi, mean = 1, 1
		}
		few.x = append(few.x, []float64{mean + rng.NormFloat64(), rng.NormFloat64()})
		few.y = append(few.y, yi)
	}
	return []ipmProblem{dup, few, gaussProblem(t, 100, 1, 10), separableProblem(t, 100, 1e4)}
}

// primalAt is P(w, b) = ½‖w‖² + C Σ (1 − y_i(w·x_i + b))⁺, computed here.
func primalAt(p ipmProblem, w []float64, b float64) float64 {
	h := 0.0
	for i, xi := range p.x {
		h += math.Max(0, 1-p.y[i]*(dotp(w, xi)+b))
	}
	return 0.5*dotp(w, w) + p.c*h
}

// checkSolution asserts what every LinearSVM must satisfy: α in the box
// with Σyα = 0 to the tolerance, W = Σ α_i y_i x_i, Primal = P(W, B) and
// Dual = Σα − ½‖W‖² as computed here, and |P − D| ≤ Tol·P.
func checkSolution(t *testing.T, p ipmProblem, sol *LinearSVM, tol float64) {
	t.Helper()
	d := len(p.x[0])
	w, size := make([]float64, d), make([]float64, d)
	sumA, sumYA := 0.0, 0.0
	for i, a := range sol.Alpha {
		if !(a >= 0 && a <= p.c) {
			t.Fatalf("%s: α_%d = %v outside [0, %v]", p.name, i, a, p.c)
		}
		sumA += a
		sumYA += p.y[i] * a
		for j, v := range p.x[i] {
			w[j] += a * p.y[i] * v
			size[j] += math.Abs(a * v)
		}
	}
	if math.Abs(sumYA) > tol*sumA {
		t.Errorf("%s: Σyα = %v for Σα = %v", p.name, sumYA, sumA)
	}
	// Summed in another order, Σαyx rounds differently: by up to about
	// 10⁻¹⁶·Σ|α_i x_ij| (10⁻⁹ at C = 10⁴ and n = 5000, where w is O(1)).
	for j := range w {
		algotest.Near(t, p.name+": w_j against Σαyx", sol.W[j], w[j], 1e-13*size[j])
	}
	algotest.Near(t, p.name+": Primal against P(W, B)", sol.Primal, primalAt(p, sol.W, sol.B), 1e-12*sol.Primal)
	algotest.Near(t, p.name+": Dual against Σα − ½‖w‖²", sol.Dual, sumA-0.5*dotp(w, w), 1e-12*sol.Primal)
	if g := (sol.Primal - sol.Dual) / sol.Primal; math.Abs(g) > tol || math.Abs(g-sol.Gap) > 1e-13 {
		t.Errorf("%s: (P − D)/P = %v (P = %v, D = %v), Gap %v", p.name, g, sol.Primal, sol.Dual, sol.Gap)
	}
}

// TestIPMAgainstSMO: on the problems of ipmProblems the interior point's
// dual objective equals SMO's at a KKT tolerance of 1e-10 to 1e-8
// relative, its primal objective equals its dual to the tolerance 1e-10
// (strong duality; checkSolution), and its w is within the distance the
// two gaps allow of SMO's: P is 1-strongly convex in w, so ½‖w − w*‖² ≤
// P(w, b) − P* ≤ P(w, b) − D(α_SMO) for either solver's (w, b).
func TestIPMAgainstSMO(t *testing.T) {
	for _, p := range append(ipmProblems(t), edgeProblems(t)...) {
		sol, err := IPM(p.x, p.y, IPMConfig{C: p.c})
		if err != nil {
			t.Errorf("%s: %v", p.name, err)
			continue
		}
		checkSolution(t, p, sol, DefaultIPMTol)
		s := solve(t, kernel.Linear{}, p.x, p.y, p.c, 1e-10)
		if d := math.Abs(sol.Dual - s.Dual()); d > 1e-8*math.Abs(s.Dual()) {
			t.Errorf("%s: IPM's D = %.12g, SMO's %.12g (%.2g relative)", p.name, sol.Dual, s.Dual(), d/s.Dual())
		}
		ws := weights(s, p.x)
		dist := 0.0
		for j := range ws {
			dist += (sol.W[j] - ws[j]) * (sol.W[j] - ws[j])
		}
		bound := math.Sqrt(2*math.Max(sol.Primal-s.Dual(), 0)) + math.Sqrt(2*math.Max(s.Primal()-s.Dual(), 0))
		if math.Sqrt(dist) > bound+1e-9 {
			t.Errorf("%s: ‖w_IPM − w_SMO‖ = %.3g, more than the gaps allow (%.3g)", p.name, math.Sqrt(dist), bound)
		}
		t.Logf("%s: %d iterations, gap %.2g, D − D_SMO = %.2g", p.name, sol.Iter, sol.Gap, sol.Dual-s.Dual())
	}
}

// TestIPMKKT checks the KKT conditions of the soft-margin SVM (seed-003
// catalogue S3) at the interior point's solution, with margins
// m_i = y_i(w·x_i + b): α_i ≈ 0 ⇒ m_i ≥ 1 − ε, α_i ≈ C ⇒ m_i ≤ 1 + ε,
// 0 < α_i < C ⇒ m_i ≈ 1, with ε = 10⁻⁶. "≈ 0" and "≈ C" are within
// 10⁻⁶C: the method ends inside the box. Each point's complementarity,
// β_i(m_i − 1)⁺ + (1 − β_i)(1 − m_i)⁺ with β = α/C, is a share of the
// scaled gap G = (P − D)/C ≤ Tol·P/C (see IPM), so a point near a bound
// violates its condition by at most G/(1 − 10⁻⁶), under 10⁻⁸ here (P/C
// is at most 95), and a free point by at most G/min(β_i, 1 − β_i), a
// bound that the free points, far from the box's ends, meet by a wide
// margin (the worst violation found is 1.4·10⁻⁸).
func TestIPMKKT(t *testing.T) {
	for _, p := range append(ipmProblems(t), edgeProblems(t)...) {
		sol, err := IPM(p.x, p.y, IPMConfig{C: p.c})
		if err != nil {
			t.Errorf("%s: %v", p.name, err)
			continue
		}
		const near, eps = 1e-6, 1e-6
		free, worst := 0, 0.0
		for i, a := range sol.Alpha {
			m := p.y[i] * (dotp(sol.W, p.x[i]) + sol.B)
			var v float64 // the violation
			switch {
			case a <= near*p.c:
				v = 1 - m
			case a >= (1-near)*p.c:
				v = m - 1
			default:
				free++
				v = math.Abs(m - 1)
			}
			worst = math.Max(worst, v)
			if v > eps {
				t.Errorf("%s: α_%d = %.6g (C = %g) with margin %.12g", p.name, i, a, p.c, m)
			}
		}
		t.Logf("%s: %d free, worst violation %.2g", p.name, free, worst)
	}
}

// TestIPMIterationsBounded: on 5,000 points of two overlapping Gaussians
// in the plane with C = 10⁴ (where SMO to a KKT tolerance of 1e-9 ran
// for over a minute), the interior point converges in under 50
// iterations (35 when written), and in as few at every C from 10⁻² up.
// Its time is logged, not tested: 17 ms without -race on the machine it
// was written on (2 shared cores).
func TestIPMIterationsBounded(t *testing.T) {
	for _, c := range []float64{1e4, 1e2, 1, 1e-2} {
		p := gaussProblem(t, 5000, 2, c)
		began := time.Now()
		sol, err := IPM(p.x, p.y, IPMConfig{C: c})
		took := time.Since(began)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		checkSolution(t, p, sol, DefaultIPMTol)
		if sol.Iter >= 50 {
			t.Errorf("%s: %d iterations", p.name, sol.Iter)
		}
		t.Logf("%s: %d iterations in %v, relative gap %.2g", p.name, sol.Iter, took, sol.Gap)
	}
}

// TestIPMScaleOfC: the box is scaled to [0, 1] before the method starts,
// so C at the ends of the range the lab allows — the least positive
// number, and 10⁶ — converges too, in as few iterations, with P = D.
func TestIPMScaleOfC(t *testing.T) {
	for _, c := range []float64{5e-324, 1e-300, 1e-6, 1e6} {
		for _, p := range []ipmProblem{gaussProblem(t, 200, 2, c), separableProblem(t, 200, c)} {
			sol, err := IPM(p.x, p.y, IPMConfig{C: c})
			if err != nil {
				t.Errorf("%s: %v", p.name, err)
				continue
			}
			if sol.Iter >= 50 || !(sol.Primal > 0) || math.Abs(sol.Gap) > DefaultIPMTol {
				t.Errorf("%s: %d iterations, P = %v, D = %v, gap %v", p.name, sol.Iter, sol.Primal, sol.Dual, sol.Gap)
			}
		}
	}
}

// TestIPMErrors: bad input is a ParamError naming what is wrong, never a
// panic, and a run that cannot reach its tolerance in MaxIter iterations
// is an ErrDiverged error.
func TestIPMErrors(t *testing.T) {
	x := [][]float64{{0, 1}, {1, 0}, {2, 2}, {-1, 0.5}}
	y := []float64{1, -1, 1, -1}
	nan := [][]float64{{0, 1}, {1, math.NaN()}, {2, 2}, {-1, 0.5}}
	inf := [][]float64{{0, 1}, {1, 0}, {math.Inf(-1), 2}, {-1, 0.5}}
	ragged := [][]float64{{0, 1}, {1}, {2, 2}, {-1, 0.5}}
	tests := []struct {
		name string
		x    [][]float64
		y    []float64
		cfg  IPMConfig
		want string
	}{
		{"one class", x, []float64{1, 1, 1, 1}, IPMConfig{C: 1}, "labels"},
		{"label 0", x, []float64{1, 0, 1, -1}, IPMConfig{C: 1}, "labels"},
		{"NaN", nan, y, IPMConfig{C: 1}, "data"},
		{"-Inf", inf, y, IPMConfig{C: 1}, "data"},
		{"ragged", ragged, y, IPMConfig{C: 1}, "data"},
		{"no features", [][]float64{{}, {}}, []float64{1, -1}, IPMConfig{C: 1}, "data"},
		{"labels short", x, y[:3], IPMConfig{C: 1}, "data"},
		{"one point", x[:1], y[:1], IPMConfig{C: 1}, "data"},
		{"C = 0", x, y, IPMConfig{C: 0}, "C"},
		{"C < 0", x, y, IPMConfig{C: -1}, "C"},
		{"C NaN", x, y, IPMConfig{C: math.NaN()}, "C"},
		{"C +Inf", x, y, IPMConfig{C: math.Inf(1)}, "C"},
		{"tol 1", x, y, IPMConfig{C: 1, Tol: 1}, "tol"},
		{"tol < 0", x, y, IPMConfig{C: 1, Tol: -1e-3}, "tol"},
		{"max_iter < 0", x, y, IPMConfig{C: 1, MaxIter: -1}, "max_iter"},
	}
	for _, tt := range tests {
		sol, err := IPM(tt.x, tt.y, tt.cfg)
		if sol != nil || !algo.IsParamError(err, tt.want) {
			t.Errorf("%s: got %v, %v; want a ParamError naming %s", tt.name, sol, err, tt.want)
		}
	}
	p := gaussProblem(t, 200, 2, 1)
	if _, err := IPM(p.x, p.y, IPMConfig{C: 1, MaxIter: 3}); !errors.Is(err, algo.ErrDiverged) {
		t.Errorf("3 iterations: got %v, want ErrDiverged", err)
	}
}

// BenchmarkIPM solves 5,000 points of two overlapping Gaussians in the
// plane to a relative gap of 1e-10, at C = 1 and at C = 10⁴.
func BenchmarkIPM(b *testing.B) {
	for _, c := range []float64{1, 1e4} {
		b.Run(fmt.Sprintf("C=%g", c), func(b *testing.B) {
			p := gaussProblem(b, 5000, 2, c)
			defer algotest.CPUTime(b)()
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				sol, err := IPM(p.x, p.y, IPMConfig{C: c})
				if err != nil {
					b.Fatal(err)
				}
				iters = sol.Iter
			}
			b.ReportMetric(float64(iters), "iterations")
		})
	}
}
