package linear

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/dataset"
	"gonum.org/v1/gonum/floats"
)

// lossData is a seeded separable set in the homogeneous form.
func lossData(t *testing.T, seed uint64, n int, gamma float64) (*Design, []float64) {
	t.Helper()
	l, _, err := dataset.Separable(rand.New(rand.NewPCG(seed, 3)), n, gamma)
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewDesign(l.X, true)
	if err != nil {
		t.Fatal(err)
	}
	y, err := l.PlusMinus()
	if err != nil {
		t.Fatal(err)
	}
	return x, y
}

// TestPerceptronSGDIsAlgorithm1: SGD on the perceptron loss with η = 1
// from w̃ = 0 makes Algorithm 1's updates exactly (seed 001 L269), in
// both orders, step by step, bit for bit.
func TestPerceptronSGDIsAlgorithm1(t *testing.T) {
	for _, order := range []Order{Cyclic, Random} {
		for seed := uint64(1); seed <= 3; seed++ {
			x, y := lossData(t, seed, 30, 0.05)
			p, err := NewPerceptron(x, y, order, rand.New(rand.NewPCG(seed, 9)))
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewPerceptronSGD(x, y, 1, order, rand.New(rand.NewPCG(seed, 9)))
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; ; k++ {
				e1, e2 := p.Step(), s.Step()
				if (e1 == nil) != (e2 == nil) {
					t.Fatalf("%s seed %d step %d: perceptron %v, sgd %v", order, seed, k, e1, e2)
				}
				if e1 != nil {
					if !errors.Is(e1, algo.ErrConverged) || !errors.Is(e2, algo.ErrConverged) {
						t.Fatalf("%s seed %d: %v, %v", order, seed, e1, e2)
					}
					break
				}
				i, _ := p.Last()
				if s.Last() != i || !floats.Equal(p.Theta(), s.Theta()) || p.Mistakes() != s.Mistakes() {
					t.Fatalf("%s seed %d step %d: sgd at x%d w̃ %v (M %d), perceptron x%d w̃ %v (M %d)",
						order, seed, k, s.Last(), s.Theta(), s.Mistakes(), i, p.Theta(), p.Mistakes())
				}
				if k > 100000 {
					t.Fatalf("%s seed %d: no convergence", order, seed)
				}
			}
		}
	}
}

// TestPerceptronDescentMistakeBound: on separable data, with γ of the
// max-margin w̃* and C² = max ‖x̃_i‖², SGD (any η) makes at most (C/γ)²
// mistakes (Theorem 2.8, L221–L225) and full-batch GD meets
// Σ_k m_k ≤ (C/γ)² max_k m_k mistakes in its batches, hence converges in at
// most n(C/γ)² steps (the same proof on the batch step).
func TestPerceptronDescentMistakeBound(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		x, y := lossData(t, seed, 40, 0.1)
		mm := MaxMargin(x, y)
		if mm.Sep != Separable {
			t.Fatalf("seed %d: %v", seed, mm.Sep)
		}
		_, _, bound, ok := Novikoff(x, y, mm.W)
		if !ok {
			t.Fatal("no bound")
		}
		for _, eta := range []float64{1, 0.01} {
			gd, err := NewPerceptronGD(x, y, eta)
			if err != nil {
				t.Fatal(err)
			}
			sgd, err := NewPerceptronSGD(x, y, eta, Random, rand.New(rand.NewPCG(seed, 2)))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []*PerceptronDescent{gd, sgd} {
				var err error
				for p.Steps() < 1_000_000 && err == nil {
					err = p.Step()
				}
				if !errors.Is(err, algo.ErrConverged) || p.Errors() != 0 || p.Loss() != 0 {
					t.Fatalf("seed %d η %g full %v: %v after %d steps, %d errors", seed, eta, p.Full(), err, p.Steps(), p.Errors())
				}
				if lim := bound * float64(p.PeakMistakes()); float64(p.Mistakes()) > lim {
					t.Errorf("seed %d η %g full %v: Σm_k = %d > (C/γ)² max m_k = %.4g", seed, eta, p.Full(), p.Mistakes(), lim)
				}
				if p.Full() && float64(p.Steps()) > float64(x.N())*bound {
					t.Errorf("seed %d: GD took %d steps > n(C/γ)² = %.4g", seed, p.Steps(), float64(x.N())*bound)
				}
				if !p.Full() && p.PeakMistakes() != 1 {
					t.Errorf("seed %d: SGD peak %d", seed, p.PeakMistakes())
				}
			}
		}
	}
}

