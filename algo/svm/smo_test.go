package svm

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/kernel"
)

// solve runs SMO on the Gram matrix to convergence.
func solve(t testing.TB, k kernel.Kernel, x [][]float64, y []float64, c, tol float64) *SMO {
	t.Helper()
	s, err := New(kernel.Gram(k, x), y, Config{C: c, Tol: tol})
	if err != nil {
		t.Fatal(err)
	}
	return run(t, s)
}

// weights returns w = Σ α_i y_i x_i (linear kernel).
func weights(s *SMO, x [][]float64) []float64 {
	w := make([]float64, len(x[0]))
	for i, a := range s.Alpha() {
		for j, v := range x[i] {
			w[j] += a * s.Labels()[i] * v
		}
	}
	return w
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestWorkedExamples checks the hard-margin solutions of the catalogues:
// seed-003 catalogue S2 cases 1 and 2 (with the two far points that must
// get α = 0), the OR data of seed 001 (w = (2, 2), b = −1, α = (4, 2, 2, 0)
// for the SVM with an unregularised bias), and the degenerate set where all
// four points lie on the margin (w = (2/3, 1/3), b = −1, α not unique).
func TestWorkedExamples(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name  string
		x     [][]float64
		y     []float64
		alpha []float64 // nil: not unique
		w     []float64
		b     float64
	}{
		{"case 1", [][]float64{{1, 0}, {-1, 0}}, []float64{1, -1}, []float64{0.5, 0.5}, []float64{1, 0}, 0},
		{"case 2", [][]float64{{0, 0}, {2, 2}}, []float64{-1, 1}, []float64{0.25, 0.25}, []float64{0.5, 0.5}, -1},
		{"case 2 + far points", [][]float64{{0, 0}, {2, 2}, {3, 3}, {-1, -1}}, []float64{-1, 1, 1, -1},
			[]float64{0.25, 0.25, 0, 0}, []float64{0.5, 0.5}, -1},
		{"OR", [][]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}, []float64{-1, 1, 1, 1}, []float64{4, 2, 2, 0}, []float64{2, 2}, -1},
		{"degenerate", [][]float64{{0, 0}, {2, 2}, {3, 0}, {-1, 2}}, []float64{-1, 1, 1, -1}, nil, []float64{2.0 / 3, 1.0 / 3}, -1},
	}
	for _, tt := range tests {
		s := solve(t, kernel.Linear{}, tt.x, tt.y, inf, 1e-12)
		w := weights(s, tt.x)
		b := s.Bias()
		for j := range w {
			if !near(w[j], tt.w[j], 1e-9) {
				t.Errorf("%s: w = %v, want %v", tt.name, w, tt.w)
			}
		}
		if !near(b, tt.b, 1e-9) {
			t.Errorf("%s: b = %v, want %v", tt.name, b, tt.b)
		}
		for i, a := range tt.alpha {
			if !near(s.Alpha()[i], a, 1e-9) {
				t.Errorf("%s: α = %v, want %v", tt.name, s.Alpha(), tt.alpha)
				break
			}
		}
		// Primal ½‖w‖² equals the dual ½Σα (strong duality) and the
		// geometric margin is 1/√Σα.
		ww := w[0]*w[0] + w[1]*w[1]
		if !near(0.5*ww, s.Dual(), 1e-9) || !near(ww, s.SumAlpha(), 1e-9) {
			t.Errorf("%s: ½‖w‖² = %v, D = %v, Σα = %v", tt.name, 0.5*ww, s.Dual(), s.SumAlpha())
		}
		minMargin := math.Inf(1)
		for i := range tt.x {
			minMargin = math.Min(minMargin, s.Margin(i, b))
		}
		if !near(minMargin, 1, 1e-9) {
			t.Errorf("%s: min y_iF_i = %v, want 1", tt.name, minMargin)
		}
	}
}

