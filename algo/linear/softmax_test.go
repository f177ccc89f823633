package linear

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/dataset"
	"github.com/thelab/lab/algo/optim"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

func blobsSoftmax(t testing.TB, seed uint64, n, c int, bias bool, lambda float64) (*Softmax, *dataset.Labelled) {
	t.Helper()
	l, err := dataset.Blobs(rand.New(rand.NewPCG(seed, 6)), n, c, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := NewDesign(l.X, bias)
	s, err := NewSoftmax(x, l.Int(), c, lambda)
	if err != nil {
		t.Fatal(err)
	}
	return s, l
}

// TestSoftmaxProbabilities: every row of probabilities is non-negative and
// sums to one (L449), also for huge logits (the log-sum-exp shift), and
// adding one vector to every θ_k changes nothing (catalogue [A7]).
func TestSoftmaxProbabilities(t *testing.T) {
	s, l := blobsSoftmax(t, 1, 60, 3, true, 0)
	rng := rand.New(rand.NewPCG(1, 1))
	theta := make([]float64, s.Dim())
	shifted := make([]float64, s.Dim())
	shift := []float64{300, -200, 500}
	p1, p2 := make([]float64, 3), make([]float64, 3)
	for trial := 0; trial < 50; trial++ {
		for j := range theta {
			theta[j] = 50 * rng.NormFloat64()
		}
		for k := 0; k < 3; k++ {
			for j := 0; j < 3; j++ {
				shifted[k*3+j] = theta[k*3+j] + shift[j]
			}
		}
		x := l.X[trial]
		s.Probs(theta, x, p1)
		s.Probs(shifted, x, p2)
		sum := 0.0
		for k, p := range p1 {
			if !(p >= 0) || math.IsNaN(p) {
				t.Fatalf("p = %v", p1)
			}
			sum += p
			if math.Abs(p-p2[k]) > 1e-9 {
				t.Fatalf("shift changed p: %v vs %v", p1, p2)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("Σp = %v", sum)
		}
	}
	if f := s.Func(theta); math.IsNaN(f) || math.IsInf(f, 0) {
		t.Errorf("f = %v at large logits", f)
	}
}

func TestSoftmaxDerivatives(t *testing.T) {
	s, _ := blobsSoftmax(t, 2, 30, 3, true, 0.3)
	rng := rand.New(rand.NewPCG(2, 2))
	th := make([]float64, s.Dim())
	for j := range th {
		th[j] = rng.NormFloat64()
	}
	checkDerivatives(t, "softmax", s.Func, s.Grad, nil, th)
	checkBatches(t, s, th)
}

// TestSoftmaxTwoClassesIsLogistic: with c = 2, θ_0 = 0 and λ = 0 the
// cross-entropy is the logistic loss of θ_1 with labels y′ = 2y − 1.
func TestSoftmaxTwoClassesIsLogistic(t *testing.T) {
	s, l := blobsSoftmax(t, 3, 50, 2, true, 0)
	x, _ := NewDesign(l.X, true)
	y, _ := l.PlusMinus()
	lg, _ := NewLogistic(x, y, 0)
	th := []float64{0, 0, 0, 0.7, -1.1, 0.2}
	if a, b := s.Func(th), lg.Func(th[3:]); math.Abs(a-b) > 1e-13 {
		t.Errorf("softmax %v, logistic %v", a, b)
	}
}

// naiveSoftmax writes the objective out with plain loops (exp of shifted
// logits), independently of Softmax.
func naiveSoftmax(x [][]float64, y []int, c int, lambda float64) optimize.Problem {
	n, d := len(x), len(x[0])
	p := d + 1
	logits := func(th []float64, i int, z []float64) {
		for k := 0; k < c; k++ {
			z[k] = th[k*p+d]
			for j := 0; j < d; j++ {
				z[k] += th[k*p+j] * x[i][j]
			}
		}
	}
	return optimize.Problem{
		Func: func(th []float64) float64 {
			z := make([]float64, c)
			s := 0.0
			for i := 0; i < n; i++ {
				logits(th, i, z)
				m := floats.Max(z)
				e := 0.0
				for _, v := range z {
					e += math.Exp(v - m)
				}
				s += m + math.Log(e) - z[y[i]]
			}
			r := 0.0
			for k := 0; k < c; k++ {
				for j := 0; j < d; j++ {
					r += th[k*p+j] * th[k*p+j]
				}
			}
			return s/float64(n) + lambda/2*r
		},
		Grad: func(g, th []float64) {
			clear(g)
			z := make([]float64, c)
			for i := 0; i < n; i++ {
				logits(th, i, z)
				m := floats.Max(z)
				e := 0.0
				for k := range z {
					z[k] = math.Exp(z[k] - m)
					e += z[k]
				}
				for k := 0; k < c; k++ {
					r := z[k] / e
					if k == y[i] {
						r--
					}
					for j := 0; j < d; j++ {
						g[k*p+j] += r * x[i][j] / float64(n)
					}
					g[k*p+d] += r / float64(n)
				}
			}
			for k := 0; k < c; k++ {
				for j := 0; j < d; j++ {
					g[k*p+j] += lambda * th[k*p+j]
				}
			}
		},
	}
}

// TestSoftmaxAgreesWithLBFGS: gradient descent at t = 1/L on the engine's
// objective reaches ∇f ≈ 0 and the objective value of an independent
// L-BFGS solve, to 1e-6 relative.
func TestSoftmaxAgreesWithLBFGS(t *testing.T) {
	for _, lambda := range []float64{0.01, 0.1} {
		s, l := blobsSoftmax(t, 4, 150, 3, true, lambda)
		_, L, _ := s.Curvature()
		d, _ := optim.NewDescent(s, make([]float64, s.Dim()), optim.DescentConfig{Method: optim.GD, LR: 1 / L, Tol: 1e-9})
		for k := 0; k < 200000; k++ {
			if d.Step() != nil {
				break
			}
		}
		if d.GradNorm() > 1e-9 {
			t.Fatalf("λ=%g: ‖∇f‖ = %v after %d steps", lambda, d.GradNorm(), d.Iter())
		}
		res := lbfgs(t, naiveSoftmax(l.X, l.Int(), 3, lambda), make([]float64, s.Dim()))
		if math.Abs(d.F()-res.F) > 1e-6*res.F {
			t.Errorf("λ=%g: f = %.12g, L-BFGS %.12g", lambda, d.F(), res.F)
		}
		// GD from Θ = 0 keeps Σ_k b_k = 0 (the bias gradients sum to zero).
		if sb := d.X()[2] + d.X()[5] + d.X()[8]; math.Abs(sb) > 1e-9 {
			t.Errorf("Σ b_k = %v", sb)
		}
		if acc := s.Accuracy(d.X()); acc < 0.8 {
			t.Errorf("training accuracy %v on blobs", acc)
		}
	}
}

func TestSoftmaxValidation(t *testing.T) {
	d, _ := NewDesign([][]float64{{1}, {2}}, true)
	if _, err := NewSoftmax(d, []int{0, 1}, 1, 0); !algo.IsParamError(err, "classes") {
		t.Errorf("one class: %v", err)
	}
	if _, err := NewSoftmax(d, []int{0, 3}, 3, 0); err == nil {
		t.Error("label 3 of 3 classes accepted")
	}
	if _, err := NewSoftmax(d, []int{0, 1}, 2, -0.5); !algo.IsParamError(err, "lambda") {
		t.Errorf("λ < 0: %v", err)
	}
}

func BenchmarkSoftmaxGDStep(b *testing.B) {
	s, _ := blobsSoftmax(b, 1, 10000, 5, true, 0.01)
	_, L, _ := s.Curvature()
	d, _ := optim.NewDescent(s, make([]float64, s.Dim()), optim.DescentConfig{Method: optim.GD, LR: 1 / L})
	b.ReportAllocs()
	for b.Loop() {
		_ = d.Step()
	}
}
