package attrib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
)

func net(t *testing.T, out int) *nn.MLP {
	m, err := nn.NewMLP(nn.MLPConfig{In: 6, Hidden: []int{5}, Out: out, Act: nn.Tanh}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func outputs(m *nn.MLP, x []float64) ([]float64, []float64) {
	b, _ := nn.NewBatch(1, len(x))
	b.LoadRows(x, nil)
	tp := tensor.NewTape()
	z := m.Forward(tp, b.X, nil)
	h, _ := m.Hidden(0)
	return append([]float64(nil), z.Data...), append([]float64(nil), h.Data...)
}

// TestSaliencyFiniteDifferences checks ∂z_c/∂x against central
// differences, for a softmax model and both classes of a one-logit model.
func TestSaliencyFiniteDifferences(t *testing.T) {
	x := []float64{0.1, 0.5, -0.3, 0.9, 0.2, -0.7}
	for _, tt := range []struct{ out, c int }{{3, 0}, {3, 2}, {1, 1}, {1, 0}} {
		m := net(t, tt.out)
		g := make([]float64, 6)
		zc, err := Saliency(m, x, tt.c, g)
		if err != nil {
			t.Fatal(err)
		}
		score := func(x []float64) float64 {
			z, _ := outputs(m, x)
			if tt.out == 1 {
				return float64(2*tt.c-1) * z[0]
			}
			return z[tt.c]
		}
		algotest.Near(t, "z_c", zc, score(x), 1e-14)
		const h = 1e-6
		for i := range x {
			xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
			xp[i] += h
			xm[i] -= h
			algotest.Near(t, "∂z_c/∂x_i", g[i], (score(xp)-score(xm))/(2*h), 1e-8)
		}
	}
}

// TestActMaxAscends checks that small-step activation maximisation never
// lowers the unit's activation and keeps the input in [0, 1], and that
// the activation reported is h at the input X reports, the grey start's
// before the first step (issue 28.1: it was the input's before the last
// move, and 0 before any).
func TestActMaxAscends(t *testing.T) {
	m := net(t, 3)
	x0 := []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}
	a, err := NewActMax(m, 0, 2, x0, 0.05, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, h0 := outputs(m, x0)
	if h0[2] == 0 {
		t.Fatal("the test needs h(x₀) ≠ 0")
	}
	algotest.Near(t, "activation at x₀", a.Activation(), h0[2], 1e-15)
	prev := math.Inf(-1)
	for k := range 200 {
		if err := a.Step(); err != nil {
			t.Fatal(err)
		}
		h := a.Activation()
		if _, want := outputs(m, a.X()); math.Abs(h-want[2]) > 1e-15 {
			t.Fatalf("step %d: activation %g, h at the current input %g", k+1, h, want[2])
		}
		if h < prev-1e-15 {
			t.Fatalf("activation fell from %g to %g", prev, h)
		}
		prev = h
		for _, v := range a.X() {
			if v < 0 || v > 1 {
				t.Fatalf("pixel %g outside [0, 1]", v)
			}
		}
	}
	if prev <= h0[2]+0.01 {
		t.Errorf("activation went from %g only to %g", h0[2], prev)
	}
	if n := testing.AllocsPerRun(10, func() { _ = a.Step(); _ = a.Activation() }); n != 0 {
		t.Errorf("a step and its activation allocate %g times", n)
	}
}

// TestTopActivating checks the ranking against a brute-force pass.
func TestTopActivating(t *testing.T) {
	m := net(t, 3)
	rng := rand.New(rand.NewPCG(2, 2))
	x := make([]float64, 300*6)
	for i := range x {
		x[i] = rng.Float64()
	}
	labels := make([]int, 300)
	set, err := nn.NewClassSet(x, 6, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	idx, acts, err := TopActivating(m, set, 0, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	best := make([]float64, 300)
	for i := range 300 {
		_, h := outputs(m, set.Row(i))
		best[i] = h[4]
	}
	for r, i := range idx {
		algotest.Near(t, "activation", acts[r], best[i], 1e-14)
		above := 0
		for _, v := range best {
			if v > acts[r] {
				above++
			}
		}
		if above != r {
			t.Errorf("rank %d: %d rows are more active", r, above)
		}
	}
	_, _, err = TopActivating(m, set, 0, 5, 3)
	algotest.WantParam(t, err, "unit")
	_, _, err = TopActivating(m, set, 1, 0, 3)
	algotest.WantParam(t, err, "layer")
}

// TestORGame checks [A40]'s failure example: for y = x₁ ∨ x₂ with both
// inputs on, single flips (and so gradients) give each input 0, while the
// Shapley value is (½, ½), summing to u({1,2}) − u(∅) = 1.
func TestORGame(t *testing.T) {
	or := func(a, b float64) float64 { return math.Max(a, b) }
	u0, u1, u2, u12 := or(0, 0), or(1, 0), or(0, 1), or(1, 1)
	f1, f2 := Flip2(u1, u2, u12)
	if f1 != 0 || f2 != 0 {
		t.Errorf("flips %g, %g, want 0, 0", f1, f2)
	}
	p1, p2 := Shapley2(u0, u1, u2, u12)
	if p1 != 0.5 || p2 != 0.5 {
		t.Errorf("Shapley %g, %g, want ½, ½", p1, p2)
	}
	// The glove game's first two players restricted: u({1}) = 0, u({2}) = 0, u({1,2}) = 1 → ½, ½;
	// an additive game gives each its own worth.
	if a, b := Shapley2(0, 2, 3, 5); a != 2 || b != 3 {
		t.Errorf("additive game: %g, %g", a, b)
	}
}