// checkKKT asserts the soft-margin KKT conditions (seed-003 catalogue S3;
// seed 001 [A10]) within eps: α = 0 ⇒ yF ≥ 1, 0 < α < C ⇒ yF = 1,
// α = C ⇒ yF ≤ 1, and Σ α y = 0.
func checkKKT(t *testing.T, label string, s *SMO, eps float64) {
	t.Helper()
	b := s.Bias()
	sum := 0.0
	for i, a := range s.Alpha() {
		m := s.Margin(i, b)
		sum += a * s.Labels()[i]
		switch {
		case a < 0 || a > s.C():
			t.Fatalf("%s: α_%d = %v outside [0, C]", label, i, a)
		case a == 0 && m < 1-eps:
			t.Errorf("%s: α_%d = 0 but yF = %v < 1", label, i, m)
		case a == s.C() && m > 1+eps:
			t.Errorf("%s: α_%d = C but yF = %v > 1", label, i, m)
		case a > 0 && a < s.C() && math.Abs(m-1) > eps:
			t.Errorf("%s: free α_%d = %v but yF = %v ≠ 1", label, i, a, m)
		}
	}
	if math.Abs(sum) > 1e-10*max(1, s.SumAlpha()) {
		t.Errorf("%s: Σαy = %v", label, sum)
	}
}

