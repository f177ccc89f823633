package oned_test

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo/ot/oned"
)

// W₁ and W₂ between two Normals (seed 002 §5.4; E6), by quadrature on
// their CDFs and their monotone map, against the closed forms: with
// X − Y = Δm + Δs·Z along the monotone coupling, W₁ = E|Δm + Δs Z| (a folded
// Normal's mean) and W₂² = Δm² + Δs² (Ex 5.7). Between also gives the
// "vertical" distances, which compare densities point by point (L2029–2033):
// KL(P‖Q) = log(s_Q/s_P) + (s_P² + Δm²)/(2s_Q²) − ½, and JS ≤ log 2.
func ExampleBetween() {
	p, q := oned.Normal{Mean: 0, SD: 1}, oned.Normal{Mean: 1, SD: 2}
	d, err := oned.Between(p, q)
	if err != nil {
		panic(err)
	}
	dm, ds := 1.0, 1.0
	w1 := ds*math.Sqrt(2/math.Pi)*math.Exp(-dm*dm/(2*ds*ds)) + dm*math.Erf(dm/(ds*math.Sqrt2))
	fmt.Printf("W₁ %.6f, closed form %.6f\n", d.W1, w1)
	fmt.Printf("W₂ %.6f, closed form %.6f\n", d.W2, math.Sqrt(oned.GaussianW2Sq(0, 1, 1, 2)))
	fmt.Printf("KL %.6f, closed form %.6f\n", d.KL, math.Log(2)+(1+dm*dm)/8-0.5)
	fmt.Printf("JS %.4f ≤ log 2 = %.4f\n", d.JS, math.Ln2)
	// Output:
	// W₁ 1.166631, closed form 1.166631
	// W₂ 1.414214, closed form 1.414214
	// KL 0.443147, closed form 0.443147
	// JS 0.1282 ≤ log 2 = 0.6931
}

// W_p between two empirical measures is the L^p distance of their quantile
// functions (Corollary 1): sort both and match in order. Notice that the
// monotone coupling (the segments) pairs the k-th smallest atoms, whatever
// order they were given in.
func ExampleW() {
	a, err := oned.Discrete([]float64{3, 0, 1}, nil) // uniform weights
	if err != nil {
		panic(err)
	}
	b, err := oned.Discrete([]float64{6, 2, 1}, nil)
	if err != nil {
		panic(err)
	}
	w1, _ := oned.W(a, b, 1)
	w2, _ := oned.W(a, b, 2)
	fmt.Printf("W₁ %.4f = (1 + 1 + 3)/3, W₂ %.4f = √((1 + 1 + 9)/3)\n", w1, w2)
	for _, s := range oned.Segments(a, b, nil) {
		fmt.Printf("mass %.4f: %v → %v\n", s.T1-s.T0, s.A0, s.B0)
	}
	// Output:
	// W₁ 1.6667 = (1 + 1 + 3)/3, W₂ 1.9149 = √((1 + 1 + 9)/3)
	// mass 0.3333: 0 → 1
	// mass 0.3333: 1 → 2
	// mass 0.3333: 3 → 6
}

// Displacement interpolation (L2375, Ex 5.6) slides the mass along the
// monotone map; the vertical mixture (L2368) fades one law into the other.
// Between U[0, 1] and U[4, 5], notice that halfway the first is U[2, 3]
// (variance 1/12, one bump), the second two bumps of variance 4.0833.
func ExampleInterpolate() {
	a, _ := oned.Uniform(0, 1)
	b, _ := oned.Uniform(4, 5)
	geo, err := oned.Interpolate(a, b, 0.5)
	if err != nil {
		panic(err)
	}
	mix, err := oned.Mixture(a, b, 0.5)
	if err != nil {
		panic(err)
	}
	lo, hi := geo.Support()
	fmt.Printf("displacement: support [%v, %v], mean %.4f, variance %.4f\n", lo, hi, geo.Mean(), geo.Variance())
	fmt.Printf("mixture: mean %.4f, variance %.4f\n", mix.Mean(), mix.Variance())
	// Output:
	// displacement: support [2, 3], mean 2.5000, variance 0.0833
	// mixture: mean 2.5000, variance 4.0833
}
