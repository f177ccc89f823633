package seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/tensor"
)

// TestSelfAttentionOracles (G3, G6): each row of weights sums to 1, the
// causal mask's weights are exactly 0, and without positions attention is
// permutation-equivariant: permuting the tokens permutes the outputs'
// rows (L3262), to rounding.
func TestSelfAttentionOracles(t *testing.T) {
	const T, dm, dk = 6, 8, 4
	rng := rand.New(rand.NewPCG(3, 1))
	a, err := NewSelfAttention(dm, dk, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, T*dm)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	perm := []int{3, 0, 5, 1, 4, 2}
	px := make([]float64, T*dm)
	for i, p := range perm {
		copy(px[i*dm:(i+1)*dm], x[p*dm:(p+1)*dm])
	}
	xt, _ := tensor.FromData(x, T, dm)
	pt, _ := tensor.FromData(px, T, dm)
	tp := tensor.NewTape()
	for _, causal := range []bool{false, true} {
		out, w := a.Apply(tp, xt, true, causal)
		for h := range w {
			for i := range T {
				sum := 0.0
				for j := range T {
					sum += w[h].Data[i*T+j]
					if causal && j > i && w[h].Data[i*T+j] != 0 {
						t.Errorf("head %d: masked weight (%d, %d) = %g", h, i, j, w[h].Data[i*T+j])
					}
				}
				algotest.Near(t, fmt.Sprintf("head %d row %d sum", h, i), sum, 1, 1e-14)
			}
		}
		if causal {
			continue
		}
		pout, _ := a.Apply(tp, pt, true, false)
		for h := range out {
			for i, p := range perm {
				for c := range dk {
					algotest.Near(t, "permuted output", pout[h].Data[i*dk+c], out[h].Data[p*dk+c], 1e-12)
				}
			}
		}
	}
	if tp.Err() != nil {
		t.Fatal(tp.Err())
	}
	for name, f := range map[string]func() error{
		"d_k":   func() error { _, err := NewSelfAttention(4, 0, 1, rng); return err },
		"heads": func() error { _, err := NewSelfAttention(4, 2, MaxAttnHeads+1, rng); return err },
	} {
		algotest.WantParam(t, f(), name)
	}
}

// TestEntropyByDim: at d = 1 both scalings are the same softmax (equal to
// rounding from the same draws); scaled by 1/√d the mean row entropy
// stays within 0.1 nats as d goes 1 → 128, unscaled it collapses below a
// quarter of log T.
func TestEntropyByDim(t *testing.T) {
	const T = 8
	dims := []int{1, 128}
	sc, err := EntropyByDim(T, dims, 200, true, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	un, _ := EntropyByDim(T, dims, 200, false, rand.New(rand.NewPCG(1, 2)))
	algotest.Near(t, "d = 1", un[0], sc[0], 1e-12)
	if math.Abs(sc[1]-sc[0]) > 0.1 || un[1] > math.Log(T)/4 {
		t.Errorf("scaled %v, unscaled %v (log T = %.3f)", sc, un, math.Log(T))
	}
}

// TestSmoother (G5): the attention weights with the Gaussian score are the
// squared-exponential kernel's values normalised to sum to 1; noiseless
// kernel-regression weights at a training input are the unit vector e_i
// and predict y_i; between inputs some kernel weight is negative.
func TestSmoother(t *testing.T) {
	x := []float64{0, 0.2, 0.4, 0.6, 0.8, 1}
	y := []float64{0, 1, 0, -1, 0, 1}
	const ell = 0.25
	s, err := NewSmoother(x, y, ell, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, len(x))
	q := 0.33
	s.Attention(q, w)
	z := 0.0
	for _, xj := range x {
		z += math.Exp(-(q - xj) * (q - xj) / (2 * ell * ell))
	}
	for j, xj := range x {
		algotest.Near(t, "softmax = normalised kernel", w[j], math.Exp(-(q-xj)*(q-xj)/(2*ell*ell))/z, 1e-15)
	}
	for i, xi := range x {
		f := s.GP(xi, w)
		for j := range w {
			want := 0.0
			if i == j {
				want = 1
			}
			algotest.Near(t, fmt.Sprintf("w_%d(x_%d)", j, i), w[j], want, 1e-9)
		}
		algotest.Near(t, "interpolates", f, y[i], 1e-9)
	}
	s.GP(0.5, w)
	if neg := min(w[0], w[1], w[2], w[3], w[4], w[5]); neg >= 0 {
		t.Errorf("kernel weights at 0.5 all ≥ 0: %v", w)
	}
	for name, f := range map[string]func() error{
		"ell":   func() error { _, err := NewSmoother(x, y, 0, 0); return err },
		"noise": func() error { _, err := NewSmoother([]float64{0, 0}, []float64{1, 1}, 1, 0); return err },
		"data":  func() error { _, err := NewSmoother(x, y[:2], 1, 0); return err },
	} {
		algotest.WantParam(t, f(), name)
	}
}
