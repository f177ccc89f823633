package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
)

func randPoints(rng *rand.Rand, n, d int, scale float64) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = scale * rng.NormFloat64()
		}
	}
	return x
}

// TestFeatureMapIdentities checks the kernel trick on explicit maps: seed
// 003 L207–210 (⟨x, z⟩² = ⟨Φ, Φ⟩ for Φ = (x₁², x₂², √2x₁x₂), here with the
// bias coordinate), the 4-D map of L214 and seed 001 Definition 7.2
// ((⟨x, z⟩ + 1)² = ⟨φ, φ⟩ for φ = (vec(xxᵀ), √2x, 1)).
func TestFeatureMapIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		x := []float64{rng.NormFloat64(), rng.NormFloat64()}
		z := []float64{rng.NormFloat64(), rng.NormFloat64()}
		want := Eval(Poly{Degree: 2}, x, z) + 1
		if got := dot(QuadFeatures(x), QuadFeatures(z)); math.Abs(got-want) > 1e-12*math.Max(1, want) {
			t.Fatalf("⟨Φ(x),Φ(z)⟩ = %v, (⟨x,z⟩)²+1 = %v", got, want)
		}
		four := func(v []float64) []float64 { return []float64{v[0] * v[0], v[1] * v[1], v[0] * v[1], v[1] * v[0]} }
		if got := dot(four(x), four(z)); math.Abs(got-(want-1)) > 1e-12*math.Max(1, want) {
			t.Fatalf("4-D map: %v vs %v", got, want-1)
		}
		phi := func(v []float64) []float64 {
			return []float64{v[0] * v[0], v[0] * v[1], v[1] * v[0], v[1] * v[1], math.Sqrt2 * v[0], math.Sqrt2 * v[1], 1}
		}
		if got, w := dot(phi(x), phi(z)), Eval(Poly{Degree: 2, Coef0: 1}, x, z); math.Abs(got-w) > 1e-12*math.Max(1, w) {
			t.Fatalf("(⟨x,z⟩+1)²: %v vs %v", got, w)
		}
	}
	// The RBF convention: k = exp(−γ‖x − z‖²).
	if got := Eval(RBF{Gamma: 0.5}, []float64{1, 2}, []float64{2, 4}); math.Abs(got-math.Exp(-2.5)) > 1e-15 {
		t.Errorf("rbf(γ=0.5) at distance² 5 = %v, want e^−2.5", got)
	}
}

