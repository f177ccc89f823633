package adversarial

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/nn"
)

// affine reads the weights of a model with no hidden layer: W[i·out + k]
// (input i, output k) and the biases.
func affine(m *nn.MLP) (w, b []float64, in, out int) {
	in, out = m.Shape()
	return m.Layers[0].W.Data, m.Layers[0].B.Data, in, out
}

// dualNorm is ‖v‖₂ for L2 and ‖v‖₁ for L∞ (DeepFool's q).
func dualNorm(v []float64, norm Norm) float64 {
	s := 0.0
	for _, x := range v {
		if norm == L2 {
			s += x * x
		} else {
			s += math.Abs(x)
		}
	}
	if norm == L2 {
		return math.Sqrt(s)
	}
	return s
}

// randRows draws n rows of d standard normals.
func randRows(n, d int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// sigmoidRows are randRows squashed into (0, 1) by the logistic function.
func sigmoidRows(n, d int, seed uint64) []float64 {
	x := randRows(n, d, seed)
	for i := range x {
		x[i] = 1 / (1 + math.Exp(-x[i]))
	}
	return x
}

// nearHalfRows are randRows scaled to 0.5 + 0.1z: inside (0, 1), away
// from its ends.
func nearHalfRows(n, d int, seed uint64) []float64 {
	x := randRows(n, d, seed)
	for i := range x {
		x[i] = 0.5 + 0.1*x[i]
	}
	return x
}

// tanhProblem is the fixed attack problem of the tanh-network tests:
// eight rows near ½ of a 8-16-4 network, their predicted labels, and the
// targets shift classes on.
func tanhProblem(t *testing.T, shift int) (m *nn.MLP, x0 []float64, labels, targets []int) {
	m = mlp(t, 8, []int{16}, 4, 6)
	x0 = nearHalfRows(8, 8, 8)
	labels = predicted(m, x0)
	targets = make([]int, len(labels))
	for r := range targets {
		targets[r] = (labels[r] + shift) % 4
	}
	return m, x0, labels, targets
}

// predicted is the model's class of each row.
func predicted(m nn.Model, x []float64) []int {
	_, k := m.Shape()
	z := logits(m, x)
	c := make([]int, len(z)/k)
	for r := range c {
		c[r] = nn.Predict(z[r*k : (r+1)*k])
	}
	return c
}

// TestDeepFoolAffineOneStep checks DeepFool against the closed form of
// an affine classifier, where its linearisation is exact: one step lands
// at x₀ + (1+η)r* with r* the least perturbation onto the nearest
// boundary, and the label has changed. Binary (one logit f = wᵀx + b):
// r* = −f w/‖w‖₂² (L2), −f/‖w‖₁·sgn w (L∞). Multiclass: the nearest
// boundary is argmin_k |f_k − f_y|/‖w_k − w_y‖_q (q = 2 for L2, the dual
// q = 1 for L∞), and δ is that distance times (1+η) along w_k − w_y
// (L2) or its sign (L∞). Several rows go at once, each its own problem.
func TestDeepFoolAffineOneStep(t *testing.T) {
	const eta = DefaultOvershoot
	for _, tt := range []struct {
		name    string
		in, out int
		seed    uint64
	}{{"binary", 5, 1, 3}, {"four classes", 6, 4, 4}, {"ten classes", 16, 10, 5}} {
		for _, norm := range Norms {
			m := mlp(t, tt.in, nil, tt.out, tt.seed)
			W, _, in, out := affine(m)
			const n = 6
			x0 := randRows(n, in, tt.seed)
			labels := predicted(m, x0)
			a, err := New(m, nn.CrossEntropy, x0, labels, nil, Config{Method: DeepFool, Norm: norm, Overshoot: eta})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Step(); !errors.Is(err, algo.ErrConverged) {
				t.Fatalf("%s %s: one step gave %v, want converged", tt.name, norm, err)
			}
			z := logits(m, x0)
			for r := range n {
				// The oracle: the nearest boundary of the affine classes.
				y, best, dir := labels[r], math.Inf(1), make([]float64, in)
				for k := range classes(out) {
					if k == y {
						continue
					}
					wk := make([]float64, in)
					for i := range in {
						if out == 1 {
							wk[i] = float64(k-y) * W[i] // f_1 − f_0 = wᵀx + b
						} else {
							wk[i] = W[i*out+k] - W[i*out+y]
						}
					}
					f := logit(z[r*out:(r+1)*out], k) - logit(z[r*out:(r+1)*out], y)
					if q := dualNorm(wk, norm); math.Abs(f)/q < best {
						best = math.Abs(f) / q
						for i, v := range wk {
							if norm == L2 {
								dir[i] = v / q
							} else {
								dir[i] = sgn(v)
							}
						}
					}
				}
				x := a.X()[r*in : (r+1)*in]
				for i := range in {
					algotest.Near(t, "δ_i", x[i]-x0[r*in+i], (1+eta)*best*dir[i], 1e-12*(1+best))
				}
				algotest.Near(t, "‖δ‖", a.Dist(r), (1+eta)*best, 1e-12*(1+best))
				_, d, ok := a.Best(r)
				if !ok || d != a.Dist(r) {
					t.Errorf("%s %s row %d: best %g %v, dist %g", tt.name, norm, r, d, ok, a.Dist(r))
				}
			}
			for r, c := range predicted(m, a.X()) {
				if c == labels[r] {
					t.Errorf("%s %s row %d: still class %d after the step", tt.name, norm, r, c)
				}
			}
			if err := a.Step(); !errors.Is(err, algo.ErrConverged) || a.Steps() != 1 {
				t.Errorf("a step after the end: %v, %d steps", err, a.Steps())
			}
		}
	}
}

// TestDeepFoolMLP runs DeepFool on a tanh network, untargeted and
// targeted, in both norms and inside [0, 1]: every row ends fooled (as its
// target, when targeted) within the steps, inside the range, and Best is
// the final iterate.
func TestDeepFoolMLP(t *testing.T) {
	m, x0, labels, targets := tanhProblem(t, 1)
	for _, norm := range Norms {
		for _, tg := range [][]int{nil, targets} {
			a, err := New(m, nn.CrossEntropy, x0, labels, tg, Config{Method: DeepFool, Norm: norm, Overshoot: DefaultOvershoot, Lo: 0, Hi: 1})
			if err != nil {
				t.Fatal(err)
			}
			for a.Steps() < 50 && !a.Done() {
				if err := a.Step(); err != nil && !errors.Is(err, algo.ErrConverged) {
					t.Fatal(err)
				}
			}
			for r, c := range predicted(m, a.X()) {
				if (tg == nil && c == labels[r]) || (tg != nil && c != tg[r]) {
					t.Errorf("%s targets %v: row %d is class %d (label %d) after %d steps", norm, tg != nil, r, c, labels[r], a.Steps())
				}
				if _, d, ok := a.Best(r); !ok || d != a.Dist(r) {
					t.Errorf("row %d: best %g %v, dist %g", r, d, ok, a.Dist(r))
				}
			}
			for _, v := range a.X() {
				if v < 0 || v > 1 {
					t.Fatalf("pixel %g outside [0, 1]", v)
				}
			}
			t.Logf("%s targeted %v: %d steps", norm, tg != nil, a.Steps())
		}
	}
}

// TestMinimalAttacksValidation checks the new configurations' bounds.
func TestMinimalAttacksValidation(t *testing.T) {
	m := mlp(t, 2, nil, 1, 1)
	x0 := []float64{0.5, 0.5}
	cw := Config{Method: CW, Norm: L2, Step: 0.01, C0: 1, Rounds: 3, Inner: 10}
	for _, tt := range []struct {
		cfg  func(c Config) Config
		name string
	}{
		{func(c Config) Config { c.Norm = LInf; return c }, "norm"},
		{func(c Config) Config { c.Step = 0; return c }, "step"},
		{func(c Config) Config { c.C0 = 0; return c }, "c0"},
		{func(c Config) Config { c.Kappa = -1; return c }, "kappa"},
		{func(c Config) Config { c.Rounds = 0; return c }, "rounds"},
		{func(c Config) Config { c.Inner = 0; return c }, "inner"},
		{func(c Config) Config { c.Method, c.Overshoot = DeepFool, -0.1; return c }, "overshoot"},
		{func(c Config) Config { c.Method, c.Overshoot = DeepFool, math.NaN(); return c }, "overshoot"},
	} {
		_, err := New(m, nn.Logistic, x0, []int{1}, nil, tt.cfg(cw))
		algotest.WantParam(t, err, tt.name)
	}
	// No ball: ε is not theirs to check.
	for _, c := range []Config{cw, {Method: DeepFool, Norm: LInf, Lo: 0, Hi: 1}} {
		if _, err := New(m, nn.Logistic, x0, []int{1}, nil, c); err != nil {
			t.Errorf("%s: %v", c.Method, err)
		}
	}
}

// TestMinimalStepsDoNotAllocate: a DeepFool or CW step allocates nothing
// once the tape has grown.
func TestMinimalStepsDoNotAllocate(t *testing.T) {
	m := mlp(t, 16, []int{8}, 10, 2)
	x0 := sigmoidRows(3, 16, 1)
	labels := predicted(m, x0)
	for _, c := range []Config{{Method: DeepFool, Norm: L2, Overshoot: 0.0001, Lo: 0, Hi: 1},
		{Method: CW, Norm: L2, Step: 1e-4, C0: 1e-3, Rounds: 3, Inner: 1000, Lo: 0, Hi: 1}} {
		a, err := New(m, nn.CrossEntropy, x0, labels, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		_ = a.Step()
		if allocs := testing.AllocsPerRun(20, func() {
			a.Reset(nil, nil)
			_ = a.Step()
		}); allocs > 0 {
			t.Errorf("%s: %g allocations a step", c.Method, allocs)
		}
	}
}

// TestDeepFoolFirstStepByDifferences: on the tanh network, DeepFool's
// first step from x₀ is rebuilt from central differences of the logits
// (h = 10⁻⁶) instead of reverse passes: w′_k = ∇(f_k − f_y) for every
// k ≠ y, l = argmin_k |f′_k|/‖w′_k‖_q, δ = (1+η)|f′_l|/‖w′_l‖₂² · w′_l (L2)
// or (1+η)|f′_l|/‖w′_l‖₁ · sgn w′_l (L∞), to 10⁻⁶ of ‖δ‖.
func TestDeepFoolFirstStepByDifferences(t *testing.T) {
	m, x0, labels, _ := tanhProblem(t, 1)
	d, k := m.Shape()
	const h, eta = 1e-6, DefaultOvershoot
	for _, norm := range Norms {
		a, err := New(m, nn.CrossEntropy, x0, labels, nil, Config{Method: DeepFool, Norm: norm, Overshoot: eta})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Step(); err != nil && !errors.Is(err, algo.ErrConverged) {
			t.Fatal(err)
		}
		z0 := logits(m, x0)
		for r, y := range labels {
			row := x0[r*d : (r+1)*d]
			grad := make([][]float64, k) // ∂f_c/∂x_i by central differences
			for c := range grad {
				grad[c] = make([]float64, d)
			}
			for i := range d {
				xp, xm := append([]float64(nil), row...), append([]float64(nil), row...)
				xp[i] += h
				xm[i] -= h
				zp, zm := logits(m, xp), logits(m, xm)
				for c := range k {
					grad[c][i] = (zp[c] - zm[c]) / (2 * h)
				}
			}
			best, want := math.Inf(1), make([]float64, d)
			for c := range k {
				if c == y {
					continue
				}
				wk := make([]float64, d)
				for i := range d {
					wk[i] = grad[c][i] - grad[y][i]
				}
				f := math.Abs(z0[r*k+c] - z0[r*k+y])
				q := dualNorm(wk, norm)
				if f/q >= best {
					continue
				}
				best = f / q
				for i, v := range wk {
					if norm == L2 {
						want[i] = (1 + eta) * f / (q * q) * v
					} else {
						want[i] = (1 + eta) * f / q * sgn(v)
					}
				}
			}
			got := a.X()[r*d : (r+1)*d]
			for i := range d {
				algotest.Near(t, "δ_i of the first step", got[i]-row[i], want[i], 1e-6*(1+eta)*best)
			}
		}
	}
}
