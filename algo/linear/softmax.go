package linear

import (
	"fmt"
	"math"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/stable"
	"gonum.org/v1/gonum/floats"
)

// Softmax is the multiclass softmax-regression objective of seed 001 §4
// (eq 4.b, L447): the mean cross-entropy of
//
//	Pr[Y = k | x; W] = exp⟨x̃, θ_k⟩ / Σ_l exp⟨x̃, θ_l⟩,
//
// plus a ridge term on the weights (not the biases):
//
//	f(Θ) = (1/n) Σ_i [logΣ_l exp z_il − z_{i,y_i}] + (λ/2) Σ_k ‖w_k‖²,   z_ik = ⟨x̃_i, θ_k⟩,
//	∇_{θ_k} f = (1/n) Σ_i (p_ik − 𝕀[y_i = k]) x̃_i + λ(w_k, 0)   (catalogue [A7]).
//
// The log-sum-exp and the probabilities come from stable.Softmax, which
// subtracts the largest logit.
// Θ is flattened row by row: θ_k = theta[k·P : (k+1)·P], its bias last.
// Adding one vector to every θ_k changes no probability (catalogue [A7]);
// the ridge term pins the weights, and since the bias gradients sum to zero
// over the classes, gradient methods started at Θ = 0 keep Σ_k b_k = 0.
type Softmax struct {
	x      *Design
	y      []int
	c      int
	lambda float64
	zr     []float64 // n×c logits at last, then the residuals p − onehot
	loss   float64
	last   []float64
	valid  bool
}

// SoftmaxBytes is what NewSoftmax allocates for n rows of p columns and c
// classes besides the design: its labels and the n×c logits.
func SoftmaxBytes(n, p, c int) int64 {
	return algo.HeapBytes(8*int64(n)) + algo.HeapBytes(8*int64(n)*int64(c)) + 8*int64(c*p) + 128
}

// NewSoftmax validates labels in 0..classes−1, classes ≥ 2 and λ ≥ 0.
func NewSoftmax(x *Design, y []int, classes int, lambda float64) (*Softmax, error) {
	if err := checkClasses(x, y, classes); err != nil {
		return nil, err
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return nil, algo.BadParam("lambda", lambda, "a finite number ≥ 0")
	}
	return &Softmax{
		x: x, y: append([]int(nil), y...), c: classes, lambda: lambda,
		zr: make([]float64, x.N()*classes), last: make([]float64, classes*x.P()),
	}, nil
}

// Design returns the data; Classes the number c of classes; Lambda λ.
func (s *Softmax) Design() *Design { return s.x }
func (s *Softmax) Classes() int    { return s.c }
func (s *Softmax) Lambda() float64 { return s.lambda }
func (s *Softmax) Labels() []int   { return s.y }

// Dim is the length c·P of Θ.
func (s *Softmax) Dim() int { return s.c * s.x.P() }

// Len is the number of terms n.
func (s *Softmax) Len() int { return s.x.N() }

func (s *Softmax) check(theta []float64) {
	if len(theta) != s.Dim() {
		panic(fmt.Sprintf("linear: Θ has %d coordinates, want %d", len(theta), s.Dim()))
	}
}

// eval computes the logits Z = X̃Θᵀ, the mean cross-entropy and the
// residuals P − Y, unless Θ is the last point.
func (s *Softmax) eval(theta []float64) {
	s.check(theta)
	if s.valid && floats.Equal(theta, s.last) {
		return
	}
	n, p, c := s.x.N(), s.x.P(), s.c
	sum := 0.0
	for i := 0; i < n; i++ {
		// Z = X̃Θᵀ row by row: with a few classes and features a loop beats
		// a BLAS product, which would split the work across goroutines.
		row := s.zr[i*c : (i+1)*c]
		xt := s.x.Row(i)
		for k := range row {
			row[k] = floats.Dot(theta[k*p:(k+1)*p], xt)
		}
		zy := row[s.y[i]]
		sum += stable.Softmax(row, row) - zy
		row[s.y[i]]--
	}
	s.loss = sum / float64(n)
	copy(s.last, theta)
	s.valid = true
}

func (s *Softmax) penalty(theta []float64) float64 {
	return s.lambda / 2 * s.x.weightSq(theta)
}