// TestPerceptronStepOnlyScales: the loss is positively homogeneous, so
// from w̃ = 0 full-batch GD with step η = 2^j makes η times the iterates of
// step 1 (exactly, the scale being a power of two) and L(w̃_k) scales by η;
// L(0) = 0 although the ≤ 0 convention's subgradient there is not 0.
func TestPerceptronStepOnlyScales(t *testing.T) {
	x, y := lossData(t, 5, 25, 0.05)
	g := make([]float64, x.P())
	w := make([]float64, x.P())
	if PerceptronLoss(x, y, w) != 0 || PerceptronSubgrad(g, x, y, w, []int{0, 1, 2}) != 3 || floats.Norm(g, 2) == 0 {
		t.Fatalf("at w̃ = 0: L = %g, subgradient %v", PerceptronLoss(x, y, w), g)
	}
	for _, eta := range []float64{0.25, 8} {
		p, _ := NewPerceptronGD(x, y, eta)
		q, _ := NewPerceptronGD(x, y, 1)
		for k := 0; k < 50; k++ {
			e1, e2 := p.Step(), q.Step()
			if (e1 == nil) != (e2 == nil) {
				t.Fatalf("η %g step %d: %v vs %v", eta, k, e1, e2)
			}
			if e1 != nil {
				break
			}
			for j, v := range q.Theta() {
				if p.Theta()[j] != eta*v {
					t.Fatalf("η %g step %d: w̃ %v, want %g × %v", eta, k, p.Theta(), eta, q.Theta())
				}
			}
			algotest.Near(t, "L(ηw̃)/η", p.Loss()/eta, q.Loss(), 1e-12*(1+q.Loss()))
		}
	}
}

// TestPerceptronSubgradUnbiased: the mean of the n single-example
// subgradients is the full-batch subgradient (L757–L759: a uniform index
// gives an unbiased estimate), at a w̃ with mistakes and correct rows.
func TestPerceptronSubgradUnbiased(t *testing.T) {
	x, y := lossData(t, 6, 30, 0.05)
	w := []float64{0.3, -0.7, 0.1}
	full := make([]float64, x.P())
	mFull := PerceptronSubgrad(full, x, y, w, allRows(x.N()))
	mean := make([]float64, x.P())
	g := make([]float64, x.P())
	m := 0
	for i := 0; i < x.N(); i++ {
		m += PerceptronSubgrad(g, x, y, w, []int{i})
		floats.AddScaled(mean, 1/float64(x.N()), g)
	}
	if m != mFull || mFull == 0 || mFull == x.N() {
		t.Fatalf("mistakes %d vs %d of %d", m, mFull, x.N())
	}
	for j := range full {
		algotest.Near(t, "mean subgradient", mean[j], full[j], 1e-14)
	}
	// The loss is the mean of the terms, and the subgradient's slope: for
	// a direction d, L(w̃ + εd) − L(w̃) = ε⟨g, d⟩ while no margin changes sign.
	d := []float64{0.2, 0.1, -0.3}
	const eps = 1e-7
	wp := append([]float64(nil), w...)
	floats.AddScaled(wp, eps, d)
	algotest.Near(t, "directional derivative", (PerceptronLoss(x, y, wp)-PerceptronLoss(x, y, w))/eps, floats.Dot(full, d), 1e-6)
}

func allRows(n int) []int {
	b := make([]int, n)
	for i := range b {
		b[i] = i
	}
	return b
}

func TestPerceptronDescentValidation(t *testing.T) {
	x, y := lossData(t, 1, 10, 0.1)
	_, err := NewPerceptronGD(x, y, 0)
	algotest.WantParam(t, err, "eta")
	_, err = NewPerceptronSGD(x, y, 1, "sideways", nil)
	algotest.WantParam(t, err, "order")
	_, err = NewPerceptronSGD(x, y, 1, Random, nil)
	algotest.WantParam(t, err, "rng")
	if _, err = NewPerceptronGD(x, y[:3], 1); err == nil {
		t.Error("3 labels for 10 rows accepted")
	}
	nb, _ := NewDesign([][]float64{{1, 2}}, false)
	if _, err = NewPerceptronGD(nb, []float64{1}, 1); err == nil {
		t.Error("a design without the bias column accepted")
	}
}