// TestGramMatchesEval: the Gram and cross matrices equal the pairwise
// kernel values, and the Gram matrix is exactly symmetric.
func TestGramMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randPoints(rng, 37, 7, 1)
	z := randPoints(rng, 5, 7, 1)
	for _, k := range []Kernel{Linear{}, Poly{3, 1}, RBF{0.3}, Sum{RBF{1}, Poly{2, 0.5}}, Product{RBF{1}, Linear{}}, Laplace{0.7}} {
		g := Gram(k, x)
		n := len(x)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if g[i*n+j] != g[j*n+i] {
					t.Fatalf("%s: not symmetric at %d,%d", k, i, j)
				}
				if w := Eval(k, x[i], x[j]); math.Abs(g[i*n+j]-w) > 1e-12*math.Max(1, math.Abs(w)) {
					t.Fatalf("%s: K[%d,%d] = %v, k = %v", k, i, j, g[i*n+j], w)
				}
			}
		}
		c := Cross(k, z, x)
		for a := range z {
			for i := range x {
				if w := Eval(k, z[a], x[i]); math.Abs(c[a*n+i]-w) > 1e-12*math.Max(1, math.Abs(w)) {
					t.Fatalf("%s: cross[%d,%d] = %v, k = %v", k, a, i, c[a*n+i], w)
				}
			}
		}
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		spec Spec
		name string
	}{
		{Spec{Name: "cosine"}, "kernel"},
		{Spec{Name: "poly", Degree: 0}, "degree"},
		{Spec{Name: "poly", Degree: 11}, "degree"},
		{Spec{Name: "poly", Degree: 2, Coef0: -1}, "coef0"},
		{Spec{Name: "rbf", Gamma: 0}, "gamma"},
		{Spec{Name: "sum", Gamma: math.Inf(1), Degree: 2}, "gamma"},
		{Spec{Name: "product", Gamma: 1, Degree: 2, Coef0: math.NaN()}, "coef0"},
	}
	for _, tt := range tests {
		_, err := New(tt.spec)
		var pe *algo.ParamError
		if !errors.As(err, &pe) || pe.Name != tt.name {
			t.Errorf("%+v: %v, want a ParamError for %s", tt.spec, err, tt.name)
		}
	}
	for _, name := range kinds {
		if _, err := New(Spec{Name: name, Degree: 2, Coef0: 1, Gamma: 1}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestPSD: every Gram matrix of a kernel (and of sums, products, positive
// scalings, exponentials and positive polynomials of kernels) is positive
// semidefinite within rounding, satisfies Cauchy–Schwarz, while ‖x − z‖,
// −k and the sigmoid "kernel" fail (seed 003 L148–200, L408–416; seed 000
// §4.5; seed-003 catalogue K4).
func TestPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randPoints(rng, 40, 3, 1)
	valid := []Kernel{
		Linear{}, Poly{2, 0}, Poly{3, 1}, RBF{0.5}, RBF{20}, Laplace{1},
		Sum{RBF{1}, Poly{2, 1}}, Product{RBF{1}, Poly{2, 1}},
		Scaled{3, RBF{1}}, Exp{Scaled{0.3, Linear{}}}, PolyOf{[]float64{1, 2, 0.5}, RBF{1}},
	}
	for _, k := range valid {
		c, err := NewPSDCheck(k, x, 1)
		if err != nil {
			t.Fatal(err)
		}
		for c.Step() == nil {
			if !c.PSD() {
				lo, hi := c.MinMax()
				t.Fatalf("%s: not PSD at n = %d: λ ∈ [%g, %g]", k, c.N(), lo, hi)
			}
		}
		if cs := c.CauchySchwarz(); cs > 1e-12 {
			t.Errorf("%s: Cauchy–Schwarz exceeded by %g", k, cs)
		}
	}
	invalid := []Kernel{Distance{}, Scaled{-1, RBF{1}}, Sigmoid{2, -1}}
	for _, k := range invalid {
		c, _ := NewPSDCheck(k, x, len(x))
		if c.PSD() {
			lo, hi := c.MinMax()
			t.Errorf("%s passed the PSD check: λ ∈ [%g, %g]", k, lo, hi)
		}
	}
	// ‖x − z‖ fails as soon as there are two distinct points: its Gram
	// matrix has zero trace.
	c, _ := NewPSDCheck(Distance{}, x, 2)
	if lo, _ := c.MinMax(); !(lo < 0) {
		t.Errorf("distance Gram of two points: λ_min = %v, want < 0", lo)
	}
	if _, err := NewPSDCheck(Linear{}, x, 0); err == nil {
		t.Error("start 0 accepted")
	}
}

// TestGaussianGramFullRank: for distinct points the Gaussian Gram matrix is
// positive definite (seed 003 L403): ten points 0.5 apart, σ = 0.5.
func TestGaussianGramFullRank(t *testing.T) {
	x := make([][]float64, 10)
	for i := range x {
		x[i] = []float64{0.5 * float64(i)}
	}
	c, _ := NewPSDCheck(RBF{Gamma: 1 / (2 * 0.25)}, x, len(x))
	if lo, _ := c.MinMax(); !(lo > 1e-6) {
		t.Errorf("λ_min = %v, want > 0", lo)
	}
}

// TestKernelPerceptronEqualsPrimal is the oracle of the seed-003 catalogue
// (K2, Part G.1): on the ellipse data of Fig 2.1 the dual perceptron with
// K(x, z) = ⟨x, z⟩² + 1 makes exactly the mistakes of the primal perceptron
// on Φ(x) = (1, x₁², x₂², √2x₁x₂), α counts them, and w = Σ α_i y_i Φ(x_i).
// The same holds for the linear kernel + 1 and Φ(x) = (1, x), in both
// presentation orders.
func TestKernelPerceptronEqualsPrimal(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		data, err := dataset.Ellipse(rand.New(rand.NewPCG(seed, 1)), 150, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := data.PlusMinus()
		cases := []struct {
			name string
			k    Kernel
			phi  func([]float64) []float64
		}{
			{"quadratic", Poly{Degree: 2}, QuadFeatures},
			{"linear", Linear{}, func(x []float64) []float64 { return []float64{1, x[0], x[1]} }},
		}
		for _, c := range cases {
			for _, order := range []Order{Cyclic, Shuffled} {
				phi := make([][]float64, len(data.X))
				for i, x := range data.X {
					phi[i] = c.phi(x)
				}
				dual, err := NewPerceptron(Gram(c.k, data.X), y,
					PerceptronConfig{Bias: true, Order: order, MaxEpochs: 50}, rand.New(rand.NewPCG(seed, 9)))
				if err != nil {
					t.Fatal(err)
				}
				primal, _ := NewPrimal(phi, y)
				var stop error
				for stop == nil {
					if stop = dual.Step(); stop == nil {
						primal.Present(dual.Last())
					}
				}
				dh, ph := dual.History(), primal.History()
				if len(dh) != len(ph) {
					t.Fatalf("seed %d %s %s: %d dual mistakes, %d primal", seed, c.name, order, len(dh), len(ph))
				}
				for i := range dh {
					if dh[i] != ph[i] {
						t.Fatalf("seed %d %s %s: mistake %d on %d (dual) vs %d (primal)", seed, c.name, order, i, dh[i], ph[i])
					}
				}
				// w = Σ α_i y_i Φ(x_i), with α the mistake counts.
				w := make([]float64, len(phi[0]))
				total := 0
				for i, a := range dual.Alpha() {
					total += a
					for j, v := range phi[i] {
						w[j] += float64(a) * y[i] * v
					}
				}
				for j := range w {
					if math.Abs(w[j]-primal.W()[j]) > 1e-9 {
						t.Fatalf("seed %d %s: w = %v, Σαyφ = %v", seed, c.name, primal.W(), w)
					}
				}
				if total != dual.Mistakes() {
					t.Errorf("Σα = %d, mistakes %d", total, dual.Mistakes())
				}
				// The quadratic kernel separates the ellipse (convergence);
				// the linear one cannot and hits the epoch cap.
				switch {
				case c.name == "quadratic" && !errors.Is(stop, algo.ErrConverged):
					t.Errorf("seed %d quadratic %s: %v", seed, order, stop)
				case c.name == "linear" && !errors.Is(stop, ErrMaxEpochs):
					t.Errorf("seed %d linear %s: %v, want the epoch cap", seed, order, stop)
				}
			}
		}
	}
}

// TestPerceptronConvergedSeparates: after convergence every training point
// is classified correctly by the dual decision function.
func TestPerceptronConvergedSeparates(t *testing.T) {
	data, _ := dataset.Ellipse(rand.New(rand.NewPCG(11, 1)), 200, 0.1)
	y, _ := data.PlusMinus()
	k := Poly{Degree: 2}
	p, err := NewPerceptron(Gram(k, data.X), y, PerceptronConfig{Bias: true, Order: Cyclic}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for p.Step() == nil {
	}
	kv := make([]float64, len(data.X))
	for j, x := range data.X {
		for i, xi := range data.X {
			kv[i] = Eval(k, xi, x)
		}
		if y[j]*p.Decision(kv) <= 0 {
			t.Fatalf("point %d misclassified after convergence", j)
		}
	}
	if _, err := NewPerceptron(nil, []float64{1}, PerceptronConfig{Order: Cyclic}, nil); err == nil {
		t.Error("wrong-sized Gram accepted")
	}
	if _, err := NewPerceptron([]float64{1}, []float64{1}, PerceptronConfig{Order: Shuffled}, nil); err == nil {
		t.Error("shuffled without rng accepted")
	}
}
