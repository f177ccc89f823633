package poison

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/stable"
	"gonum.org/v1/gonum/floats"
)

// TestLambertConstants checks the catalogue's values: W(1/e) =
// 0.2784645427610738; t* = 1 + W(1/e) solves t = 1 + e^{−t} and minimises
// −t/(1 + eᵗ) with value −(t* − 1) (a fine grid finds nothing lower).
func TestLambertConstants(t *testing.T) {
	algotest.Near(t, "W(1/e)", LambertW(1/math.E), WInvE, 1e-16)
	algotest.Near(t, "W(e) = 1", LambertW(math.E), 1, 1e-15)
	algotest.Near(t, "t* = 1 + e^{−t*}", 1+math.Exp(-TStar), TStar, 1e-15)
	f := func(t float64) float64 { return -t / (1 + math.Exp(t)) }
	algotest.Near(t, "f(t*)", f(TStar), -WInvE, 1e-16)
	for i := -100000; i <= 100000; i++ {
		if v := f(float64(i) * 1e-4); v < -WInvE-1e-16 {
			t.Fatalf("f(%g) = %.17g below −W(1/e)", float64(i)*1e-4, v)
		}
	}
}

// gaussians draws n absorbed examples of two classes at ±(1.5, 1), s.d. 1.
func gaussians(seed uint64, n int) *Problem {
	rng := rand.New(rand.NewPCG(seed, 3))
	z := make([]float64, 2*n)
	for i := range n {
		y := float64(2*(i%2) - 1)
		x0, x1 := y*1.5+rng.NormFloat64(), y*1+rng.NormFloat64()
		z[2*i], z[2*i+1] = y*x0, y*x1
	}
	p, err := NewProblem(z, n, 2)
	if err != nil {
		panic(err)
	}
	return p
}

// TestThresholdIsNecessary checks Example 18.2's theorem as a property:
// for a target of positive threshold and any poison below it (random
// points, and the attacker's best), ⟨w, g(μ) + ε g(ν)⟩ > 0, so w is not
// a stationary point of the mixture.
func TestThresholdIsNecessary(t *testing.T) {
	p := gaussians(1, 200)
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 200 {
		w := []float64{rng.NormFloat64() * 3, rng.NormFloat64() * 3}
		thr := p.Threshold(w)
		if thr == 0 {
			continue
		}
		g := make([]float64, 2)
		p.Grad(g, w)
		eps := thr * rng.Float64() * 0.999
		for range 20 {
			mix := floats.Dot(w, g)
			for range 5 { // ν: five random points of mass ε/5
				q := []float64{rng.NormFloat64() * 5, rng.NormFloat64() * 5}
				mix += eps / 5 * -floats.Dot(w, q) * stable.Sigmoid(-floats.Dot(w, q))
			}
			if mix <= 0 {
				t.Fatalf("trial %d: ε = %g below the threshold %g reaches ⟨w, g(χ)⟩ = %g", trial, eps, thr, mix)
			}
		}
		if _, ok := p.Attack(w, eps); ok {
			t.Fatalf("trial %d: the attack claims reachability below the threshold", trial)
		}
	}
}

// TestAttackReachesAtThreshold retrains on μ plus m copies of the crafted
// point: at or above the threshold the defender lands on the target (the
// bound is tight for one point), below it does not.
func TestAttackReachesAtThreshold(t *testing.T) {
	p := gaussians(2, 200)
	clean := []float64{1, 1}
	p.Retrain(clean, make([]float64, 2), 0)
	c, s := math.Cos(1), math.Sin(1)
	target := []float64{c*clean[0] - s*clean[1], s*clean[0] + c*clean[1]}
	thr := p.Threshold(target)
	if thr <= 0 {
		t.Fatalf("threshold %g: pick a harder target", thr)
	}
	for _, f := range []float64{0.5, 0.95, 1.0001, 1.5, 3} {
		eps := f * thr
		q, ok := p.Attack(target, eps)
		if ok != (f >= 1) {
			t.Fatalf("ε = %g·threshold: reachable = %v", f, ok)
		}
		w := append([]float64(nil), clean...)
		if gn := p.Retrain(w, q, eps*float64(p.N)); gn > 1e-10 {
			t.Fatalf("retraining left a gradient of %g", gn)
		}
		dist := math.Hypot(w[0]-target[0], w[1]-target[1])
		if f >= 1 && dist > 1e-7 {
			t.Errorf("ε = %g·threshold: retrained %v, %g from the target", f, w, dist)
		}
		if f < 1 && dist < 1e-3 {
			t.Errorf("ε = %g·threshold: retrained onto the target (%g)", f, dist)
		}
	}
}

func TestValidation(t *testing.T) {
	_, err := NewProblem(make([]float64, 4), 2, 0)
	algotest.WantParam(t, err, "d")
	_, err = NewProblem(make([]float64, 3), 2, 2)
	algotest.WantParam(t, err, "n")
	_, err = NewProblem([]float64{1, math.Inf(1)}, 1, 2)
	algotest.WantParam(t, err, "z")
}

// TestSeparatesCertifiesSeparation: in the plane, absorbed examples are
// separable through the origin exactly when their directions leave a gap
// wider than π (they lie in an open half-plane); Retrain's result
// separates them (Separates) exactly then, over draws on either side of
// the edge (issue 28.3: a separable set reported a "converged" fit).
func TestSeparatesCertifiesSeparation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	seen := map[bool]int{}
	for trial := range 300 {
		n := 20 + 20*(trial%6)
		sep := 0.5 + 0.01*float64(trial%150)
		z := make([]float64, 2*n)
		angles := make([]float64, n)
		for i := range n {
			y := float64(2*(i%2) - 1)
			x0, x1 := y*1.5*sep+rng.NormFloat64(), y*sep+rng.NormFloat64()
			z[2*i], z[2*i+1] = y*x0, y*x1
			angles[i] = math.Atan2(z[2*i+1], z[2*i])
		}
		floats.Argsort(angles, make([]int, n))
		gap := angles[0] + 2*math.Pi - angles[n-1]
		for i := 1; i < n; i++ {
			gap = math.Max(gap, angles[i]-angles[i-1])
		}
		p, err := NewProblem(z, n, 2)
		if err != nil {
			t.Fatal(err)
		}
		w := []float64{0, 0}
		p.Retrain(w, []float64{0, 0}, 0)
		want := gap > math.Pi
		if got := p.Separates(w); got != want {
			t.Fatalf("n %d, sep %g: Separates %v, the directions' widest gap %g (π %g)", n, sep, got, gap, math.Pi)
		}
		seen[want]++
	}
	if seen[true] < 30 || seen[false] < 30 {
		t.Fatalf("the draws were not on both sides of the edge: %v", seen)
	}
}