// TestKKTAndStrongDuality solves soft-margin problems on overlapping data
// with several kernels and checks the KKT conditions and that the duality
// gap P − D closes: weak duality P ≥ D all along, equality at the optimum.
func TestKKTAndStrongDuality(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	moons, _ := dataset.Moons(rng, 120, 0.2)
	gauss, _ := dataset.GaussianClasses(rng, 150, 5, 2)
	tests := []struct {
		name string
		data *dataset.Labelled
		k    kernel.Kernel
		c    float64
	}{
		{"moons rbf C=1", moons, kernel.RBF{Gamma: 2}, 1},
		{"moons rbf C=100", moons, kernel.RBF{Gamma: 2}, 100},
		{"moons poly C=10", moons, kernel.Poly{Degree: 3, Coef0: 1}, 10},
		{"gaussians linear C=0.5", gauss, kernel.Linear{}, 0.5},
		{"gaussians sum C=2", gauss, kernel.Sum{A: kernel.RBF{Gamma: 0.2}, B: kernel.Poly{Degree: 2, Coef0: 1}}, 2},
	}
	for _, tt := range tests {
		y, _ := tt.data.PlusMinus()
		s, err := New(kernel.Gram(tt.k, tt.data.X), y, Config{C: tt.c, Tol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		prev := s.Dual()
		for {
			err := s.Step()
			if errors.Is(err, algo.ErrConverged) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			// Each pair step solves its sub-problem exactly: D never falls.
			d := s.Dual()
			if d < prev-1e-9*math.Abs(prev) {
				t.Fatalf("%s: dual fell from %v to %v at step %d", tt.name, prev, d, s.Iter())
			}
			if s.Iter()%50 == 0 && s.Primal() < d-1e-9*math.Abs(d) {
				t.Fatalf("%s: weak duality broken: P = %v < D = %v", tt.name, s.Primal(), d)
			}
			prev = d
		}
		checkKKT(t, tt.name, s, 1e-7)
		p, d := s.Primal(), s.Dual()
		if gap := (p - d) / math.Abs(p); gap < -1e-12 || gap > 1e-6 {
			t.Errorf("%s: relative duality gap %v (P = %v, D = %v)", tt.name, gap, p, d)
		}
	}
}

// run steps s to convergence (failing the test after maxSteps).
func run(t testing.TB, s *SMO) *SMO {
	t.Helper()
	for range 1_000_000 {
		err := s.Step()
		if errors.Is(err, algo.ErrConverged) {
			return s
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("SMO did not converge; KKT violation %g", s.KKT())
	return nil
}

// TestKernelRowsAndShrinking: kernel rows computed on demand give the
// solution of the precomputed Gram matrix, to the rounding of the cached
// rows to single precision (D within 1e-5 relative at C = 100, where α is
// large); a cache of two rows gives the
// same iterates as one that holds them all, bit for bit, and so does a
// reserved cache, which holds KernelFootprint's rows from the start; and
// shrinking
// converges to the same optimum, the KKT conditions holding on every
// variable, shrunk or not (issue 14.2).
func TestKernelRowsAndShrinking(t *testing.T) {
	moons, _ := dataset.Moons(rand.New(rand.NewPCG(3, 4)), 1000, 0.2)
	y, _ := moons.PlusMinus()
	k := kernel.RBF{Gamma: 2}
	const c, tol = 100.0, 1e-6
	gram := run(t, mustSMO(New(kernel.Gram(k, moons.X), y, Config{C: c, Tol: tol})))
	all := run(t, mustSMO(NewKernel(moons.X, k, y, Config{C: c, Tol: tol})))
	two := run(t, mustSMO(NewKernel(moons.X, k, y, Config{C: c, Tol: tol, Cache: 1})))
	reserved := run(t, mustSMO(NewKernel(moons.X, k, y, Config{C: c, Tol: tol, Cache: 1 << 20, Reserve: true})))
	shrunk := mustSMO(NewKernel(moons.X, k, y, Config{C: c, Tol: tol, Shrink: true}))
	fewest := len(y)
	for shrunk.Step() == nil {
		fewest = min(fewest, shrunk.Active())
	}
	if all.Iter() != two.Iter() || !slices.Equal(all.Alpha(), two.Alpha()) {
		t.Errorf("a two-row cache took %d steps, a full one %d; α differ: %v", two.Iter(), all.Iter(), !slices.Equal(all.Alpha(), two.Alpha()))
	}
	if all.Iter() != reserved.Iter() || !slices.Equal(all.Alpha(), reserved.Alpha()) {
		t.Errorf("a reserved cache took %d steps, a full one %d; α differ: %v", reserved.Iter(), all.Iter(), !slices.Equal(all.Alpha(), reserved.Alpha()))
	}
	if r := reserved.rows.(*cachedRows); len(r.store) != r.max*len(y) || 4*len(r.store) > int(KernelFootprint(len(y), 2, 1<<20)) {
		t.Errorf("reserved cache: %d values for %d rows of %d; footprint %d bytes", len(r.store), r.max, len(y), KernelFootprint(len(y), 2, 1<<20))
	}
	if r := two.rows.(*cachedRows); r.max != 2 || r.misses <= all.rows.(*cachedRows).misses {
		t.Errorf("two-row cache: %d rows, %d computed (full cache %d)", r.max, r.misses, all.rows.(*cachedRows).misses)
	}
	for name, s := range map[string]*SMO{"on demand": all, "shrinking": shrunk} {
		checkKKT(t, name, s, 1e-5)
		if d := math.Abs(s.Dual() - gram.Dual()); d > 1e-5*math.Abs(gram.Dual()) {
			t.Errorf("%s: D = %v, with the Gram matrix %v", name, s.Dual(), gram.Dual())
		}
		if d := math.Abs(s.Dual() - (s.SumAlpha() - 0.5*s.WNormSq())); d > 1e-9*math.Abs(s.Dual()) {
			t.Errorf("%s: the running D = %v drifted from Σα − ½‖w‖² = %v", name, s.Dual(), s.SumAlpha()-0.5*s.WNormSq())
		}
	}
	if shrunk.Active() != len(y) || fewest > len(y)/2 {
		t.Errorf("shrinking: %d active at the end, %d at the fewest", shrunk.Active(), fewest)
	}
	t.Logf("%d steps on the Gram matrix, %d on demand (%d rows computed), %d shrinking (%d rows, %d of %d active at the fewest)",
		gram.Iter(), all.Iter(), all.rows.(*cachedRows).misses, shrunk.Iter(), shrunk.rows.(*cachedRows).misses, fewest, len(y))
}

func mustSMO(s *SMO, err error) *SMO {
	if err != nil {
		panic(err)
	}
	return s
}

// TestHardMarginIdentities checks ‖w‖² = Σα (so the margin is 1/√Σα) and
// P = D on separable data, with the linear kernel and with the RBF kernel
// (in its feature space, ‖w‖² = αᵀQα).
func TestHardMarginIdentities(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		data, _, err := dataset.Separable(rand.New(rand.NewPCG(seed, 7)), 80, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := data.PlusMinus()
		for _, k := range []kernel.Kernel{kernel.Linear{}, kernel.RBF{Gamma: 1}} {
			s := solve(t, k, data.X, y, math.Inf(1), 1e-10)
			ww, sa := s.WNormSq(), s.SumAlpha()
			if !near(ww, sa, 1e-7*sa) {
				t.Errorf("seed %d %s: ‖w‖² = %v, Σα = %v", seed, k, ww, sa)
			}
			if v := s.Violation(); v > 1e-8 {
				t.Errorf("seed %d %s: a constraint is violated by %v", seed, k, v)
			}
			checkKKT(t, k.String(), s, 1e-8)
			if _, ok := k.(kernel.Linear); ok {
				w := weights(s, data.X)
				if !near(w[0]*w[0]+w[1]*w[1], sa, 1e-7*sa) {
					t.Errorf("seed %d: explicit ‖w‖² %v vs Σα %v", seed, w[0]*w[0]+w[1]*w[1], sa)
				}
			}
		}
	}
}

// TestHardMarginNonSeparableDiverges: XOR is not linearly separable, so the
// hard-margin dual is unbounded and the run must say so.
func TestHardMarginNonSeparableDiverges(t *testing.T) {
	x := [][]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}
	y := []float64{-1, 1, 1, -1}
	s, err := New(kernel.Gram(kernel.Linear{}, x), y, Config{C: math.Inf(1), Tol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	for range 100000 {
		if err = s.Step(); err != nil {
			break
		}
	}
	if !errors.Is(err, algo.ErrDiverged) {
		t.Fatalf("got %v, want a divergence", err)
	}
	// With the degree-2 polynomial kernel XOR is separable (seed 001 [A11]).
	solve(t, kernel.Poly{Degree: 2, Coef0: 1}, x, y, math.Inf(1), 1e-10)
}

func TestBadParams(t *testing.T) {
	g := kernel.Gram(kernel.Linear{}, [][]float64{{0}, {1}})
	tests := []struct {
		gram []float64
		y    []float64
		cfg  Config
		name string
	}{
		{g, []float64{1, -1}, Config{C: 0, Tol: 1e-3}, "C"},
		{g, []float64{1, -1}, Config{C: math.NaN(), Tol: 1e-3}, "C"},
		{g, []float64{1, -1}, Config{C: 1, Tol: 0}, "tol"},
		{g, []float64{1, 1}, Config{C: 1, Tol: 1e-3}, "labels"},
		{g, []float64{1, 0}, Config{C: 1, Tol: 1e-3}, "labels"},
		{g[:3], []float64{1, -1}, Config{C: 1, Tol: 1e-3}, "gram"},
		{nil, []float64{1}, Config{C: 1, Tol: 1e-3}, "data"},
	}
	for _, tt := range tests {
		_, err := New(tt.gram, tt.y, tt.cfg)
		var pe *algo.ParamError
		if !errors.As(err, &pe) || pe.Name != tt.name {
			t.Errorf("%+v: got %v, want a ParamError for %s", tt.cfg, err, tt.name)
		}
	}
}

// benchData is the benchmark problem: 569 points in 30 dimensions, two
// overlapping Gaussian classes (the size of the Wisconsin breast-cancer
// data), RBF kernel with LIBSVM's default γ = 1/d, C = 1.
func benchData(b *testing.B) ([][]float64, []float64) {
	data, err := dataset.GaussianClasses(rand.New(rand.NewPCG(569, 30)), 569, 30, 2.5)
	if err != nil {
		b.Fatal(err)
	}
	y, _ := data.PlusMinus()
	return data.X, y
}

// BenchmarkSMO569x30 solves the benchmark problem from scratch to a 1e-3
// KKT tolerance: from the kernel matrix computed first (gram), and with
// kernel rows computed as the steps ask for them and shrinking (rows;
// what the svm sim runs). Target: no slower than LIBSVM (bench/).
func BenchmarkSMO569x30(b *testing.B) {
	x, y := benchData(b)
	benchSolve(b, x, y, kernel.RBF{Gamma: 1.0 / 30})
}

// BenchmarkSMOMoons5000 is the same on 5,000 two-moons points (γ = 2):
// the kernel matrix would be 200 MB.
func BenchmarkSMOMoons5000(b *testing.B) {
	moons, err := dataset.Moons(rand.New(rand.NewPCG(5000, 2)), 5000, 0.15)
	if err != nil {
		b.Fatal(err)
	}
	y, _ := moons.PlusMinus()
	benchSolve(b, moons.X, y, kernel.RBF{Gamma: 2})
}

func benchSolve(b *testing.B, x [][]float64, y []float64, k kernel.Kernel) {
	for _, rows := range []bool{false, true} {
		name := "gram"
		if rows {
			name = "rows"
		}
		b.Run(name, func(b *testing.B) {
			defer algotest.CPUTime(b)()
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				var s *SMO
				if rows {
					s = mustSMO(NewKernel(x, k, y, Config{C: 1, Tol: 1e-3, Shrink: true}))
				} else {
					s = mustSMO(New(kernel.Gram(k, x), y, Config{C: 1, Tol: 1e-3}))
				}
				iters = run(b, s).Iter()
			}
			b.ReportMetric(float64(iters), "pairs")
		})
	}
}

// BenchmarkSMOStep is one pair update on the benchmark problem (0 allocs).
func BenchmarkSMOStep(b *testing.B) {
	x, y := benchData(b)
	gram := kernel.Gram(kernel.RBF{Gamma: 1.0 / 30}, x)
	b.ReportAllocs()
	s, _ := New(gram, y, Config{C: 1, Tol: 1e-12})
	for b.Loop() {
		if s.Step() != nil {
			s, _ = New(gram, y, Config{C: 1, Tol: 1e-12})
		}
	}
}

// BenchmarkGram569x30 is the kernel matrix alone.
func BenchmarkGram569x30(b *testing.B) {
	x, _ := benchData(b)
	b.ReportAllocs()
	for b.Loop() {
		kernel.Gram(kernel.RBF{Gamma: 1.0 / 30}, x)
	}
}

// TestCachedRowsFloat32: the cache holds the kernel matrix rounded to
// float32, as cachedRows says — every entry within 2⁻²⁴ ≈ 6e-8 relative of
// the float64 value computed from the same dot products, or within half
// the least float32, 2⁻¹⁵⁰ ≈ 7e-46, where that value is below float32's
// normal range (an RBF of large γ) — while the diagonal is float64, within
// 2ε of kernel.Eval.
func TestCachedRowsFloat32(t *testing.T) {
	moons, _ := dataset.Moons(rand.New(rand.NewPCG(3, 4)), 200, 0.2)
	for _, k := range []kernel.Kernel{kernel.Linear{}, kernel.RBF{Gamma: 2}, kernel.RBF{Gamma: 60}, kernel.Poly{Degree: 3, Coef0: 1}} {
		c := newCachedRows(moons.X, k, 1<<20, false)
		tiny := 0
		for i := range moons.X {
			_, row := c.row(i) // computed afresh: c.dots holds its dot products
			for j, v := range row {
				want := k.FromDot(c.dots[j], c.nrm[i], c.nrm[j])
				e := math.Abs(float64(v) - want)
				if math.Abs(want) < 0x1p-126 {
					tiny++
					if e > 0x1p-150 {
						t.Fatalf("%s: K[%d][%d] = %g cached as %g", k, i, j, want, v)
					}
				} else if e > 0x1p-24*math.Abs(want) {
					t.Fatalf("%s: K[%d][%d] = %.17g cached as %.9g (relative %.2g)", k, i, j, want, v, e/math.Abs(want))
				}
			}
		}
		for j, d := range c.diag() {
			if want := kernel.Eval(k, moons.X[j], moons.X[j]); math.Abs(d-want) > 2*0x1p-52*math.Abs(want) {
				t.Errorf("%s: diagonal %d = %.17g, kernel.Eval %.17g", k, j, d, want)
			}
		}
		t.Logf("%s: %d entries below float32's normal range", k, tiny)
	}
}