// Func is f(Θ).
func (s *Softmax) Func(theta []float64) float64 {
	s.eval(theta)
	return s.loss + s.penalty(theta)
}

// CrossEntropy is the mean cross-entropy at Θ, without the penalty.
func (s *Softmax) CrossEntropy(theta []float64) float64 {
	s.eval(theta)
	return s.loss
}

// Grad writes ∇f(Θ) = (P − Y)ᵀX̃ / n + λ(W, 0).
func (s *Softmax) Grad(grad, theta []float64) {
	s.eval(theta)
	n, p, c := s.x.N(), s.x.P(), s.c
	clear(grad)
	for i := 0; i < n; i++ {
		xt := s.x.Row(i)
		for k, r := range s.zr[i*c : (i+1)*c] {
			floats.AddScaled(grad[k*p:(k+1)*p], r, xt)
		}
	}
	floats.Scale(1/float64(n), grad)
	s.addPenaltyGrad(grad, theta)
}

func (s *Softmax) addPenaltyGrad(grad, theta []float64) {
	s.x.addWeights(grad, theta, s.lambda)
}

// GradBatch writes (1/|B|) Σ_{i∈B} ∇f_i(Θ) with f_i the cross-entropy of
// row i plus the penalty. It uses no scratch beyond a c-vector on the
// stack for c ≤ 16.
func (s *Softmax) GradBatch(grad, theta []float64, batch []int) {
	s.check(theta)
	clear(grad)
	p, c := s.x.P(), s.c
	var buf [16]float64
	var pr []float64
	if c <= len(buf) {
		pr = buf[:c]
	} else {
		pr = make([]float64, c)
	}
	for _, i := range batch {
		s.probsRow(theta, s.x.Row(i), pr)
		pr[s.y[i]]--
		for k := 0; k < c; k++ {
			floats.AddScaled(grad[k*p:(k+1)*p], pr[k], s.x.Row(i))
		}
	}
	floats.Scale(1/float64(len(batch)), grad)
	s.addPenaltyGrad(grad, theta)
}

// probsRow writes the class probabilities of the augmented row xt.
func (s *Softmax) probsRow(theta, xt, dst []float64) {
	p := s.x.P()
	for k := range dst {
		dst[k] = floats.Dot(theta[k*p:(k+1)*p], xt)
	}
	stable.Softmax(dst, dst)
}

// Probs writes Pr[Y = k | x; Θ], k = 0..c−1, for a feature vector x of
// length D into dst (len c) and returns dst.
func (s *Softmax) Probs(theta, x, dst []float64) []float64 {
	s.check(theta)
	p, d := s.x.P(), s.x.D()
	for k := range dst {
		t := theta[k*p : (k+1)*p]
		dst[k] = floats.Dot(t[:d], x)
		if s.x.Bias() {
			dst[k] += t[d]
		}
	}
	stable.Softmax(dst, dst)
	return dst
}

// Accuracy is the fraction of rows whose most probable class (ties to the
// lowest index) is the label.
func (s *Softmax) Accuracy(theta []float64) float64 {
	s.eval(theta)
	c := s.c
	ok := 0
	for i := 0; i < s.x.N(); i++ {
		// The residual row is p − onehot: the label's entry is p_y − 1.
		row := s.zr[i*c : (i+1)*c]
		best := 0
		bestP := math.Inf(-1)
		for k, v := range row {
			pk := v
			if k == s.y[i] {
				pk++
			}
			// Ties (within rounding: p_y is recovered as (p_y − 1) + 1) go
			// to the first class, as argmax does: at Θ = 0 every p_k = 1/c
			// and the accuracy is the share of class 0, not 0.
			if pk > bestP+1e-12 {
				best, bestP = k, pk
			}
		}
		if best == s.y[i] {
			ok++
		}
	}
	return float64(ok) / float64(s.x.N())
}

// Curvature returns L = ½ λ_max(X̃ᵀX̃/n) + λ, a global bound on the
// Hessian: the Hessian of log-sum-exp, diag(p) − ppᵀ, is ⪯ ½ I (Böhning's
// bound). The objective is not strongly convex (m = 0).
func (s *Softmax) Curvature() (m, L float64, err error) {
	ev, err := s.x.gramEigen()
	if err != nil {
		return 0, 0, err
	}
	return 0, ev[len(ev)-1]/2 + s.lambda, nil
}
