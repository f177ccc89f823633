package linear

import (
	"math"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/stable"
)

// TestSoftmaxT: probabilities sum to 1 and are non-negative (L449), shift
// invariance softmax(z + c) = softmax(z), the two-class softmax is the
// sigmoid of the logit difference, softmax([t, 0])_0 = σ(t), and logits
// of 10³ (at temperatures down to 10⁻³: scores of 10⁶) do not overflow.
func TestSoftmaxT(t *testing.T) {
	cases := []struct {
		z []float64
		T float64
	}{
		{[]float64{2, 1, 0.1, -1}, 1},
		{[]float64{2, 1, 0.1, -1}, 0.01},
		{[]float64{2, 1, 0.1, -1}, 1e4},
		{[]float64{1000, -1000, 999, 0}, 1},
		{[]float64{1000, 1000, 999.5}, 1e-3},
		{[]float64{-1000, -1000.5}, 0.1},
	}
	for _, c := range cases {
		p := make([]float64, len(c.z))
		lse := SoftmaxT(p, c.z, c.T)
		sum := 0.0
		for _, v := range p {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("z = %v, T = %g: p = %v", c.z, c.T, p)
			}
			sum += v
		}
		algotest.Near(t, "Σp", sum, 1, 1e-14)
		if math.IsInf(lse, 0) || math.IsNaN(lse) {
			t.Errorf("z = %v, T = %g: LSE = %v", c.z, c.T, lse)
		}
		h := EntropyT(p, c.z, c.T, lse)
		if !(h >= 0 && h <= math.Log(float64(len(p)))+1e-12) {
			t.Errorf("z = %v, T = %g: entropy %v", c.z, c.T, h)
		}
		for _, shift := range []float64{-500, 3.7, 1000} {
			zs := make([]float64, len(c.z))
			for i, v := range c.z {
				zs[i] = v + shift
			}
			q := make([]float64, len(c.z))
			SoftmaxT(q, zs, c.T)
			for i := range p {
				algotest.Near(t, "softmax(z + c)_k", q[i], p[i], 1e-12)
			}
		}
	}
	// Huge logits: LSE is z_max + log Σ exp(z − z_max).
	p := make([]float64, 2)
	algotest.Near(t, "LSE(1000, 1000)", SoftmaxT(p, []float64{1000, 1000}, 1), 1000+math.Ln2, 1e-12)
	for _, tt := range []float64{-745, -40, -3, -1e-9, 0, 0.5, 2, 40, 745} {
		SoftmaxT(p, []float64{tt, 0}, 1)
		algotest.Near(t, "softmax([t, 0])_0 − σ(t)", p[0]-stable.Sigmoid(tt), 0, 1e-15)
		// The same with any pair: p_a / (p_a + p_b) = σ((z_a − z_b)/T).
		q := make([]float64, 3)
		SoftmaxT(q, []float64{tt, 0, 1.5}, 2)
		if s := q[0] + q[1]; s > 0 {
			algotest.Near(t, "p_a/(p_a+p_b) − σ((z_a−z_b)/T)", q[0]/s-stable.Sigmoid(tt/2), 0, 1e-14)
		}
	}
}

// TestTemperatureLimits: T → ∞ gives the uniform law, T → 0 the one-hot
// vector of the argmax, ties split evenly (to the exponentially small
// corrections e^{−gap/T} and (max − min)/T).
func TestTemperatureLimits(t *testing.T) {
	for _, z := range [][]float64{{2, 1, 0.1, -1}, {2, 2, 1, 0}, {-1, 5, 5, 5}, {1000, -1000, 0, 999}} {
		hot, cold, ties := SoftmaxLimits(z)
		p := make([]float64, len(z))
		SoftmaxT(p, z, 1e9)
		for i := range p {
			algotest.Near(t, "p at T = 1e9", p[i], hot[i], 1e-5)
		}
		lse := SoftmaxT(p, z, 1e-4) // smallest gap 0.5 here: e^{−5000} = 0
		for i := range p {
			algotest.Near(t, "p at T = 1e-4", p[i], cold[i], 1e-15)
		}
		algotest.Near(t, "cold entropy", EntropyT(p, z, 1e-4, lse), math.Log(float64(ties)), 1e-9)
	}
}

// TestTemperatureEntropy: along a 2000-point grid from 10³ to 10⁻³ the
// entropy never rises as T falls (dH/dT = Var_p(z)/T³ ≥ 0), it matches that
// derivative by central differences, and its ends are within 1e-3 of log c
// and 0.
func TestTemperatureEntropy(t *testing.T) {
	for _, z := range [][]float64{{2, 1, 0.1, -1}, {3, 3, -2}, {1000, 0, -1000, 500}} {
		e, err := NewTemperature(z, 1e3, 1e-3, 2000)
		if err != nil {
			t.Fatal(err)
		}
		_, _, ties := SoftmaxLimits(z)
		algotest.Near(t, "H at T = 1e3", e.Entropy(), math.Log(float64(len(z))), 1e-3*math.Max(1, math.Abs(z[0])))
		prev := e.Entropy()
		p := make([]float64, len(z))
		for k := 1; k < 2000; k++ {
			e.Step()
			if h := e.Entropy(); h > prev+1e-12 {
				t.Fatalf("z = %v: H rises from %.15g to %.15g as T falls to %g", z, prev, h, e.T())
			}
			prev = e.Entropy()
			if k%97 == 0 {
				tt := e.T()
				dt := 1e-5 * tt
				hp := EntropyT(p, z, tt+dt, SoftmaxT(p, z, tt+dt))
				hm := EntropyT(p, z, tt-dt, SoftmaxT(p, z, tt-dt))
				want := e.VarZ() / (tt * tt * tt)
				algotest.Near(t, "dH/dT", (hp-hm)/(2*dt), want, 1e-5*math.Max(want, 1e-3/tt))
			}
		}
		algotest.Near(t, "H at T = 1e-3", e.Entropy(), math.Log(float64(ties)), 1e-3)
		// The sweep turns back: the next step raises T again.
		e.Step()
		if e.Index() != 1998 || e.T() <= 1e-3 {
			t.Errorf("after the end: index %d, T %g", e.Index(), e.T())
		}
	}
}

// TestTemperatureParams: bad parameters name themselves.
func TestTemperatureParams(t *testing.T) {
	_, err := NewTemperature([]float64{1}, 10, 0.1, 10)
	algotest.WantParam(t, err, "logits")
	_, err = NewTemperature([]float64{1, math.NaN()}, 10, 0.1, 10)
	algotest.WantParam(t, err, "logits")
	_, err = NewTemperature([]float64{1, 2}, 10, 0, 10)
	algotest.WantParam(t, err, "t_min")
	_, err = NewTemperature([]float64{1, 2}, 0.1, 0.1, 10)
	algotest.WantParam(t, err, "t_max")
	_, err = NewTemperature([]float64{1, 2}, 10, 0.1, 1)
	algotest.WantParam(t, err, "points")
}

// BenchmarkTemperatureStep: one step with c = 4 logits.
func BenchmarkTemperatureStep(b *testing.B) {
	e, _ := NewTemperature([]float64{2, 1, 0.1, -1}, 100, 0.01, 200)
	b.ReportAllocs()
	for b.Loop() {
		e.Step()
	}
}
