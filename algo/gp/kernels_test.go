package gp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/kernel"
	"gonum.org/v1/gonum/mat"
)

// zooCases are every kernel of the zoo alone, and some sums and products.
func zooCases() []Zoo {
	base := Zoo{Lengthscale: 0.8, Variance: 1.7, Alpha: 0.6, Period: 2.3}
	var out []Zoo
	for _, f := range Families {
		z := base
		z.First, z.Combine = f, CombineNone
		out = append(out, z)
	}
	for _, c := range []Combine{CombineSum, CombineProduct} {
		for _, pair := range [][2]Family{{FamilySE, FamilyPeriodic}, {FamilyMatern12, FamilyRQ}, {FamilyLocallyPeriodic, FamilyMatern52}} {
			z := base
			z.First, z.Second, z.Combine = pair[0], pair[1], c
			out = append(out, z)
		}
	}
	return out
}

func eval1(k kernel.Kernel, x, z float64) float64 { return kernel.Eval(k, []float64{x}, []float64{z}) }

// TestZooIdentities: k(x, x) is σ² (2σ² for a sum); se is gp.Hyper's
// kernel; se·periodic is locally-periodic (eq 4.28) to rounding; matern12
// is σ²·e^(−r/ℓ); a sum and a product are the sum and σ²-scaled product of
// the parts.
func TestZooIdentities(t *testing.T) {
	for _, z := range zooCases() {
		k, err := z.Kernel()
		if err != nil {
			t.Fatal(err)
		}
		want := z.Variance
		if z.Combine == CombineSum {
			want *= 2
		}
		for _, x := range []float64{-2, 0, 3.3} {
			if got := eval1(k, x, x); math.Abs(got-want) > 1e-15*want {
				t.Errorf("%v: k(x,x) = %v, want %v", k, got, want)
			}
		}
		if z.Combine == CombineNone {
			continue
		}
		one, two := z, z
		one.Combine, two.First, two.Combine = CombineNone, z.Second, CombineNone
		k1, _ := one.Kernel()
		k2, _ := two.Kernel()
		for _, r := range []float64{0.1, 0.9, 2.7} {
			a, b := eval1(k1, 0.5, 0.5+r), eval1(k2, 0.5, 0.5+r)
			w := a + b
			if z.Combine == CombineProduct {
				w = a * b / z.Variance
			}
			if got := eval1(k, 0.5, 0.5+r); math.Abs(got-w) > 1e-15*z.Variance {
				t.Errorf("%v at r = %g: %v, from the parts %v", k, r, got, w)
			}
		}
	}
	h := Hyper{Lengthscale: 0.8, Variance: 1.7}
	z := Zoo{First: FamilySE, Combine: CombineNone, Lengthscale: 0.8, Variance: 1.7, Period: 2.3}
	se, _ := z.Kernel()
	z.First = FamilyLocallyPeriodic
	lp, _ := z.Kernel()
	z.First, z.Second, z.Combine = FamilySE, FamilyPeriodic, CombineProduct
	prod, _ := z.Kernel()
	z.First, z.Combine = FamilyMatern12, CombineNone
	m12, _ := z.Kernel()
	for _, r := range []float64{0, 0.3, 1, 4} {
		algotest.Near(t, "se vs Hyper", eval1(se, 1, 1+r), eval1(h.Kernel(), 1, 1+r), 1e-15)
		lpWant := 1.7 * math.Exp(-r*r/(2*0.64)) * math.Exp(-2*math.Pow(math.Sin(math.Pi*r/2.3), 2)/0.64) // eq 4.28
		algotest.Near(t, "locally-periodic (4.28)", eval1(lp, 1, 1+r), lpWant, 1e-12)
		algotest.Near(t, "se·periodic", eval1(prod, 1, 1+r), eval1(lp, 1, 1+r), 1e-15)
		algotest.Near(t, "matern12", eval1(m12, 1, 1+r), 1.7*math.Exp(-r/0.8), 1e-12)
	}
}

// TestZooGramPSD: the Gram matrix of every kernel of the zoo at 60 random
// points of [0, 10], with two coincident, is symmetric positive
// semidefinite: λ_min ≥ −n·ε·λ_max (rounding of the eigensolver).
func TestZooGramPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	const n = 60
	x := make([][]float64, n)
	for i := range x {
		x[i] = []float64{10 * rng.Float64()}
	}
	x[1][0] = x[0][0]
	for _, z := range zooCases() {
		k, _ := z.Kernel()
		g := kernel.Gram(k, x)
		var eig mat.EigenSym
		if !eig.Factorize(mat.NewSymDense(n, g), false) {
			t.Fatalf("%v: eigendecomposition failed", k)
		}
		ev := eig.Values(nil)
		lo, hi := ev[0], ev[n-1]
		if lo < -n*0x1p-52*hi {
			t.Errorf("%v: λ_min = %g, λ_max = %g", k, lo, hi)
		}
	}
}

// TestZooValidation: each bad field is named.
func TestZooValidation(t *testing.T) {
	ok := Zoo{First: FamilyRQ, Second: FamilyPeriodic, Combine: CombineSum, Lengthscale: 1, Variance: 1, Alpha: 1, Period: 1}
	for _, c := range []struct {
		name string
		edit func(*Zoo)
	}{
		{"lengthscale", func(z *Zoo) { z.Lengthscale = 0 }},
		{"lengthscale", func(z *Zoo) { z.Lengthscale = math.Inf(1) }},
		{"variance", func(z *Zoo) { z.Variance = -1 }},
		{"variance", func(z *Zoo) { z.Variance = math.NaN() }},
		{"alpha", func(z *Zoo) { z.Alpha = 0 }},
		{"period", func(z *Zoo) { z.Period = 0 }},
		{"kernel", func(z *Zoo) { z.First = "cubic" }},
		{"second", func(z *Zoo) { z.Second = "cubic" }},
		{"combine", func(z *Zoo) { z.Combine = "max" }},
	} {
		z := ok
		c.edit(&z)
		_, err := z.Kernel()
		algotest.WantParam(t, err, c.name)
	}
	// A parameter no kernel in use reads is not checked.
	z := ok
	z.Combine, z.Period, z.Second = CombineNone, 0, "cubic"
	if _, err := z.Kernel(); err != nil {
		t.Errorf("rq alone with period 0: %v", err)
	}
}
